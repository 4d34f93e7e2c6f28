/**
 * Create or edit a row in a form generated from the column types: enum select, number
 * inputs, a true/false/null select, a UTC timestamp picker, a JSON editor and a reference
 * picker (the referenced table's rows, labelled as in the grid). A field that cannot be read
 * (bad JSON, not a number) is named at the field and nothing is sent. On edit only the fields
 * whose value changed are sent; with none, nothing is sent and the form says so.
 */
import { useState } from 'preact/hooks';
import { api, type Column, type Row, type Table } from '../api';
import { DateTime } from '../components/date-time';
import { ErrorBox, Modal } from '../components/ui';
import type { Session } from '../session';
import { useLoad } from '../use-load';
import { ReferenceLabel, referenceTitle } from './reference-label';
import { changedFields, FieldError, fieldText } from './row-values';

/** The columns a form edits: the declared ones, plus email/password/email_verified of an auth table. */
function formColumns(table: Table, creating: boolean): Column[] {
  if (!table.auth_table) return table.columns;
  const auth: Column[] = [{ name: 'email', type: 'text', required: true }];
  if (creating) auth.push({ name: 'password', type: 'text', required: true });
  auth.push({ name: 'email_verified', type: 'boolean' });
  return [...auth, ...table.columns];
}

/** The row dialog; `row` absent means create. Calls `onSaved` after a successful write. */
export function RowForm({
  session,
  projectId,
  table,
  row,
  title,
  onClose,
  onSaved,
  onDelete,
}: {
  session: Session;
  projectId: string;
  table: Table;
  row?: Row;
  title?: string;
  onClose: () => void;
  onSaved: () => void;
  onDelete?: () => Promise<void>;
}) {
  const [confirming, setConfirming] = useState(false);
  const creating = row === undefined;
  const columns = formColumns(table, creating);
  const [initial] = useState<Record<string, string>>(() =>
    Object.fromEntries(columns.map((c) => [c.name, row ? fieldText(c.type, row[c.name]) : ''])),
  );
  const [texts, setTexts] = useState<Record<string, string>>(initial);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [unchanged, setUnchanged] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const set = (name: string, text: string) => {
    setTexts({ ...texts, [name]: text });
    setUnchanged(false);
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setUnchanged(false);
    let body: Record<string, unknown>;
    try {
      // Create: empty fields are left out, so the server applies defaults. Edit: only what changed.
      body = changedFields(columns, creating ? undefined : initial, texts);
      setFieldErrors({});
    } catch (e) {
      if (e instanceof FieldError) setFieldErrors(e.byField);
      else setError(e);
      return;
    }
    if (!creating && Object.keys(body).length === 0) {
      // A PATCH of nothing would still bump updated_at and wake every realtime subscriber.
      setUnchanged(true);
      return;
    }
    try {
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
    <Modal title={title ?? (creating ? `New row in ${table.name}` : `Row ${row.id}`)} onClose={onClose} wide>
      <form class="form row-form" onSubmit={submit} data-testid="row-form">
        {!creating && (
          <p class="muted small mono">
            id {row.id} · created <DateTime value={row.created_at} /> · updated <DateTime value={row.updated_at} />
          </p>
        )}
        {columns.map((c) => (
          // biome-ignore lint/a11y/noLabelWithoutControl: the control is inside <Field>, which Biome cannot see into
          <label key={c.name}>
            <span>
              <span class="mono">{c.name}</span> <span class="muted small">{describe(c)}</span>
            </span>
            <Field
              session={session}
              projectId={projectId}
              column={c}
              text={texts[c.name] ?? ''}
              onText={(t) => set(c.name, t)}
            />
            {fieldErrors[c.name] && (
              <span class="field-error" role="alert" data-testid={`field-error-${c.name}`}>
                {fieldErrors[c.name]}
              </span>
            )}
          </label>
        ))}
        <ErrorBox error={error} testId="row-error" />
        <div class="actions">
          {unchanged && (
            <span class="muted" role="status">
              No changes
            </span>
          )}
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

function Field({
  session,
  projectId,
  column: c,
  text,
  onText,
}: {
  session: Session;
  projectId: string;
  column: Column;
  text: string;
  onText: (text: string) => void;
}) {
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
  if (c.type === 'json')
    return (
      <textarea name={name} class="mono" rows={4} value={text} onInput={input} placeholder='e.g. {"tags": ["desk"]}' />
    );
  if (c.type === 'timestamp') return <input name={name} type="datetime-local" step={1} value={text} onInput={input} />;
  if (c.type === 'integer' || c.type === 'number')
    return <input name={name} type="number" step={c.type === 'integer' ? 1 : 'any'} value={text} onInput={input} />;
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
  if (c.references)
    return (
      <ReferencePicker
        session={session}
        projectId={projectId}
        table={c.references.table}
        name={name}
        text={text}
        onText={onText}
      />
    );
  if (c.name === 'password')
    return <input name={name} type="password" autoComplete="new-password" value={text} onInput={input} />;
  return <input name={name} value={text} onInput={input} />;
}

/** A text input for the id, with the referenced table's latest rows to pick from, labelled as in the grid. */
function ReferencePicker({
  session,
  projectId,
  table,
  name,
  text,
  onText,
}: {
  session: Session;
  projectId: string;
  table: string;
  name: string;
  text: string;
  onText: (t: string) => void;
}) {
  const [search, setSearch] = useState('');
  const rows = useLoad(
    () =>
      api.listRows(session, projectId, table, {
        limit: 20,
        offset: 0,
        sort: '-created_at',
        ...(search && { filter: `id ~ ${JSON.stringify(search)}` }),
      }),
    [projectId, table, search],
  );
  return (
    <div class="picker">
      <input
        name={name}
        class="mono"
        value={text}
        onInput={(e) => onText((e.currentTarget as HTMLInputElement).value)}
      />
      <details>
        <summary>Pick from {table}</summary>
        <input
          aria-label={`Search ${table} ids`}
          placeholder="search by id"
          value={search}
          onInput={(e) => setSearch((e.currentTarget as HTMLInputElement).value)}
        />
        <ul class="picker-list">
          {(rows.data?.data ?? []).map((r) => (
            <li key={r.id}>
              <button type="button" class="link" title={referenceTitle(table, r.id)} onClick={() => onText(r.id)}>
                <ReferenceLabel id={r.id} row={r} />
              </button>
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}
