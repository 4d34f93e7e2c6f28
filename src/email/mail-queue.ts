/**
 * The mail queue: every mail the server sends (verification, password reset) is first
 * written to the system database's `mail_queue` table and only then delivered, so an HTTP
 * request never waits for a mail server and a restart loses no mail. With SMTP configured
 * the worker (`mail-worker.ts`) sends queued rows; without it they stay as the project's
 * outbox, readable through GET /p/{id}/v1/emails.
 *
 * A mail that must not reveal whether its recipient exists (the password reset) is queued
 * as a *request* instead: one row holding what was asked, written the same way for every
 * email before the HTTP answer, which the request worker (`mail-request-worker.ts`) later
 * turns into a mail or deletes.
 */
import { isoNow, systemClock, type Clock } from '../lib/clock.js';
import { newRowId } from '../lib/ids.js';
import { col, MAIL_QUEUE } from '../store/system-tables.js';
import { sql } from '../query/sql-tree.js';
import type { Database } from '../store/types.js';

/** A mail to send on behalf of a project. Bodies are already rendered. */
export interface OutgoingMail {
  readonly projectId: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** The From header; defaults to EMAIL_FROM. The auth module passes the project's `email_from`. */
  readonly from?: string;
}

/** A queued or sent mail as the outbox listing shows it. */
export interface MailView {
  readonly id: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly created_at: string;
  /** `outbox` (no SMTP configured), `pending` (waiting for the worker), `sent` or `failed`. */
  readonly status: string;
}

/**
 * A mail asked for but not yet known to exist (forgot-password): the request worker hands it
 * to the resolver that owns `kind`, which returns the mail to send or nothing.
 */
export interface MailRequestInput {
  readonly projectId: string;
  /** Names the resolver, e.g. `reset-password`. */
  readonly kind: string;
  /** The address asked about, which may belong to nobody. */
  readonly email: string;
  /** What the resolver needs (JSON-serialisable), e.g. the redirect URL. */
  readonly payload: Readonly<Record<string, unknown>>;
  /** The From header; defaults to EMAIL_FROM. Fixed now, like a queued mail's. */
  readonly from?: string;
}

export interface MailQueue {
  /** Stores the mail durably in the system database and returns at once; never waits for SMTP. */
  enqueue(mail: OutgoingMail): Promise<void>;
  /**
   * Stores a mail request durably (one insert, the same for every email) and returns at once;
   * the request worker resolves it to a mail or to nothing later.
   */
  enqueueRequest(request: MailRequestInput): Promise<void>;
  /** A project's mails, newest first. */
  list(projectId: string, limit: number, offset: number): Promise<{ items: MailView[]; total: number }>;
}

/** The states of a `mail_queue` row. */
export const MAIL_STATUS = Object.freeze({
  /** A mail request waiting for the request worker; never listed, never sent as is. */
  request: 'request',
  /** Kept for reading through the outbox endpoint; nothing sends it. */
  outbox: 'outbox',
  /** Waiting for the worker (first try or a retry). */
  pending: 'pending',
  sent: 'sent',
  /** Given up: a permanent refusal, or too many failed attempts. */
  failed: 'failed',
});

/** The structured logger the mail code writes to (pino and Fastify's logger fit). */
export interface MailLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** A logger that drops everything (for CLI commands, which send no mail). */
export const silentMailLog: MailLog = Object.freeze({ info() {}, warn() {}, error() {} });

export interface StoredMailQueueOptions {
  /** `smtp`: rows wait for the worker. `outbox`: rows are kept for the outbox endpoint only. */
  readonly delivery: 'smtp' | 'outbox';
  /** The From address when a mail names none (EMAIL_FROM). */
  readonly defaultFrom: string;
  /** Stamps `created_at` (the server's clock, replaceable in tests). */
  readonly clock: Clock;
  /**
   * Stamps `next_attempt_at`. Real time by default: the worker's timers run in real time,
   * so a test clock moved hours ahead must not push mail out of the worker's reach.
   */
  readonly schedulingClock?: Clock;
  readonly log: MailLog;
  /** Called after each enqueue so the worker sends at once instead of at its next poll. */
  readonly onEnqueued?: () => void;
  /** Called after each request is stored, so the request worker resolves it soon (in its next batch). */
  readonly onRequested?: () => void;
}

const VIEW_COLUMNS = ['id', 'recipient', 'subject', 'text_body', 'html_body', 'created_at', 'status'].map((name) =>
  col(MAIL_QUEUE, name),
);

/** A MailQueue over the `mail_queue` table of the system database. */
export class StoredMailQueue implements MailQueue {
  private readonly schedulingClock: Clock;

