/**
 * Settings and security of a project: every setting the server reports (redirect origins,
 * CORS origins when the server has them, token TTLs, rotation, rate limits...) under a label a
 * person reads, the keys with their last use and expiry, key rotation (rotate-keys.tsx) and
 * JWT secret rotation.
 */
import { useState } from 'preact/hooks';
import { api, type Settings } from '../api';
import { DateTime } from '../components/date-time';
import { ErrorBox, PageHead } from '../components/ui';
import type { Session } from '../session';
import { useLoad } from '../use-load';
import { DataRateLimitsField, type DataRateLimits } from './data-rate-limits-field';
import { RotateKeys } from './rotate-keys';
import { compareSettings, settingLabel } from './setting-labels';

/** The settings and security page. */
export function SettingsPage({
  session,
  projectId,
  onSessionChange,
}: {
  session: Session;
  projectId: string;
  onSessionChange: (s: Session) => void;
}) {
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
              <td class="muted">
                <DateTime value={k.created_at} />
              </td>
              <td class="muted">{k.last_used_at ? <DateTime value={k.last_used_at} /> : 'never'}</td>
              <td class="muted">{k.expires_at ? <DateTime value={k.expires_at} /> : 'never'}</td>
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
        .sort(compareSettings)
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

function SettingField({ name, value, onChange }: { name: string; value: unknown; onChange: (value: unknown) => void }) {
  const { label: text, help, example } = settingLabel(name);
  // The server's key in the tooltip: what a script would PATCH.
  const label = (
    <span title={name}>
      {text} {help && <span class="muted small help">{help}</span>}
    </span>
  );
  if (name === 'data_rate_limits') {
    return <DataRateLimitsField label={label} value={value as DataRateLimits | null} onChange={onChange} />;
  }
  if (Array.isArray(value)) {
    return (
      <label>
        {label}
        <textarea
          name={`setting-${name}`}
          class="mono"
          rows={3}
          value={value.join('\n')}
          placeholder={example && `e.g. ${example}`}
          onInput={(e) =>
            onChange(
              (e.currentTarget as HTMLTextAreaElement).value
                .split('\n')
                .map((s) => s.trim())
                .filter((s) => s !== ''),
            )
          }
        />
      </label>
    );
  }
  if (typeof value === 'boolean') {
    return (
      <label class="check">
        <input
          type="checkbox"
          name={`setting-${name}`}
          checked={value}
          onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)}
        />
        {label}
      </label>
    );
  }
  if (typeof value === 'number') {
    return (
      <label>
        {label}
        <input
          name={`setting-${name}`}
          type="number"
          value={String(value)}
          onInput={(e) => onChange(Number((e.currentTarget as HTMLInputElement).value))}
        />
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
            <label key={key} title={`${name}.${key}`}>
              <span class="small">{settingLabel(`${name}.${key}`).label}</span>
              <input
                name={`setting-${name}-${key}`}
                type="number"
                value={String(inner[key])}
                onInput={(e) => onChange({ ...inner, [key]: Number((e.currentTarget as HTMLInputElement).value) })}
              />
            </label>
          ))}
        </div>
      </fieldset>
    );
  }
  return (
    <label>
      {label}
      <input
        name={`setting-${name}`}
        value={value === null || value === undefined ? '' : String(value)}
        placeholder={example && `e.g. ${example}`}
        onInput={(e) => {
          const typed = (e.currentTarget as HTMLInputElement).value;
          onChange(typed === '' ? null : typed);
        }}
      />
    </label>
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
        <input
          type="checkbox"
          name="revoke_sessions"
          checked={revoke}
          onChange={(e) => setRevoke((e.currentTarget as HTMLInputElement).checked)}
        />
        Also end every session (refresh tokens stop working: everyone signs in again)
      </label>
      <ErrorBox error={error} />
      {done && (
        <p class="ok">
          Rotated at <DateTime value={done} />.
        </p>
      )}
      <div class="actions">
        <button type="submit" class="danger" data-testid="rotate-jwt-submit">
          Rotate secret
        </button>
      </div>
    </form>
  );
}
