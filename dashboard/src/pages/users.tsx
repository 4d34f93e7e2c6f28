/**
 * Users of the project's auth table: list, search by email, create one (email, password and the
 * custom columns, through the data API with the admin key), set email_verified, send a
 * password-reset mail, view and end a user's sessions (GET/DELETE /v1/users/{id}/sessions), delete.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, type Row, type Table } from '../api';
import { DateTime } from '../components/date-time';
import { ErrorBox, Modal, PageHead } from '../components/ui';
import { PasswordReset } from './password-reset';
import { RowForm } from './row-form';
import { UserSessions } from './user-sessions';
import { href } from '../router';
import type { Session } from '../session';
import { useLoad } from '../use-load';

const PAGE_SIZE = 50;

/** The users page. */
export function UsersPage({ session, projectId }: { session: Session; projectId: string }) {
  const tables = useLoad(() => api.listTables(session, projectId), [projectId]);
  const authTable = tables.data?.find((t) => t.auth_table);
  if (tables.error) return <ErrorBox error={tables.error} />;
  if (!tables.data) return null;
  if (!authTable) {
    return (
      <section>
        <PageHead title="Users" />
        <p class="muted">
          This project has no auth table. <a href={href('p', projectId, 'tables', 'new')}>Create a table</a> and tick
          “Auth table” to get sign-up and login.
        </p>
      </section>
    );
  }
  return <UserList session={session} projectId={projectId} definition={authTable} />;
}

function UserList({ session, projectId, definition }: { session: Session; projectId: string; definition: Table }) {
  const table = definition.name;
  const [searchText, setSearchText] = useState('');
  const [search, setSearch] = useState('');
  const [offset, setOffset] = useState(0);
  const users = useLoad(
    () =>
      api.listRows(session, projectId, table, {
        limit: PAGE_SIZE,
        offset,
        sort: '-created_at',
        ...(search && { filter: `email ~ ${JSON.stringify(search)}` }),
      }),
    [projectId, table, search, offset],
  );
  const [error, setError] = useState<unknown>(null);
  const [deleting, setDeleting] = useState<Row | null>(null);
  const [sessionsOf, setSessionsOf] = useState<Row | null>(null);
  const [resetOf, setResetOf] = useState<Row | null>(null);
  const [creating, setCreating] = useState(false);

  // email_verified as the person last set it, by user id: the pending value while the PATCH is
  // out (the checkbox disabled), then the server's answer until the list reloaded after it comes
  // in. Without it the controlled checkbox re-rendered from the stale list and flipped back.
  const [verifiedOverride, setVerifiedOverride] = useState<Record<string, { value: boolean; pending: boolean }>>({});
  // The list loaded after an answer is authoritative (useLoad drops answers to earlier loads).
  useEffect(
    () =>
      setVerifiedOverride((o) =>
        Object.values(o).some((v) => !v.pending)
          ? Object.fromEntries(Object.entries(o).filter(([, v]) => v.pending))
          : o,
      ),
    [users.data],
  );

  const setVerified = async (user: Row, verified: boolean) => {
    setError(null);
    setVerifiedOverride((o) => ({ ...o, [user.id]: { value: verified, pending: true } }));
    try {
      const saved = await api.updateRow(session, projectId, table, user.id, { email_verified: verified });
      setVerifiedOverride((o) => ({ ...o, [user.id]: { value: saved.email_verified === true, pending: false } }));
      users.reload();
    } catch (e) {
      // Back to the stored value, with the server's message above the list.
      setVerifiedOverride((o) => {
        const { [user.id]: _dropped, ...rest } = o;
        return rest;
      });
      setError(e);
    }
  };
  const remove = async () => {
    setError(null);
    try {
      await api.deleteRow(session, projectId, table, deleting!.id);
      setDeleting(null);
      users.reload();
    } catch (e) {
      setError(e);
      setDeleting(null);
    }
  };
  const total = users.data?.meta.total ?? 0;
  return (
    <section>
      <PageHead title="Users" sub={`Auth table ${table} · ${total} user${total === 1 ? '' : 's'}`}>
        <a class="button" href={href('p', projectId, 'tables', table)}>
          All columns
        </a>
        <button type="button" class="primary" onClick={() => setCreating(true)} data-testid="new-user">
          New user
        </button>
      </PageHead>
      <form
        class="filter-bar"
        onSubmit={(e) => {
          e.preventDefault();
          setOffset(0);
          setSearch(searchText.trim());
        }}
      >
        <input
          name="email-search"
          class="grow"
          aria-label="Search by email"
          placeholder="search by email, e.g. @example.com"
          value={searchText}
          onInput={(e) => setSearchText((e.currentTarget as HTMLInputElement).value)}
        />
        <button type="submit" data-testid="search-users">
          Search
        </button>
      </form>
      <ErrorBox error={users.error ?? error} />
      <table class="grid" data-testid="users" data-loading={users.loading ? 'true' : 'false'}>
        <thead>
          <tr>
            <th>Email</th>
            <th>Verified</th>
            <th>Created</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(users.data?.data ?? []).map((u) => {
            const override = verifiedOverride[u.id];
            const verified = override ? override.value : u.email_verified === true;
            return (
              <tr key={u.id} data-user={String(u.email)}>
                <td>{String(u.email)}</td>
                <td>
                  <label class="check">
                    <input
                      type="checkbox"
                      aria-label={`Email verified for ${String(u.email)}`}
                      checked={verified}
                      disabled={override?.pending === true}
                      aria-busy={override?.pending === true ? 'true' : undefined}
                      onChange={(e) => setVerified(u, (e.currentTarget as HTMLInputElement).checked)}
                    />
                    {override?.pending ? 'saving…' : verified ? 'verified' : 'not verified'}
                  </label>
                </td>
                <td class="muted">
                  <DateTime value={u.created_at} />
                </td>
                <td class="right nowrap">
                  <button type="button" class="link" onClick={() => setResetOf(u)}>
                    Send password reset
                  </button>
                  {' · '}
                  <button type="button" class="link" onClick={() => setSessionsOf(u)}>
                    Sessions
                  </button>
                  {' · '}
                  <button type="button" class="link danger" onClick={() => setDeleting(u)}>
                    Delete
                  </button>
                </td>
              </tr>
            );
          })}
          {users.data && users.data.data.length === 0 && (
            <tr>
              <td colSpan={4} class="empty">
                {search ? 'No user matches.' : 'No users yet.'}
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <div class="pager">
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
          Previous
        </button>
        <button type="button" disabled={offset + PAGE_SIZE >= total} onClick={() => setOffset(offset + PAGE_SIZE)}>
          Next
        </button>
      </div>
      {creating && (
        <RowForm
          session={session}
          projectId={projectId}
          table={definition}
          title="New user"
          onClose={() => setCreating(false)}
          onSaved={() => {
            setCreating(false);
            users.reload();
          }}
        />
      )}
      {resetOf && (
        <PasswordReset session={session} projectId={projectId} user={resetOf} onClose={() => setResetOf(null)} />
      )}
      {sessionsOf && (
        <UserSessions session={session} projectId={projectId} user={sessionsOf} onClose={() => setSessionsOf(null)} />
      )}
      {deleting && (
        <Modal title={`Delete ${String(deleting.email)}?`} onClose={() => setDeleting(null)}>
          <p>The user and their sessions are deleted for good.</p>
          <div class="actions">
            <button type="button" onClick={() => setDeleting(null)}>
              Cancel
            </button>
            <button type="button" class="danger" onClick={remove} data-testid="confirm-delete-user">
              Delete user
            </button>
          </div>
        </Modal>
      )}
    </section>
  );
}
