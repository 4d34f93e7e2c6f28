/**
 * Where the rows grid is in the table: the pages walked through, by cursor (`after=`, so page
 * 10,000 costs what page 1 does) with the offset kept for display and for servers without
 * cursors. Next pushes the answer's next_cursor, Previous pops, a new view restarts.
 */
import { useState } from 'preact/hooks';

/** Where a page starts: its offset (for display, and for servers without cursors) and the cursor that reaches it. */
export interface Position {
  offset: number;
  after?: string;
}

const FIRST_PAGE: Position = { offset: 0 };

/** What usePageTrail returns. */
export interface PageTrail {
  /** The page asked for now. */
  position: Position;
  /** True on the first page (Previous has nowhere to go). */
  atFirst: boolean;
  /** Goes to the page after the one shown at `shownOffset`, reached by `cursor` when the server gave one. */
  next: (shownOffset: number, pageSize: number, cursor: unknown) => void;
  previous: () => void;
  /** Back to the first page (a new sort or filter). */
  restart: () => void;
}

/** The trail of pages of one grid. */
export function usePageTrail(): PageTrail {
  const [trail, setTrail] = useState<Position[]>([FIRST_PAGE]);
  return {
    position: trail[trail.length - 1]!,
    atFirst: trail.length === 1,
    next: (shownOffset, pageSize, cursor) =>
      setTrail([...trail, { offset: shownOffset + pageSize, after: typeof cursor === 'string' ? cursor : undefined }]),
    previous: () => setTrail(trail.slice(0, -1)),
    restart: () => setTrail([FIRST_PAGE]),
  };
}
