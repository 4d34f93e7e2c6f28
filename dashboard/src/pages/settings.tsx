/**
 * Settings and security of a project: every setting the server reports (redirect origins,
 * CORS origins when the server has them, token TTLs, rotation, rate limits...), the keys with
 * their last use, key rotation (with grace; new keys shown once) and JWT secret rotation.
 */
import { useState } from 'preact/hooks';
import { api, type Settings } from '../api';
import { ErrorBox, PageHead, SecretField, ShownOnce, when } from '../components/ui';
import { saveSession, type Session } from '../session';
import { useLoad } from '../use-load';

const HELP: Record<string, string> = {
  allowed_redirect_origins: 'Origins that password-reset links may point to, one per line (https://app.example.com).',
  cors_origins: 'Origins whose pages may call the data and auth API, one per line; * allows any.',
  access_token_ttl: 'Seconds an access token lives.',
  refresh_token_ttl: 'Seconds a refresh token lives.',
  refresh_token_rotation: 'Each refresh returns a new refresh token; a replayed old one ends the session.',
  revoke_sessions_on_password_change: 'A password change or reset ends the user’s other sessions.',
  require_verified_email: 'Users must verify their email before they can log in.',
  app_name: 'Shown in emails.',
  email_from: 'Sender of this project’s emails.',
  min_password_length: 'Shortest password accepted at sign-up and reset.',
  rate_limits: 'Auth rate limits.',
  verify_redirect_url: 'Where a browser opening a verification link is sent (its origin must be allowed above); empty: the built-in page.',
};

