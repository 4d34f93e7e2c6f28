/**
 * Sends one user a password-reset mail through the auth API (POST /p/{id}/auth/forgot-password),
 * the link pointing at an origin the admin picks among the project's allowed redirect origins
 * (the server refuses any other). With none configured, says so and links to the settings.
 */
import { useState } from 'preact/hooks';
import { api, type Row } from '../api';
import { ErrorBox, Modal } from '../components/ui';
import { href } from '../router';
import type { Session } from '../session';
import { useLoad } from '../use-load';

/** The reset dialog of one user. */
export function PasswordReset({
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
  const settings = useLoad(() => api.getSettings(session, projectId), [projectId]);
  const origins = (settings.data?.allowed_redirect_origins as string[] | undefined) ?? [];
  const [picked, setPicked] = useState('');
  const [path, setPath] = useState('');
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const email = String(user.email);
  const origin = picked || origins[0] || '';
  const redirectUrl = `${origin}${path.trim() === '' || path.trim().startsWith('/') ? path.trim() : `/${path.trim()}`}`;
  const send = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setBusy(true);
    try {
      await api.sendPasswordReset(session, projectId, { email, redirect_url: redirectUrl });
      setSent(true);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal title={`Password reset for ${email}`} onClose={onClose}>
      <div data-testid="reset-dialog" class="form">
        <ErrorBox error={settings.error} />
        {settings.data && origins.length === 0 && (
          <p class="warning">
            No redirect origins are configured, so the reset link has nowhere to point. Add your app’s origin under{' '}
            <a href={href('p', projectId, 'settings')} onClick={onClose}>
              Allowed redirect origins in the settings
            </a>
            , then come back.
          </p>
        )}
        {origins.length > 0 && (
          <form class="form" onSubmit={send}>
            <p class="muted small">
              The mail links to your app’s reset page with a one-hour token appended; the app sends it with the new
              password to POST /auth/reset-password.
            </p>
            <div class="inline-fields">
              <label>
                App origin
                <select
                  name="reset-origin"
                  value={origin}
                  onChange={(e) => setPicked((e.currentTarget as HTMLSelectElement).value)}
                >
                  {origins.map((o) => (
                    <option key={o} value={o}>
                      {o}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Reset page path
                <input
                  name="reset-path"
                  class="mono"
                  value={path}
                  placeholder="e.g. /reset-password"
                  onInput={(e) => setPath((e.currentTarget as HTMLInputElement).value)}
                />
              </label>
            </div>
            <p class="muted small">
              Link: <span class="mono">{redirectUrl}?token=…</span>
            </p>
            <ErrorBox error={error} />
            {sent && (
              <p class="ok" role="status">
                Reset mail requested for {email}. Without SMTP_URL it lands in the Outbox.
              </p>
            )}
            <div class="actions">
              <button type="button" onClick={onClose}>
                Close
              </button>
              <button type="submit" class="primary" disabled={busy} data-testid="send-reset">
                Send password reset
              </button>
            </div>
          </form>
        )}
      </div>
    </Modal>
  );
}
