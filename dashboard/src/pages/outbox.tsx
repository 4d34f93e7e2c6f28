/**
 * The project's outbox (mail kept when no SMTP server is set): recipient, subject, time, and
 * the text and HTML source shown as text (never rendered as HTML).
 */
import { useState } from 'preact/hooks';
import { api, type Email } from '../api';
import { DateTime } from '../components/date-time';
import { ErrorBox, PageHead } from '../components/ui';
import type { Session } from '../session';
import { useLoad } from '../use-load';

/** The outbox page. */
export function OutboxPage({ session, projectId }: { session: Session; projectId: string }) {
  const emails = useLoad(() => api.listEmails(session, projectId), [projectId]);
  const [open, setOpen] = useState<Email | null>(null);
  return (
    <section>
      <PageHead title="Outbox" sub="Mail kept here while the server runs without SMTP_URL (development mode)." />
      <ErrorBox error={emails.error} />
      <table class="grid" data-testid="outbox">
        <thead>
          <tr>
            <th>To</th>
            <th>Subject</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {(emails.data?.data ?? []).map((m) => (
            <tr key={m.id} class="clickable" onClick={() => setOpen(m)}>
              <td>{m.to}</td>
              <td>{m.subject}</td>
              <td class="muted">
                <DateTime value={m.created_at} />
              </td>
            </tr>
          ))}
          {emails.data && emails.data.data.length === 0 && (
            <tr>
              <td colSpan={3} class="empty">
                No mail yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      {open && (
        <div class="card mail" data-testid="mail">
          <h3>{open.subject}</h3>
          <p class="muted small">
            To {open.to} · <DateTime value={open.created_at} />
          </p>
          <pre>{open.text}</pre>
          <details>
            <summary>HTML source</summary>
            <pre>{open.html}</pre>
          </details>
        </div>
      )}
    </section>
  );
}
