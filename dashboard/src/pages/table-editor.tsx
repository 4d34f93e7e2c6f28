/**
 * Create or change a table: columns with every type and option, references, indexes, the five
 * rules, auth_table and verify_email. Creating is create-only (If-None-Match: *): a name that
 * exists is refused, never replaced. Changing sends the version the editor loaded (If-Match):
 * a table someone else changed since is refused and the admin is offered a reload. A
 * destructive change shows the server's 409 at the top and asks before resending with
 * allow_destructive=true. Deleting a table asks for its name.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, RowbaseError, COLUMN_TYPES, RULE_OPERATIONS, type ColumnType, type OnDelete } from '../api';
import { ErrorBox, PageHead, TypedConfirm } from '../components/ui';
import { go, href } from '../router';
import type { Session } from '../session';
import { useLoad } from '../use-load';
import { blankColumn, definitionOf, draftOf, emptyDraft, type Draft, type DraftColumn } from './table-draft';
import { ConflictNotice, DestructiveNotice, type Conflict } from './table-notices';

const RULE_HELP: Record<string, string> = {
  list: 'Who may list rows; ANDed with the caller’s filter.',
  view: 'Who may read one row.',
  create:
    'Who may create; may name @request.body.<field>, and ' +
    '!@request.body.<field>:isset to forbid sending a field at all.',
  update:
    'Who may change a row; may name @request.body.<field>, and ' +
    '!@request.body.<field>:isset to protect a column (null counts as sent).',
  delete: 'Who may delete a row.',
};

/** The schema editor of one table (or a new one when `tableName` is absent). */
export function TableEditorPage({
  session,
  projectId,
  tableName,
}: {
  session: Session;
  projectId: string;
  tableName?: string;
}) {
  const tables = useLoad(() => api.listTables(session, projectId), [projectId]);
  const [draft, setDraft] = useState<Draft | null>(tableName ? null : emptyDraft());
  const [error, setError] = useState<unknown>(null);
  const [destructive, setDestructive] = useState<RowbaseError | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [saved, setSaved] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [busy, setBusy] = useState(false);
  // The version of the table the draft started from: sent as If-Match so no save overwrites another admin's change.
  const [etag, setEtag] = useState<string | null>(null);
  const page = useRef<HTMLElement>(null);

  /** Loads the table and its version into the form; resolves true once they are shown. */
  const load = async (): Promise<boolean> => {
    if (!tableName) return false;
    try {
      const { table, etag: version } = await api.readTable(session, projectId, tableName);
      setDraft(draftOf(table));
      setEtag(version);
      return true;
    } catch (e) {
      setError(e);
      return false;
    }
  };
  useEffect(() => {
    void load();
  }, [projectId, tableName]);

  // A refusal is shown under the title, above the form: bring the top of the page into view,
  // since the save button that caused it is at the bottom of a long page.
  useEffect(() => {
    if (error || destructive || conflict) page.current?.scrollIntoView({ block: 'start' });
  }, [error, destructive, conflict]);

  if (!draft) {
    return (
      <section>
        <PageHead title={tableName ?? 'New table'} />
        <ErrorBox error={error} />
      </section>
    );
  }

  const update = (patch: Partial<Draft>) => {
    setSaved(false);
    setDraft({ ...draft, ...patch });
  };
  const updateColumn = (key: number, patch: Partial<DraftColumn>) =>
    update({ columns: draft.columns.map((c) => (c.key === key ? { ...c, ...patch } : c)) });

  const save = async (allowDestructive: boolean) => {
    setError(null);
    setConflict(null);
    setBusy(true);
    const name = (tableName ?? draft.name).trim();
    try {
      const write = tableName
        ? { ifMatch: etag ?? undefined, allowDestructive }
        : { createOnly: true, allowDestructive };
      const { table, etag: version } = await api.putTable(session, projectId, name, definitionOf(draft), write);
      setDestructive(null);
      if (!tableName) {
        go(href('p', projectId, 'tables', table.name));
        return;
      }
      setDraft(draftOf(table));
      setEtag(version);
      setSaved(true);
    } catch (e) {
      setDestructive(null);
      if (e instanceof RowbaseError && e.code === 'SCHEMA_CHANGE_DESTRUCTIVE') setDestructive(e);
      else if (e instanceof RowbaseError && e.code === 'TABLE_EXISTS') setConflict({ kind: 'exists', name });
      else if (e instanceof RowbaseError && e.code === 'SCHEMA_CHANGED') setConflict({ kind: 'changed', name });
      else setError(e);
    } finally {
      setBusy(false);
    }
  };

  // The notice stays until the current version is in the form, so the admin never edits the old one unawares.
  const reload = async () => {
    setSaved(false);
    if (await load()) setConflict(null);
  };

  const remove = async () => {
    try {
      await api.deleteTable(session, projectId, tableName!);
      go(href('p', projectId));
    } catch (e) {
      setDeleting(false);
      setError(e);
    }
  };

  const others = (tables.data ?? []).map((t) => t.name);
  return (
    <section ref={page}>
      <PageHead title={tableName ? `Schema of ${tableName}` : 'New table'} sub={`Project ${projectId}`}>
        {tableName && (
          <>
            <a class="button" href={href('p', projectId, 'tables', tableName)}>
              Rows
            </a>
            <button type="button" class="danger" onClick={() => setDeleting(true)} data-testid="delete-table">
              Delete table
            </button>
          </>
        )}
      </PageHead>
      <div>
        <ErrorBox error={error} testId="schema-error" />
        {conflict && <ConflictNotice conflict={conflict} projectId={projectId} onReload={reload} />}
        {destructive && (
          <DestructiveNotice
            error={destructive}
            busy={busy}
            onCancel={() => setDestructive(null)}
            onApply={() => save(true)}
          />
        )}
      </div>
      <form
        class="form editor"
        onSubmit={(e) => {
          e.preventDefault();
          void save(false);
        }}
      >
        <div class="card">
          {!tableName && (
            <label>
              Table name
              <input
                name="table-name"
                class="mono"
                required
                value={draft.name}
                placeholder="e.g. tasks"
                onInput={(e) => update({ name: (e.currentTarget as HTMLInputElement).value })}
              />
            </label>
          )}
          <div class="checks">
            <label class="check">
              <input
                type="checkbox"
                name="auth_table"
                checked={draft.auth_table}
                onChange={(e) => update({ auth_table: (e.currentTarget as HTMLInputElement).checked })}
              />
              Auth table{' '}
              <span class="muted">(adds email, password, email_verified; sign-up and login under /auth/)</span>
            </label>
            <label class="check">
              <input
                type="checkbox"
                name="verify_email"
                checked={draft.verify_email}
                onChange={(e) => update({ verify_email: (e.currentTarget as HTMLInputElement).checked })}
              />
              Verify email <span class="muted">(send a verification mail at sign-up)</span>
            </label>
          </div>
        </div>

        <h2>Columns</h2>
        <p class="muted small">
          Every table also has <code>id</code>, <code>created_at</code> and <code>updated_at</code>
          {draft.auth_table && (
            <>
              , and as an auth table <code>email</code>, <code>password</code> and <code>email_verified</code>
            </>
          )}
          .
        </p>
        <div class="columns-editor">
          {draft.columns.map((c, i) => (
            <ColumnEditor
              key={c.key}
              column={c}
              index={i}
              tables={others}
              onChange={(patch) => updateColumn(c.key, patch)}
              onRemove={() => update({ columns: draft.columns.filter((x) => x.key !== c.key) })}
            />
          ))}
          <button
            type="button"
            onClick={() => update({ columns: [...draft.columns, blankColumn()] })}
            data-testid="add-column"
          >
            + Add column
          </button>
        </div>

        <h2>Indexes</h2>
        <label>
          One index per line, columns separated by commas
          <textarea
            name="indexes"
            class="mono"
            rows={2}
            value={draft.indexesText}
            placeholder="e.g. owner, due"
            onInput={(e) => update({ indexesText: (e.currentTarget as HTMLTextAreaElement).value })}
          />
        </label>

        <h2>Full-text search</h2>
        <label>
          Text columns the rows page can search, separated by commas
          <input
            name="search"
            class="mono"
            value={draft.searchText}
            placeholder="e.g. title, body"
            onInput={(e) => update({ searchText: (e.currentTarget as HTMLInputElement).value })}
          />
        </label>

        <h2>Rules</h2>
        <p class="muted small">
          “Admin only” is <code>null</code>. An empty expression lets anyone with a key or token in. Otherwise write a
          filter, e.g. <code>owner = @request.auth.id</code>.
        </p>
        <div class="rules">
          {RULE_OPERATIONS.map((op) => (
            <div class="rule" key={op}>
              <div class="rule-head">
                <strong>{op}</strong>
                <span class="muted small">{RULE_HELP[op]}</span>
              </div>
              <label class="check">
                <input
                  type="checkbox"
                  name={`rule-${op}-locked`}
                  checked={draft.rules[op].locked}
                  onChange={(e) =>
                    update({
                      rules: {
                        ...draft.rules,
                        [op]: { ...draft.rules[op], locked: (e.currentTarget as HTMLInputElement).checked },
                      },
                    })
                  }
                />
                Admin only
              </label>
              <input
                name={`rule-${op}`}
                class="mono"
                disabled={draft.rules[op].locked}
                value={draft.rules[op].expression}
                placeholder={draft.rules[op].locked ? 'null (admin only)' : '"" (anyone) or an expression'}
                onInput={(e) =>
                  update({
                    rules: {
                      ...draft.rules,
                      [op]: { ...draft.rules[op], expression: (e.currentTarget as HTMLInputElement).value },
                    },
                  })
                }
              />
            </div>
          ))}
        </div>

        {saved && (
          <p class="ok" data-testid="saved">
            Saved.
          </p>
        )}
        <div class="actions sticky">
          <button type="submit" class="primary" disabled={busy} data-testid="save-table">
            {tableName ? 'Save changes' : 'Create table'}
          </button>
        </div>
      </form>
      {deleting && tableName && (
        <TypedConfirm word={tableName} action="Delete table" onConfirm={remove} onCancel={() => setDeleting(false)} />
      )}
    </section>
  );
}

