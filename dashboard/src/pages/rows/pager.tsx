/** The pager under the rows grid: the range shown, Previous and Next. */

/** What the pager shows and what it reports. */
export interface PagerProps {
  /** The offset of the first row shown, the number of rows shown and the total. */
  offset: number;
  count: number;
  total: number;
  previousDisabled: boolean;
  nextDisabled: boolean;
  onPrevious: () => void;
  onNext: () => void;
}

/** The range and the two buttons. */
export function Pager({ offset, count, total, previousDisabled, nextDisabled, onPrevious, onNext }: PagerProps) {
  return (
    <div class="pager">
      <span class="muted" data-testid="page-info">
        {count === 0 ? 0 : offset + 1}–{offset + count} of {total}
      </span>
      <button type="button" disabled={previousDisabled} onClick={onPrevious} data-testid="prev-page">
        Previous
      </button>
      <button type="button" disabled={nextDisabled} onClick={onNext} data-testid="next-page">
        Next
      </button>
    </div>
  );
}
