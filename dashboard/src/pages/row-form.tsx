/**
 * Create or edit a row in a form generated from the column types: enum select, number
 * inputs, a true/false/null select, a UTC timestamp picker, a JSON editor and a reference
 * picker (ids of the referenced table). On edit only changed fields are sent.
 */
import { useState } from 'preact/hooks';
import { api, type Column, type Row, type Table } from '../api';
import { ErrorBox, Modal } from '../components/ui';
import type { Session } from '../session';
import { useLoad } from '../use-load';
import { fieldText, fieldValue, rowLabel } from './row-values';

/** The columns a form edits: the declared ones, plus email/password/email_verified of an auth table. */
function formColumns(table: Table, creating: boolean): Column[] {
  if (!table.auth_table) return table.columns;
  const auth: Column[] = [{ name: 'email', type: 'text', required: true }];
  if (creating) auth.push({ name: 'password', type: 'text', required: true });
  auth.push({ name: 'email_verified', type: 'boolean' });
  return [...auth, ...table.columns];
}

/** The row dialog; `row` absent means create. Calls `onSaved` after a successful write. */
export function RowForm({ session, projectId, table, row, onClose, onSaved, onDelete }: { session: Session; projectId: string; table: Table; row?: Row; onClose: () => void; onSaved: () => void; onDelete?: () => Promise<void> }) {
  const [confirming, setConfirming] = useState(false);
  const creating = row === undefined;
  const columns = formColumns(table, creating);
  const [texts, setTexts] = useState<Record<string, string>>(() => Object.fromEntries(columns.map((c) => [c.name, row ? fieldText(c.type, row[c.name]) : ''])));
  const [touched, setTouched] = useState<Set<string>>(new Set());
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const set = (name: string, text: string) => {
    setTexts({ ...texts, [name]: text });
    setTouched(new Set(touched).add(name));
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const body: Record<string, unknown> = {};
      for (const c of columns) {
        // Create: empty fields are left out, so the server applies defaults. Edit: only what changed.
        if (creating ? texts[c.name] === '' : !touched.has(c.name)) continue;
        body[c.name] = fieldValue(c, texts[c.name] ?? '');
      }
      setBusy(true);
      if (creating) await api.createRow(session, projectId, table.name, body);
      else await api.updateRow(session, projectId, table.name, row.id, body);
      onSaved();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal title={creating ? `New row in ${table.name}` : `Row ${row.id}`} onClose={onClose} wide>
      <form class="form row-form" onSubmit={submit} data-testid="row-form">
        {!creating && (
          <p class="muted small mono">
            id {row.id} · created {String(row.created_at)} · updated {String(row.updated_at)}
          </p>
        )}
        {columns.map((c) => (
          <label key={c.name}>
            <span>
              <span class="mono">{c.name}</span> <span class="muted small">{describe(c)}</span>
            </span>
            <Field session={session} projectId={projectId} column={c} text={texts[c.name] ?? ''} onText={(t) => set(c.name, t)} />
          </label>
        ))}
        <ErrorBox error={error} testId="row-error" />
        <div class="actions">
          {onDelete && (
            <button
              type="button"
              class={confirming ? 'danger push-left' : 'link danger push-left'}
              data-testid="delete-row"
              onClick={() => (confirming ? onDelete().catch(setError) : setConfirming(true))}
            >
              {confirming ? 'Click again to delete this row' : 'Delete row'}
            </button>
          )}
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={busy} data-testid="save-row">
            {creating ? 'Create' : 'Save'}
          </button>
        </div>
      </form>
    </Modal>
  );
}

function describe(c: Column): string {
  const parts: string[] = [c.type];
  if (c.required) parts.push('required');
  if (c.unique) parts.push('unique');
  if (c.references) parts.push(`→ ${c.references.table}`);
  if (c.max_length !== undefined) parts.push(`≤ ${c.max_length} chars`);
  if (c.min !== undefined) parts.push(`min ${c.min}`);
  if (c.max !== undefined) parts.push(`max ${c.max}`);
  if (c.type === 'timestamp') parts.push('UTC');
  return parts.join(' · ');
}

function Field({ session, projectId, column: c, text, onText }: { session: Session; projectId: string; column: Column; text: string; onText: (text: string) => void }) {
  const input = (e: Event) => onText((e.currentTarget as HTMLInputElement).value);
  const name = `field-${c.name}`;
  if (c.type === 'boolean') {
    return (
      <select name={name} value={text} onChange={input}>
        <option value="">null</option>
        <option value="true">true</option>
        <option value="false">false</option>
      </select>
    );
  }
  if (c.type === 'json') return <textarea name={name} class="mono" rows={4} value={text} onInput={input} placeholder='{"any": "JSON"}' />;
  if (c.type === 'timestamp') return <input name={name} type="datetime-local" step={1} value={text} onInput={input} />;
  if (c.type === 'integer' || c.type === 'number') return <input name={name} type="number" step={c.type === 'integer' ? 1 : 'any'} value={text} onInput={input} />;
  if (c.enum && c.enum.length > 0) {
    return (
      <select name={name} value={text} onChange={input}>
        <option value="">{c.required ? 'choose…' : 'null'}</option>
        {c.enum.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    );
  }
  if (c.references) return <ReferencePicker session={session} projectId={projectId} table={c.references.table} name={name} text={text} onText={onText} />;
  if (c.name === 'password') return <input name={name} type="password" autoComplete="new-password" value={text} onInput={input} />;
  return <input name={name} value={text} onInput={input} />;
}

/** A text input with the ids (and a readable column) of the referenced table's first rows to pick from. */
function ReferencePicker({ session, projectId, table, name, text, onText }: { session: Session; projectId: string; table: string; name: string; text: string; onText: (t: string) => void }) {
  const [search, setSearch] = useState('');
  const rows = useLoad(() => api.listRows(session, projectId, table, { limit: 20, offset: 0, sort: '-created_at', ...(search && { filter: `id ~ ${JSON.stringify(search)}` }) }), [projectId, table, search]);
  return (
    <div class="picker">
      <input name={name} class="mono" value={text} placeholder={`id of a ${table} row`} onInput={(e) => onText((e.currentTarget as HTMLInputElement).value)} />
      <details>
        <summary>Pick from {table}</summary>
        <input aria-label={`Search ${table} ids`} placeholder="search id…" value={search} onInput={(e) => setSearch((e.currentTarget as HTMLInputElement).value)} />
        <ul class="picker-list">
          {(rows.data?.data ?? []).map((r) => (
            <li key={r.id}>
              <button type="button" class="link mono" onClick={() => onText(r.id)}>
                {r.id}
              </button>{' '}
              <span class="muted small">{rowLabel(r)}</span>
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}
