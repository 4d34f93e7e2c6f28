/**
 * Key rotation (POST /p/{id}/v1/rotate-keys, contract §3), made hard to do by accident: one key
 * at a time, an hour of grace unless chosen otherwise, and a confirmation that says what stops
 * working and when before anything is sent. Afterwards the new key is shown once, with the time
 * the old one stops (its expires_at from GET /v1/keys). Rotating the admin key this tab signed
 * in with ends the tab's token with the old key (at once, or when its grace ends), so the tab
 * exchanges the new key for a new token and signs the old one out.
 *
 * The admin key (sk_) is the default: it is the secret one, the key whose leak makes rotation
 * urgent, and it lives on servers the project's team controls and can update within the grace.
 * The publishable key ships inside apps that may take days to update (app-store review), so
 * rotating it is a deliberate choice, never the default.
 */
import { useState } from 'preact/hooks';
import { api, type KeyInfo } from '../api';
import { DateTime, formatClock, formatDate } from '../components/date-time';
import { ErrorBox, Modal, SecretField, ShownOnce } from '../components/ui';
import { saveSession, type Session } from '../session';

type KeyType = 'sk' | 'pk';

/** The grace periods offered, in seconds (the server allows at most 86400). */
const GRACE_CHOICES: { seconds: number; label: string; phrase: string }[] = [
  { seconds: 0, label: 'none: the old key stops at once', phrase: '' },
  { seconds: 3600, label: '1 hour', phrase: '1 hour' },
  { seconds: 86_400, label: '24 hours', phrase: '24 hours' },
];

/** Who holds each kind of key, for the sentence that says who stops working. */
const HOLDERS: Record<KeyType, string> = {
  pk: 'Apps using the current pk_ key',
  sk: 'Servers and scripts using the current sk_ key',
};

/** What rotating `type` with `grace` seconds breaks, and when, in one sentence. */
function consequence(type: KeyType, grace: number, session: Session, now: Date): string {
  const choice = GRACE_CHOICES.find((c) => c.seconds === grace);
  const end = new Date(now.getTime() + grace * 1000);
  const when =
    grace === 0
      ? 'stop working immediately'
      : `stop working in ${choice?.phrase ?? `${grace} seconds`}, at ` +
        `${grace < 86_400 ? formatClock(end) : formatDate(end.toISOString())}`;
  const self = type === 'sk' && session.kind === 'project' ? ' This dashboard signs in again with the new key.' : '';
  return `${HOLDERS[type]} ${when}, unless they are given the new key first.${self}`;
}

/** What a rotation returned: the new key, and until when the old one works (undefined: it stopped at once). */
interface Rotated {
  type: KeyType;
  key: string;
  oldExpiresAt?: string;
}

/** The rotate-keys card of the settings page. */
export function RotateKeys({
  session,
  projectId,
  onRotated,
  onSessionChange,
}: {
  session: Session;
  projectId: string;
  onRotated: () => void;
  onSessionChange: (s: Session) => void;
}) {
  const [type, setType] = useState<KeyType>('sk');
  const [grace, setGrace] = useState(3600);
  const [confirming, setConfirming] = useState<Date | null>(null);
  const [rotated, setRotated] = useState<Rotated | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const rotate = async () => {
    setError(null);
    setBusy(true);
    try {
      const result = await api.rotateKeys(session, projectId, { type, grace_seconds: grace });
      const key = (type === 'sk' ? result.admin_key : result.publishable_key) ?? '';
      // Signed in with this project's admin key: its token ends with the old key, so take one made from the new key.
      let current = session;
      if (type === 'sk' && session.kind === 'project' && key) {
        current = await api.signIn({ kind: 'project', projectId, key });
        saveSession(current);
        onSessionChange(current);
        // Ended already without a grace period; with one, it would otherwise live on until the grace ends.
        api.signOut(session).catch(() => undefined);
      }
      const keys = await api.listKeys(current, projectId).catch(() => [] as KeyInfo[]);
      setRotated({ type, key, oldExpiresAt: grace > 0 ? latestExpiry(keys, type) : undefined });
      setConfirming(null);
      onRotated();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      class="form card"
      data-testid="rotate-keys"
      onSubmit={(event) => {
        event.preventDefault();
        setError(null);
        setConfirming(new Date());
      }}
    >
      <h3>Rotate a key</h3>
      <div class="inline-fields">
        <label>
          Key
          <select
            name="rotate-which"
            value={type}
            onChange={(e) => setType((e.currentTarget as HTMLSelectElement).value as KeyType)}
          >
            <option value="sk">admin key (sk_): servers and scripts</option>
            <option value="pk">publishable key (pk_): apps</option>
          </select>
        </label>
        <label>
          Old key keeps working for
          <select
            name="rotate-grace"
            value={String(grace)}
            onChange={(e) => setGrace(Number((e.currentTarget as HTMLSelectElement).value))}
          >
            {GRACE_CHOICES.map((c) => (
              <option key={c.seconds} value={String(c.seconds)}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <p class="muted small">
        During the grace period both keys work: give the new key to whatever holds the old one before it ends.
      </p>
      {rotated && (
        <div data-testid="rotated-keys" class="form">
          <ShownOnce single />
          <SecretField
            label={rotated.type === 'sk' ? 'New admin key' : 'New publishable key'}
            value={rotated.key}
            testId={rotated.type === 'sk' ? 'new-admin-key' : 'new-publishable-key'}
          />
          <p data-testid="old-key-expiry">
            {rotated.oldExpiresAt ? (
              <>
                The old {rotated.type}_ key works until <DateTime value={rotated.oldExpiresAt} />.
              </>
            ) : (
              <>The old {rotated.type}_ key stopped working.</>
            )}
          </p>
        </div>
      )}
      <div class="actions">
        <button type="submit" class="danger" data-testid="rotate-keys-submit">
          Rotate…
        </button>
      </div>
      {confirming && (
        <Modal title={`Rotate the ${type === 'sk' ? 'admin' : 'publishable'} key?`} onClose={() => setConfirming(null)}>
          <div class="form" data-testid="confirm-rotation">
            <p class="warning" data-testid="rotation-consequence">
              {consequence(type, grace, session, confirming)}
            </p>
            <p class="muted small">The new key is shown once, after rotating.</p>
            <ErrorBox error={error} />
            <div class="actions">
              <button type="button" onClick={() => setConfirming(null)}>
                Cancel
              </button>
              <button type="button" class="danger" disabled={busy} onClick={rotate} data-testid="confirm-rotate">
                Rotate the {type}_ key
              </button>
            </div>
          </div>
        </Modal>
      )}
    </form>
  );
}

/** The latest expiry among the keys of `type` (the one just put on grace); undefined when none expires. */
function latestExpiry(keys: KeyInfo[], type: KeyType): string | undefined {
  return keys
    .filter((k) => k.type === type && k.expires_at !== null)
    .map((k) => k.expires_at!)
    .sort()
    .pop();
}
