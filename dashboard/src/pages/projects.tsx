/** All projects (platform key): list, create (keys shown once), delete (typed confirmation). */
import { useState } from 'preact/hooks';
import { api, type CreatedProject } from '../api';
import { DateTime } from '../components/date-time';
import { ErrorBox, Modal, PageHead, SecretField, ShownOnce, TypedConfirm } from '../components/ui';
import { href } from '../router';
import type { Session } from '../session';
import { useLoad } from '../use-load';

/** The projects list with its create and delete dialogs. */
export function ProjectsPage({ session }: { session: Session }) {
  const projects = useLoad(() => api.listProjects(session), []);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedProject | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const [deleteError, setDeleteError] = useState<unknown>(null);

  const remove = async () => {
    if (!deleting) return;
    try {
      await api.deleteProject(session, deleting);
      setDeleting(null);
      projects.reload();
    } catch (e) {
      setDeleteError(e);
    }
  };

  return (
    <section>
      <PageHead title="Projects" sub={projects.data ? `${projects.data.meta.total} on this server` : undefined}>
        <button type="button" class="primary" onClick={() => setCreating(true)} data-testid="new-project">
          New project
        </button>
      </PageHead>
      <ErrorBox error={projects.error} />
      <table class="grid" data-testid="projects">
        <thead>
          <tr>
            <th>Id</th>
            <th>Name</th>
            <th>Created</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(projects.data?.data ?? []).map((p) => (
            <tr key={p.id}>
              <td>
                <a href={href('p', p.id)} class="mono">
                  {p.id}
                </a>
              </td>
              <td>{p.name}</td>
              <td class="muted">
                <DateTime value={p.created_at} />
              </td>
              <td class="right">
                <button
                  type="button"
                  class="link danger"
                  onClick={() => {
                    setDeleteError(null);
                    setDeleting(p.id);
                  }}
                  data-testid={`delete-project-${p.id}`}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
          {projects.data && projects.data.data.length === 0 && (
            <tr>
              <td colSpan={4} class="empty">
                No projects yet. Create one to get its keys.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      {creating && (
        <CreateProject
          session={session}
          onClose={() => setCreating(false)}
          onCreated={(p) => {
            setCreating(false);
            setCreated(p);
            projects.reload();
          }}
        />
      )}
      {created && (
        <Modal title={`Project “${created.name}” created`} onClose={() => setCreated(null)}>
          <ShownOnce />
          <SecretField
            label="Admin key (sk_): full access, for servers and scripts only"
            value={created.admin_key}
            testId="created-admin-key"
          />
          <SecretField
            label="Publishable key (pk_): for apps; the table rules decide what it may do"
            value={created.publishable_key}
            testId="created-publishable-key"
          />
          <div class="actions">
            <a
              class="button primary"
              href={href('p', created.id)}
              onClick={() => setCreated(null)}
              data-testid="open-created"
            >
              I saved them: open the project
            </a>
          </div>
        </Modal>
      )}
      {deleting && (
        <TypedConfirm
          word={deleting}
          action="Delete project"
          onConfirm={remove}
          onCancel={() => setDeleting(null)}
          error={deleteError}
        />
      )}
    </section>
  );
}

function CreateProject({
  session,
  onClose,
  onCreated,
}: {
  session: Session;
  onClose: () => void;
  onCreated: (p: CreatedProject) => void;
}) {
  const [name, setName] = useState('');
  const [id, setId] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      onCreated(await api.createProject(session, { name, ...(id.trim() && { id: id.trim() }) }));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal title="New project" onClose={onClose}>
      <form onSubmit={submit} class="form">
        <label>
          Name
          <input
            name="name"
            required
            value={name}
            onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)}
            placeholder="e.g. My app"
          />
        </label>
        <label>
          Id <span class="muted">(optional: 3 to 40 of a-z, 0-9 and -; generated when empty)</span>
          <input
            name="id"
            value={id}
            onInput={(e) => setId((e.currentTarget as HTMLInputElement).value)}
            placeholder="e.g. my-app"
            class="mono"
          />
        </label>
        <ErrorBox error={error} />
        <div class="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={busy} data-testid="create-project">
            Create
          </button>
        </div>
      </form>
    </Modal>
  );
}
