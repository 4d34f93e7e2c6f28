/**
 * The rows ticked in the grid. The selection belongs to the view it was made in (offset, sort,
 * filter): a new view starts with none. Derived in render, not reset by an effect, so a box
 * ticked right after the view changed is not cleared by a late effect.
 */
import { useState } from 'preact/hooks';

/** The empty selection (never mutated). */
const NO_SELECTION: ReadonlySet<string> = new Set();

/** What useViewSelection returns. */
export interface ViewSelection {
  selected: ReadonlySet<string>;
  /** Replaces the selection of the current view. */
  setSelected: (ids: ReadonlySet<string>) => void;
  /** Ticks or unticks one row. */
  toggle: (id: string) => void;
}

/** The selection of the view `view` (any string that changes when the rows shown do). */
export function useViewSelection(view: string): ViewSelection {
  const [selection, setSelection] = useState<{ view: string; ids: ReadonlySet<string> }>({ view, ids: new Set() });
  return {
    selected: selection.view === view ? selection.ids : NO_SELECTION,
    setSelected: (ids) => setSelection({ view, ids }),
    toggle: (id) =>
      setSelection((s) => {
        const next = new Set(s.view === view ? s.ids : NO_SELECTION);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        return { view, ids: next };
      }),
  };
}
