/**
 * The dashboard shell: sign-in gate, sidebar (projects, then a project's tables and areas)
 * and the route table. Pages live in pages/, one per area.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { OutboxPage } from './pages/outbox';
import { ProjectsPage } from './pages/projects';
import { RowsPage } from './pages/rows';
import { SettingsPage } from './pages/settings';
import { SignIn } from './pages/sign-in';
import { TableEditorPage } from './pages/table-editor';
import { TablesPage } from './pages/tables';
import { UsersPage } from './pages/users';
import { go, href, useRoute } from './router';
import { clearSession, listenForSessionEnd, loadSession, takeEndedMessage, type Session } from './session';
import { useLoad } from './use-load';

/** The whole app: signs in, then routes. */
export function App() {
  const [session, setSession] = useState<Session | null>(() => loadSession());
  const [notice, setNotice] = useState<string | null>(() => takeEndedMessage());
  const route = useRoute();
  // The server refused the token (expired, signed out elsewhere, key rotated out): back to sign-in, saying why.
  useEffect(
    () =>
      listenForSessionEnd((message) => {
        setNotice(message);
        setSession(null);
      }),
    [],
  );
  if (!session) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(s) => {
          setNotice(null);
          setSession(s);
          go(s.kind === 'platform' ? '#/' : href('p', s.projectId));
        }}
      />
    );
  }
  const signOut = () => {
    // Forgotten here at once, and ended on the server (a copy of the token is then worth nothing) before the
    // sign-in form shows; an already ended token or an unreachable server changes nothing.
    clearSession();
    void api
      .signOut(session)
      .catch(() => undefined)
      .finally(() => {
        setSession(null);
        history.replaceState(null, '', location.pathname);
      });
  };
  return <Shell session={session} route={route} onSignOut={signOut} onSessionChange={setSession} />;
}

function Shell({
  session,
  route,
  onSignOut,
  onSessionChange,
}: {
  session: Session;
  route: string[];
  onSignOut: () => void;
  onSessionChange: (s: Session) => void;
}) {
  const projectId = route[0] === 'p' ? route[1] : session.kind === 'project' ? session.projectId : undefined;
  return (
    <div class="shell">
      <aside class="sidebar">
        <a class="brand" href="#/">
          <span class="logo" aria-hidden="true">
            R
          </span>
          <span>Rowbase</span>
        </a>
        {session.kind === 'platform' && (
          <nav class="nav">
            <a href="#/" class={route.length === 0 ? 'active' : ''} data-testid="nav-projects">
              All projects
            </a>
          </nav>
        )}
        {projectId && <ProjectNav session={session} projectId={projectId} route={route} />}
        <div class="sidebar-foot">
          <div class="muted small" data-testid="signed-in-as">
            {session.kind === 'platform' ? 'Signed in with the platform key' : `Signed in to ${session.projectId}`}
          </div>
          <button type="button" onClick={onSignOut} data-testid="sign-out">
            Sign out
          </button>
        </div>
      </aside>
      <main class="content">
        <Routes session={session} route={route} onSessionChange={onSessionChange} />
      </main>
    </div>
  );
}

function ProjectNav({ session, projectId, route }: { session: Session; projectId: string; route: string[] }) {
  const tables = useLoad(() => api.listTables(session, projectId), [projectId, route.join('/')]);
  const at = (...parts: string[]) =>
    parts.every((part, i) => route[i + 2] === part) && route.length === parts.length + 2 ? 'active' : '';
  return (
    <nav class="nav">
      <div class="nav-title" title={projectId}>
        {projectId}
      </div>
      <a href={href('p', projectId)} class={route.length === 2 ? 'active' : ''} data-testid="nav-tables">
        Tables
      </a>
      {(tables.data ?? []).map((t) => (
        <a
          key={t.name}
          href={href('p', projectId, 'tables', t.name)}
          class={`sub ${route[3] === t.name ? 'active' : ''}`}
        >
          {t.name}
        </a>
      ))}
      <a href={href('p', projectId, 'users')} class={at('users')} data-testid="nav-users">
        Users
      </a>
      <a href={href('p', projectId, 'settings')} class={at('settings')} data-testid="nav-settings">
        Settings and keys
      </a>
      <a href={href('p', projectId, 'outbox')} class={at('outbox')} data-testid="nav-outbox">
        Outbox
      </a>
    </nav>
  );
}

function Routes({
  session,
  route,
  onSessionChange,
}: {
  session: Session;
  route: string[];
  onSessionChange: (s: Session) => void;
}) {
  if (route.length === 0) {
    if (session.kind === 'platform') return <ProjectsPage session={session} />;
    go(href('p', session.projectId));
    return null;
  }
  const [root, projectId, area, name, sub] = route;
  if (root !== 'p' || !projectId) return <NotFound />;
  if (session.kind === 'project' && session.projectId !== projectId) {
    return (
      <p class="error">
        This tab is signed in to project “{session.projectId}” only. Sign out and sign in with the platform key to open
        other projects.
      </p>
    );
  }
  if (area === undefined) return <TablesPage session={session} projectId={projectId} />;
  if (area === 'tables' && name === 'new') return <TableEditorPage session={session} projectId={projectId} />;
  if (area === 'tables' && name && sub === 'schema')
    return <TableEditorPage session={session} projectId={projectId} tableName={name} />;
  if (area === 'tables' && name)
    return <RowsPage key={`${projectId}/${name}`} session={session} projectId={projectId} tableName={name} />;
  if (area === 'users') return <UsersPage session={session} projectId={projectId} />;
  if (area === 'settings')
    return <SettingsPage session={session} projectId={projectId} onSessionChange={onSessionChange} />;
  if (area === 'outbox') return <OutboxPage session={session} projectId={projectId} />;
  return <NotFound />;
}

function NotFound() {
  return (
    <p class="muted">
      Nothing here. <a href="#/">Back to the start</a>.
    </p>
  );
}
