/**
 * The editor's refusals that need more than the server's message: a table name taken (create
 * only), a table changed by someone else (If-Match), a change that would lose data. Each says
 * that nothing was changed and offers the next step.
 */
import type { RowbaseError } from '../api';
import { href } from '../router';

/** Why a save was refused without changing anything: the name is taken, or the table changed meanwhile. */
export interface Conflict {
  kind: 'exists' | 'changed';
  name: string;
}

/**
 * Says that a save changed nothing because of `conflict`, with the way on: open the existing table, or reload this one.
 */
export function ConflictNotice({
  conflict,
  projectId,
  onReload,
}: {
  conflict: Conflict;
  projectId: string;
  onReload: () => void;
}) {
  if (conflict.kind === 'exists') {
    return (
      <div class="error" role="alert" data-testid="table-exists">
        <div class="error-message">A table named {conflict.name} exists already: open it to edit.</div>
        <div class="error-suggestion">
          Nothing was changed.{' '}
          <a href={href('p', projectId, 'tables', conflict.name, 'schema')}>Open {conflict.name}</a>, or choose another
          name.
        </div>
        <div class="error-code">TABLE_EXISTS</div>
      </div>
    );
  }
  return (
    <div class="error" role="alert" data-testid="schema-changed">
      <div class="error-message">
        Someone else changed the table {conflict.name} since you opened it. Your changes were not saved.
      </div>
      <div class="error-suggestion">
        Reload the table to see the current version (your edits here are discarded), then make your change again.
      </div>
      <div class="error-code">SCHEMA_CHANGED</div>
      <div class="actions">
        <button type="button" class="primary" onClick={onReload} data-testid="reload-table">
          Reload the table
        </button>
      </div>
    </div>
  );
}

/**
 * The 409 SCHEMA_CHANGE_DESTRUCTIVE of a save, with Cancel and
 * the confirmation that resends it with allow_destructive=true.
 */
export function DestructiveNotice({
  error,
  busy,
  onCancel,
  onApply,
}: {
  error: RowbaseError;
  busy: boolean;
  onCancel: () => void;
  onApply: () => void;
}) {
  return (
    <div class="error" role="alert" data-testid="destructive">
      <div class="error-message">{error.message}</div>
      <div class="error-suggestion">
        Nothing was changed. Data in these columns is lost if you apply the change anyway.
      </div>
      <div class="error-code">{error.code}</div>
      <div class="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class="danger" disabled={busy} onClick={onApply} data-testid="apply-destructive">
          Apply anyway: data in these columns is lost
        </button>
      </div>
    </div>
  );
}
