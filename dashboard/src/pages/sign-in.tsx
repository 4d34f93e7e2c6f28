/**
 * Sign-in with the platform key (every project) or a project id and its admin key (that
 * project). The key is exchanged for a dashboard token (POST /v1/dashboard/sessions), and only
 * the token is kept in sessionStorage; the key leaves the page with this form.
 */
import { useState } from 'preact/hooks';
import { api, type SignInKey } from '../api';
import { ErrorBox } from '../components/ui';
import { saveSession, type Session } from '../session';

/** The sign-in form; calls `onSignedIn` with the new session. `notice` says why the last session ended. */
export function SignIn({ onSignedIn, notice }: { onSignedIn: (session: Session) => void; notice?: string | null }) {
  const [kind, setKind] = useState<'platform' | 'project'>('platform');
  const [key, setKey] = useState('');
  const [projectId, setProjectId] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const proof: SignInKey =
      kind === 'platform' ? { kind, key: key.trim() } : { kind, projectId: projectId.trim(), key: key.trim() };
    try {
      const session = await api.signIn(proof);
      saveSession(session);
      // The key is needed no more: nothing of it stays in the page.
      setKey('');
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
        {notice && (
          <p class="warning" role="status" data-testid="session-ended">
            {notice}
          </p>
        )}
        <div class="tabs" role="tablist">
          <button
            type="button"
            role="tab"
            aria-selected={kind === 'platform'}
            class={kind === 'platform' ? 'tab active' : 'tab'}
            onClick={() => setKind('platform')}
            data-testid="signin-platform"
          >
            Platform key
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={kind === 'project'}
            class={kind === 'project' ? 'tab active' : 'tab'}
            onClick={() => setKind('project')}
            data-testid="signin-project"
          >
            Project admin key
          </button>
        </div>
        {kind === 'project' && (
          <label>
            Project id
            <input
              name="project"
              autoComplete="off"
              required
              value={projectId}
              placeholder="e.g. demo"
              onInput={(e) => setProjectId((e.currentTarget as HTMLInputElement).value)}
            />
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
            ? 'The platform key is printed once when the server first starts ' +
              '(or set with PLATFORM_KEY). It administers every project.'
            : 'The admin key (sk_…) was shown when the project was created or its keys rotated.'}{' '}
          The key is exchanged for a session token that lasts 12 hours; only the token stays in this tab
          (sessionStorage), and signing out ends it.
        </p>
        <ErrorBox error={error} testId="signin-error" />
        <button type="submit" class="primary" disabled={busy} data-testid="signin-submit">
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
