/**
 * One user's sessions (contract §13, admin endpoints): when each
 * began and was last used, from which client; end them all.
 */
import { useState } from 'preact/hooks';
import { api, RowbaseError, type Row } from '../api';
import { DateTime } from '../components/date-time';
import { ErrorBox, Modal } from '../components/ui';
import type { Session } from '../session';
import { useLoad } from '../use-load';

/** The sessions dialog of one user. */
export function UserSessions({
  session,
  projectId,
  user,
  onClose,
}: {
  session: Session;
  projectId: string;
  user: Row;
  onClose: () => void;
}) {
  const sessions = useLoad(() => api.listUserSessions(session, projectId, user.id), [projectId, user.id]);
  const [error, setError] = useState<unknown>(null);
  const endAll = async () => {
    setError(null);
    try {
      await api.endUserSessions(session, projectId, user.id);
      sessions.reload();
    } catch (e) {
      setError(e);
    }
  };
  const missing = sessions.error instanceof RowbaseError && sessions.error.code === 'NOT_FOUND';
  return (
    <Modal title={`Sessions of ${String(user.email)}`} onClose={onClose} wide>
      {missing ? (
        <p class="muted">This server has no sessions endpoints.</p>
      ) : (
        <ErrorBox error={sessions.error ?? error} />
      )}
      {sessions.data && (
        <table class="grid" data-testid="user-sessions">
          <thead>
            <tr>
              <th>Started</th>
              <th>Last used</th>
              <th>Client</th>
            </tr>
          </thead>
          <tbody>
            {sessions.data.map((s) => (
              <tr key={s.id}>
                <td>
                  <DateTime value={s.created_at} />
                </td>
                <td class="muted">{s.last_used_at ? <DateTime value={s.last_used_at} /> : '—'}</td>
                <td class="muted small">{s.user_agent ?? 'unknown'}</td>
              </tr>
            ))}
            {sessions.data.length === 0 && (
              <tr>
                <td colSpan={3} class="empty">
                  No live sessions.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      )}
      <div class="actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
        <button
          type="button"
          class="danger"
          disabled={!sessions.data || sessions.data.length === 0}
          onClick={endAll}
          data-testid="end-sessions"
        >
          End all sessions
        </button>
      </div>
    </Modal>
  );
}