  constructor(
    private readonly db: Database,
    private readonly options: StoredMailQueueOptions,
  ) {
    this.schedulingClock = options.schedulingClock ?? systemClock;
  }

  /**
   * Writes the mail as one row and returns; the row is committed (durable) when this
   * resolves. Throws a plain Error for a malformed mail (a bug in the caller, not input).
   */
  async enqueue(mail: OutgoingMail): Promise<void> {
    checkMail(mail);
    const id = newRowId();
    const status = this.options.delivery === 'smtp' ? MAIL_STATUS.pending : MAIL_STATUS.outbox;
    const values: Record<string, unknown> = {
      id,
      project_id: mail.projectId,
      recipient: mail.to,
      subject: mail.subject,
      text_body: mail.text,
      html_body: mail.html,
      status,
      attempts: 0,
      next_attempt_at: isoNow(this.schedulingClock),
      locked_until: null,
      created_at: isoNow(this.options.clock),
      sent_at: null,
      last_error: null,
      sender: mail.from ?? this.options.defaultFrom,
    };
    await this.db.run({
      kind: 'insert',
      table: MAIL_QUEUE.table,
      columns: MAIL_QUEUE.columns,
      rows: [MAIL_QUEUE.columns.map((c) => values[c.name])],
    });
    // The recipient may be logged; the body never is (it carries single-use tokens).
    if (this.options.delivery === 'outbox') {
      this.options.log.info(
        { projectId: mail.projectId, mailId: id },
        `mail to ${mail.to} queued in the outbox of project ${mail.projectId}`,
      );
    } else {
      this.options.log.info(
        { projectId: mail.projectId, mailId: id },
        `mail to ${mail.to} queued for SMTP delivery (project ${mail.projectId})`,
      );
      this.options.onEnqueued?.();
    }
  }

  /**
   * Writes the request as one row (status `request`, the kind in `subject`, the payload as
   * JSON in `text_body`); it is committed (durable) when this resolves. Logs nothing: the
   * address may belong to nobody, and the log must not differ between the two.
   */
  async enqueueRequest(request: MailRequestInput): Promise<void> {
    if (/[\r\n]/.test(request.email) || /[\r\n]/.test(request.from ?? ''))
      throw new Error('mail queue: email and from must not contain line breaks');
    const values: Record<string, unknown> = {
      id: newRowId(),
      project_id: request.projectId,
      recipient: request.email,
      subject: request.kind,
      text_body: JSON.stringify(request.payload),
      html_body: '',
      status: MAIL_STATUS.request,
      attempts: 0,
      next_attempt_at: isoNow(this.schedulingClock),
      locked_until: null,
      created_at: isoNow(this.options.clock),
      sent_at: null,
      last_error: null,
      sender: request.from ?? this.options.defaultFrom,
    };
    await this.db.run({
      kind: 'insert',
      table: MAIL_QUEUE.table,
      columns: MAIL_QUEUE.columns,
      rows: [MAIL_QUEUE.columns.map((c) => values[c.name])],
    });
    this.options.onRequested?.();
  }

  /** A project's mails, newest first (ties broken by the time-ordered id); unresolved requests are not mails yet. */
  async list(projectId: string, limit: number, offset: number): Promise<{ items: MailView[]; total: number }> {
    const where = sql.and(sql.eq('project_id', projectId), sql.not(sql.eq('status', MAIL_STATUS.request)));
    const rows = await this.db.all({
      kind: 'select',
      table: MAIL_QUEUE.table,
      columns: VIEW_COLUMNS,
      where,
      orderBy: [
        { column: 'created_at', descending: true },
        { column: 'id', descending: true },
      ],
      limit,
      offset,
    });
    const total = await this.db.count({ kind: 'count', table: MAIL_QUEUE.table, where });
    const items = rows.map((row) => ({
      id: String(row.id),
      to: String(row.recipient),
      subject: String(row.subject),
      text: String(row.text_body),
      html: String(row.html_body),
      created_at: String(row.created_at),
      status: String(row.status),
    }));
    return { items, total };
  }
}

function checkMail(mail: OutgoingMail): void {
  for (const field of ['projectId', 'to', 'subject', 'text', 'html'] as const) {
    if (typeof mail[field] !== 'string') throw new Error(`mail queue: ${field} must be a string`);
  }
  if (mail.to.trim() === '') throw new Error('mail queue: a mail needs a recipient');
  // Header values must stay on one line: a line break would let a value add headers.
  for (const value of [mail.to, mail.subject, mail.from ?? '']) {
    if (/[\r\n]/.test(value)) throw new Error('mail queue: to, subject and from must not contain line breaks');
  }
}
