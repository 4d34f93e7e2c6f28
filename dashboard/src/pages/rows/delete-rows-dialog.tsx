/** The confirmation before deleting the selected rows; a refusal is shown in the dialog. */
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { ErrorBox, Modal } from '../../components/ui';
import type { Session } from '../../session';

/** What the dialog deletes and whom it tells. */
export interface DeleteRowsDialogProps {
  session: Session;
  projectId: string;
  tableName: string;
  ids: ReadonlySet<string>;
  onClose: () => void;
  /** After every row is deleted. */
  onDeleted: () => void;
  /** After a refusal: some rows may be gone already, so the page shown reloads. */
  onFailed: () => void;
}

/** Deletes `ids` one by one after Delete is clicked. */
export function DeleteRowsDialog({
  session,
  projectId,
  tableName,
  ids,
  onClose,
  onDeleted,
  onFailed,
}: DeleteRowsDialogProps) {
  const [error, setError] = useState<unknown>(null);
  const deleteAll = async () => {
    setError(null);
    try {
      for (const id of ids) await api.deleteRow(session, projectId, tableName, id);
      onDeleted();
    } catch (e) {
      setError(e);
      onFailed();
    }
  };
  return (
    <Modal title={`Delete ${ids.size} row${ids.size === 1 ? '' : 's'}?`} onClose={onClose}>
      <p>
        The selected rows of {tableName} are deleted for good (rows that reference them follow their on_delete rule).
      </p>
      <ErrorBox error={error} />
      <div class="actions">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={deleteAll} data-testid="confirm-delete-rows">
          Delete
        </button>
      </div>
    </Modal>
  );
}
