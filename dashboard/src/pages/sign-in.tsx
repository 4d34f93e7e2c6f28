/**
 * Sign-in with the platform key (every project) or a project id and its admin key (that
 * project). The key is checked against the server before it is kept in sessionStorage.
 */
import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorBox } from '../components/ui';
import { saveSession, type Session } from '../session';

/** The sign-in form; calls `onSignedIn` with the checked session. */
export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [kind, setKind] = useState<'platform' | 'project'>('platform');
  const [key, setKey] = useState('');
  const [projectId, setProjectId] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const session: Session = kind === 'platform' ? { kind, key: key.trim() } : { kind, projectId: projectId.trim(), key: key.trim() };
    try {
      // A cheap authorised read proves the key before anything is stored.
      if (session.kind === 'platform') await api.listProjects(session, 1);
      else await api.listTables(session, session.projectId);
      saveSession(session);
      onSignedIn(session);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="signin">
      <form class="card signin-card" onSubmit={submit} data-testid="signin-form">
        <div class="brand">
          <span class="logo" aria-hidden="true">
            R
          </span>
          <span>Rowbase</span>
        </div>
        <h1>Sign in to the dashboard</h1>
        <div class="tabs" role="tablist">
          <button type="button" role="tab" aria-selected={kind === 'platform'} class={kind === 'platform' ? 'tab active' : 'tab'} onClick={() => setKind('platform')} data-testid="signin-platform">
            Platform key
          </button>
          <button type="button" role="tab" aria-selected={kind === 'project'} class={kind === 'project' ? 'tab active' : 'tab'} onClick={() => setKind('project')} data-testid="signin-project">
            Project admin key
          </button>
        </div>
        {kind === 'project' && (
          <label>
            Project id
            <input name="project" autoComplete="off" required value={projectId} placeholder="e.g. demo" onInput={(e) => setProjectId((e.currentTarget as HTMLInputElement).value)} />
          </label>
        )}
        <label>
          {kind === 'platform' ? 'Platform key' : 'Admin key'}
          <input
            name="key"
            type="password"
            autoComplete="off"
            required
            value={key}
            placeholder={kind === 'platform' ? 'rb_…' : 'sk_…'}
            onInput={(e) => setKey((e.currentTarget as HTMLInputElement).value)}
          />
        </label>
        <p class="muted small">
          {kind === 'platform'
            ? 'The platform key is printed once when the server first starts (or set with PLATFORM_KEY). It administers every project.'
            : 'The admin key (sk_…) was shown when the project was created or its keys rotated.'}{' '}
          The key stays in this tab only (sessionStorage) and is forgotten on sign-out.
        </p>
        <ErrorBox error={error} testId="signin-error" />
        <button type="submit" class="primary" disabled={busy} data-testid="signin-submit">
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