function ColumnEditor({
  column: c,
  index,
  tables,
  onChange,
  onRemove,
}: {
  column: DraftColumn;
  index: number;
  tables: string[];
  onChange: (patch: Partial<DraftColumn>) => void;
  onRemove: () => void;
}) {
  const field = (name: keyof DraftColumn) => (e: Event) =>
    onChange({ [name]: (e.currentTarget as HTMLInputElement).value } as Partial<DraftColumn>);
  const check = (name: keyof DraftColumn) => (e: Event) =>
    onChange({ [name]: (e.currentTarget as HTMLInputElement).checked } as Partial<DraftColumn>);
  return (
    <div class="column-editor" data-testid={`column-${index}`}>
      <div class="column-main">
        <input
          name="column-name"
          class="mono"
          aria-label="Column name"
          placeholder="e.g. title"
          value={c.name}
          onInput={field('name')}
        />
        <select
          name="column-type"
          aria-label="Column type"
          value={c.type}
          onChange={(e) => onChange({ type: (e.currentTarget as HTMLSelectElement).value as ColumnType })}
        >
          {COLUMN_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        <label class="check">
          <input type="checkbox" name="column-required" checked={c.required} onChange={check('required')} /> required
        </label>
        {c.type !== 'boolean' && c.type !== 'json' && (
          <label class="check">
            <input type="checkbox" name="column-unique" checked={c.unique} onChange={check('unique')} /> unique
          </label>
        )}
        <input
          name="column-default"
          class="mono grow"
          aria-label="Default"
          placeholder={
            c.type === 'json'
              ? 'no default (or JSON)'
              : c.type === 'boolean'
                ? 'no default (or true/false)'
                : 'no default'
          }
          value={c.defaultText}
          onInput={field('defaultText')}
        />
        <button type="button" class="icon" aria-label={`Remove column ${c.name}`} onClick={onRemove}>
          ×
        </button>
      </div>
      {c.type === 'text' && (
        <div class="column-options">
          <label class="mini">
            max length
            <input
              name="column-max-length"
              aria-label="Max length"
              placeholder="no limit"
              value={c.maxLength}
              onInput={field('maxLength')}
            />
          </label>
          <label class="mini grow">
            allowed values
            <input
              name="column-enum"
              class="grow"
              aria-label="Allowed values"
              placeholder="no list: any value (e.g. a, b, c)"
              value={c.enumText}
              onInput={field('enumText')}
            />
          </label>
          <select
            name="column-references"
            aria-label="References"
            value={c.refTable}
            onChange={(e) => onChange({ refTable: (e.currentTarget as HTMLSelectElement).value })}
          >
            <option value="">no reference</option>
            {tables.map((t) => (
              <option key={t} value={t}>
                references {t}
              </option>
            ))}
          </select>
          {c.refTable && (
            <select
              name="column-on-delete"
              aria-label="On delete"
              value={c.onDelete}
              onChange={(e) => onChange({ onDelete: (e.currentTarget as HTMLSelectElement).value as OnDelete })}
            >
              <option value="restrict">on delete: restrict</option>
              <option value="cascade">on delete: cascade</option>
              <option value="set_null">on delete: set null</option>
            </select>
          )}
        </div>
      )}
      {(c.type === 'integer' || c.type === 'number') && (
        <div class="column-options">
          <label class="mini">
            min
            <input
              name="column-min"
              aria-label="Minimum"
              placeholder="no minimum"
              value={c.min}
              onInput={field('min')}
            />
          </label>
          <label class="mini">
            max
            <input
              name="column-max"
              aria-label="Maximum"
              placeholder="no maximum"
              value={c.max}
              onInput={field('max')}
            />
          </label>
        </div>
      )}
    </div>
  );
}
