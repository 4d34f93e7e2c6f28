/** A project's tables: name, columns, auth badge, rules at a glance; links to rows and schema. */
import { api, RULE_OPERATIONS, type Table } from '../api';
import { ErrorBox, PageHead } from '../components/ui';
import { href } from '../router';
import type { Session } from '../session';
import { useLoad } from '../use-load';

/** Describes a rule for people: locked, anyone, or the expression. */
export function ruleLabel(rule: string | null | undefined): string {
  if (rule === null || rule === undefined) return 'admin only';
  if (rule === '') return 'anyone';
  return rule;
}

/** The tables list of one project. */
export function TablesPage({ session, projectId }: { session: Session; projectId: string }) {
  const tables = useLoad(() => api.listTables(session, projectId), [projectId]);
  return (
    <section>
      <PageHead title="Tables" sub={`Project ${projectId}`}>
        <a class="button primary" href={href('p', projectId, 'tables', 'new')} data-testid="new-table">
          New table
        </a>
      </PageHead>
      <ErrorBox error={tables.error} />
      <table class="grid" data-testid="tables">
        <thead>
          <tr>
            <th>Table</th>
            <th>Columns</th>
            {RULE_OPERATIONS.map((op) => (
              <th key={op}>{op}</th>
            ))}
            <th />
          </tr>
        </thead>
        <tbody>
          {(tables.data ?? []).map((t: Table) => (
            <tr key={t.name}>
              <td>
                <a href={href('p', projectId, 'tables', t.name)} class="mono">
                  {t.name}
                </a>
                {t.auth_table && <span class="badge">auth</span>}
              </td>
              <td class="muted">{t.columns.map((c) => c.name).join(', ') || '—'}</td>
              {RULE_OPERATIONS.map((op) => (
                <td key={op} class={t.rules[op] === null ? 'muted small' : 'small mono'}>
                  {ruleLabel(t.rules[op])}
                </td>
              ))}
              <td class="right nowrap">
                <a href={href('p', projectId, 'tables', t.name)}>Rows</a>
                {' · '}
                <a href={href('p', projectId, 'tables', t.name, 'schema')} data-testid={`schema-${t.name}`}>
                  Schema
                </a>
              </td>
            </tr>
          ))}
          {tables.data && tables.data.length === 0 && (
            <tr>
              <td colSpan={8} class="empty">
                No tables yet. Create one, or mark one as the auth table to get sign-up and login.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  );
}