/** The settings and security page. */
export function SettingsPage({ session, projectId, onSessionChange }: { session: Session; projectId: string; onSessionChange: (s: Session) => void }) {
  const settings = useLoad(() => api.getSettings(session, projectId), [projectId]);
  const keys = useLoad(() => api.listKeys(session, projectId), [projectId]);
  return (
    <section>
      <PageHead title="Settings and keys" sub={`Project ${projectId}`} />
      <ErrorBox error={settings.error} />
      {settings.data && <SettingsForm session={session} projectId={projectId} initial={settings.data} />}
      <h2>Keys</h2>
      <ErrorBox error={keys.error} />
      <table class="grid" data-testid="keys">
        <thead>
          <tr>
            <th>Type</th>
            <th>Prefix</th>
            <th>Created</th>
            <th>Last used</th>
            <th>Expires</th>
          </tr>
        </thead>
        <tbody>
          {(keys.data ?? []).map((k) => (
            <tr key={`${k.prefix}-${k.created_at}`}>
              <td>{k.type === 'sk' ? 'admin (sk_)' : 'publishable (pk_)'}</td>
              <td class="mono">{k.prefix}…</td>
              <td class="muted">{when(k.created_at)}</td>
              <td class="muted">{k.last_used_at ? when(k.last_used_at) : 'never'}</td>
              <td class="muted">{k.expires_at ? when(k.expires_at) : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <RotateKeys session={session} projectId={projectId} onRotated={keys.reload} onSessionChange={onSessionChange} />
      <RotateJwt session={session} projectId={projectId} />
    </section>
  );
}

function SettingsForm({ session, projectId, initial }: { session: Session; projectId: string; initial: Settings }) {
  const [values, setValues] = useState<Settings>(initial);
  const [changed, setChanged] = useState<Set<string>>(new Set());
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const set = (name: string, value: unknown) => {
    setValues({ ...values, [name]: value });
    setChanged(new Set(changed).add(name));
    setSaved(false);
  };
  const save = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const patch = Object.fromEntries([...changed].map((name) => [name, values[name]]));
      const next = await api.patchSettings(session, projectId, patch);
      setValues(next);
      setChanged(new Set());
      setSaved(true);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <form class="form card settings" onSubmit={save} data-testid="settings-form">
      {Object.keys(values)
        .sort(order)
        .map((name) => (
          <SettingField key={name} name={name} value={values[name]} onChange={(v) => set(name, v)} />
        ))}
      <ErrorBox error={error} testId="settings-error" />
      {saved && <p class="ok">Saved.</p>}
      <div class="actions">
        <button type="submit" class="primary" disabled={changed.size === 0} data-testid="save-settings">
          Save settings
        </button>
      </div>
    </form>
  );
}

const FIRST = ['allowed_redirect_origins', 'cors_origins'];
function order(a: string, b: string): number {
  const ia = FIRST.indexOf(a);
  const ib = FIRST.indexOf(b);
  if (ia !== ib) return (ia === -1 ? 99 : ia) - (ib === -1 ? 99 : ib);
  return a.localeCompare(b);
}

function SettingField({ name, value, onChange }: { name: string; value: unknown; onChange: (value: unknown) => void }) {
  const help = HELP[name];
  const label = (
    <span>
      <span class="mono">{name}</span> {help && <span class="muted small">{help}</span>}
    </span>
  );
  if (Array.isArray(value)) {
    return (
      <label>
        {label}
        <textarea
          name={`setting-${name}`}
          class="mono"
          rows={3}
          value={value.join('\n')}
          onInput={(e) => onChange((e.currentTarget as HTMLTextAreaElement).value.split('\n').map((s) => s.trim()).filter((s) => s !== ''))}
        />
      </label>
    );
  }
  if (typeof value === 'boolean') {
    return (
      <label class="check">
        <input type="checkbox" name={`setting-${name}`} checked={value} onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)} />
        {label}
      </label>
    );
  }
  if (typeof value === 'number') {
    return (
      <label>
        {label}
        <input name={`setting-${name}`} type="number" value={String(value)} onInput={(e) => onChange(Number((e.currentTarget as HTMLInputElement).value))} />
      </label>
    );
  }
  if (value !== null && typeof value === 'object') {
    const inner = value as Record<string, unknown>;
    return (
      <fieldset>
        <legend>{label}</legend>
        <div class="inline-fields">
          {Object.keys(inner).map((key) => (
            <label key={key}>
              <span class="mono small">{key}</span>
              <input name={`setting-${name}-${key}`} type="number" value={String(inner[key])} onInput={(e) => onChange({ ...inner, [key]: Number((e.currentTarget as HTMLInputElement).value) })} />
            </label>
          ))}
        </div>
      </fieldset>
    );
  }
  return (
    <label>
      {label}
      <input name={`setting-${name}`} value={value === null || value === undefined ? '' : String(value)} placeholder="not set" onInput={(e) => {
        const text = (e.currentTarget as HTMLInputElement).value;
        onChange(text === '' ? null : text);
      }} />
    </label>
  );
}

function RotateKeys({ session, projectId, onRotated, onSessionChange }: { session: Session; projectId: string; onRotated: () => void; onSessionChange: (s: Session) => void }) {
  const [which, setWhich] = useState<'both' | 'sk' | 'pk'>('both');
  const [grace, setGrace] = useState('0');
  const [fresh, setFresh] = useState<{ admin_key?: string; publishable_key?: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const rotate = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const result = await api.rotateKeys(session, projectId, { ...(which !== 'both' && { type: which }), grace_seconds: Number(grace) || 0 });
      // Signed in with this project's admin key: keep working with the new one.
      setFresh(result);
      if (result.admin_key && session.kind === 'project') {
        const next = { ...session, key: result.admin_key };
        saveSession(next);
        onSessionChange(next);
      }
      onRotated();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <form class="form card" onSubmit={rotate} data-testid="rotate-keys">
      <h3>Rotate keys</h3>
      <div class="inline-fields">
        <label>
          Keys
          <select name="rotate-which" value={which} onChange={(e) => setWhich((e.currentTarget as HTMLSelectElement).value as 'both' | 'sk' | 'pk')}>
            <option value="both">both keys</option>
            <option value="sk">admin key (sk_)</option>
            <option value="pk">publishable key (pk_)</option>
          </select>
        </label>
        <label>
          Grace period (seconds, at most 86400)
          <input name="grace_seconds" type="number" min={0} max={86400} value={grace} onInput={(e) => setGrace((e.currentTarget as HTMLInputElement).value)} />
        </label>
      </div>
      <p class="muted small">The old key stops working at once, or when the grace period ends. Apps holding it must be updated.</p>
      <ErrorBox error={error} />
      {fresh && (
        <div data-testid="rotated-keys">
          <ShownOnce />
          {fresh.admin_key && <SecretField label="New admin key" value={fresh.admin_key} testId="new-admin-key" />}
          {fresh.publishable_key && <SecretField label="New publishable key" value={fresh.publishable_key} testId="new-publishable-key" />}
        </div>
      )}
      <div class="actions">
        <button type="submit" class="danger" data-testid="rotate-keys-submit">
          Rotate
        </button>
      </div>
    </form>
  );
}

function RotateJwt({ session, projectId }: { session: Session; projectId: string }) {
  const [revoke, setRevoke] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const rotate = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      setDone((await api.rotateJwtSecret(session, projectId, revoke)).rotated_at);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <form class="form card" onSubmit={rotate} data-testid="rotate-jwt">
      <h3>Rotate the JWT secret</h3>
      <p class="muted small">Every access token issued before now stops working; users refresh to get a new one.</p>
      <label class="check">
        <input type="checkbox" name="revoke_sessions" checked={revoke} onChange={(e) => setRevoke((e.currentTarget as HTMLInputElement).checked)} />
        Also end every session (refresh tokens stop working: everyone signs in again)
      </label>
      <ErrorBox error={error} />
      {done && <p class="ok">Rotated at {when(done)}.</p>}
      <div class="actions">
        <button type="submit" class="danger" data-testid="rotate-jwt-submit">
          Rotate secret
        </button>
      </div>
    </form>
  );
}
