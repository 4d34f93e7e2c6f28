/**
 * The mail request worker: turns `request` rows of the mail queue (forgot-password, written
 * before the HTTP answer, the same for every email) into mails or into nothing, in the
 * background. It claims due rows with a lease inside one transaction (`FOR UPDATE SKIP
 * LOCKED` on PostgreSQL), like the mail worker, so several processes never resolve a row at
 * once and a crashed process's rows become due again when the lease runs out. A resolved row
 * becomes an ordinary mail in place (`pending` for SMTP, `outbox` without it) by one
 * conditional UPDATE, so the mail worker's once-only sending applies to it unchanged.
 * Resolution is at least once: a crash after the resolver's work (a reset token issued) but
 * before the row changed resolves it again, which issues a second token and one mail.
 */
import { isoNow, systemClock, type Clock } from '../lib/clock.js';
import { col, MAIL_QUEUE } from '../store/system-tables.js';
import { sql, type Expr } from '../query/sql-tree.js';
import type { Database, Row } from '../store/types.js';
import { claimDueRows } from './mail-claim.js';
import { MAIL_STATUS, type MailLog } from './mail-queue.js';

/** A stored request, as the resolver sees it. */
export interface MailRequest {
  readonly id: string;
  readonly projectId: string;
  readonly kind: string;
  readonly email: string;
  readonly payload: Readonly<Record<string, unknown>>;
}

/** The mail a request resolves to (the From header was fixed when it was asked). */
export interface ResolvedMail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** Resolves a request to its mail, or to undefined (nobody to mail); throws to retry later. */
export type MailRequestResolver = (request: MailRequest) => Promise<ResolvedMail | undefined>;

/** Tunables; tests shorten them. */
export interface MailRequestWorkerOptions {
  /** `smtp`: a resolved mail waits for the mail worker. `outbox`: it is kept for the outbox. */
  readonly delivery: 'smtp' | 'outbox';
  /** How often to look for due requests when nothing woke the worker. */
  readonly pollIntervalMs: number;
  readonly batchSize: number;
  /** How long a claim holds its rows (a crashed process's claim frees them after this). */
  readonly leaseMs: number;
  /** After this many failed resolutions a request is dropped (logged as an error). */
  readonly maxAttempts: number;
  /** Retry delay after a failed resolution: base·2^(n−1), capped at 60 s. */
  readonly backoffBaseMs: number;
  /**
   * A wake-up claims after a random delay between this and twice this: requests arriving
   * meanwhile are resolved in the same batch, and no resolution runs right behind the answer
   * of the request that woke it, nor at a moment the asker can aim another request at.
   */
  readonly wakeDelayMs: number;
}

/**
 * Defaults: resolve 100-200 ms after a wake-up, else every 5 s; retry storage failures for
 * about an hour. The lease is short because resolving takes a few queries: a crashed process's
 * requests are resolved by the next one within seconds. A resolution outliving it is
 * harmless: the row changes once (see `write`), at worst one unused reset token more.
 */
export const DEFAULT_MAIL_REQUEST_WORKER_OPTIONS: Omit<MailRequestWorkerOptions, 'delivery'> = Object.freeze({
  pollIntervalMs: 5_000,
  batchSize: 20,
  leaseMs: 10_000,
  maxAttempts: 60,
  backoffBaseMs: 1_000,
  wakeDelayMs: 100,
});

const COLUMNS = ['id', 'project_id', 'recipient', 'subject', 'text_body', 'attempts'].map((name) =>
  col(MAIL_QUEUE, name),
);

/** Resolves queued mail requests in the background. One per process; start() when the app is ready. */
export class MailRequestWorker {
  private readonly options: MailRequestWorkerOptions;
  private running = false;
  private stopping = false;
  private loopDone: Promise<void> = Promise.resolve();
  private wakeRequested = false;
  private wakeSleeper: (() => void) | undefined;
  private wakeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database,
    private readonly resolve: MailRequestResolver,
    private readonly log: MailLog,
    options: Partial<MailRequestWorkerOptions> & Pick<MailRequestWorkerOptions, 'delivery'>,
    /** Called when a request became a mail to send, so the mail worker sends it at once. */
    private readonly onMailQueued: () => void = () => {},
    /** Real time: leases are compared across processes and restarts. */
    private readonly clock: Clock = systemClock,
  ) {
    this.options = Object.freeze({ ...DEFAULT_MAIL_REQUEST_WORKER_OPTIONS, ...options });
  }

  /** Starts the background loop (idempotent). Never throws; storage errors are logged and retried. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopping = false;
    this.loopDone = this.loop();
  }

  /**
   * Asks the worker to look for due requests soon rather than at its next poll: 1-2 ×
   * `wakeDelayMs` after the first wake-up, in one batch with every request stored meanwhile.
   * Resolving a known email costs more than an unknown one (a lookup that hits, a token
   * insert and its WAL sync, a rendered mail, a bigger write, a log line). Run right behind
   * the answer, it competed with the client for the CPU on a busy machine, and the asking
   * request itself looked slower for a known email (forgot-password, issue 10 item 3). After
   * the delay the work lands on whatever else runs then, unrelated to the email that asked.
   */
  wake(): void {
    if (this.wakeTimer) return;
    this.wakeTimer = setTimeout(
      () => {
        this.wakeTimer = undefined;
        this.wakeRequested = true;
        this.wakeSleeper?.();
      },
      this.options.wakeDelayMs * (1 + Math.random()),
    );
    // A pending wake-up alone must not keep a process alive (like the poll).
    this.wakeTimer.unref();
  }

  /** Stops the loop after the batch in hand; unresolved requests stay queued for the next start. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.stopping = true;
    clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    this.wakeSleeper?.();
    await this.loopDone;
  }

  /** Claims one batch of due requests and resolves it. Resolves with how many rows it claimed. */
  async runOnce(): Promise<number> {
    const claimed = await this.claim();
    await Promise.all(claimed.map((row) => this.settle(row)));
    return claimed.length;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      this.wakeRequested = false;
      let claimedFullBatch = false;
      try {
        claimedFullBatch = (await this.runOnce()) >= this.options.batchSize;
      } catch (error) {
        this.log.error({ err: error }, 'mail request worker: could not read the mail queue; retrying at the next poll');
      }
      if (!this.running) break;
      if (claimedFullBatch || this.wakeRequested) continue;
      await this.sleep(this.options.pollIntervalMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeSleeper = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      // The loop alone must not keep a process alive.
      timer.unref();
      this.wakeSleeper = done;
      if (this.wakeRequested || !this.running) done();
    });
  }

  /** Takes due, unleased requests and leases them, in one transaction. */
  private claim(): Promise<Row[]> {
    const leaseUntil = new Date(this.clock.now() + this.options.leaseMs).toISOString();
    return claimDueRows(this.db, {
      status: MAIL_STATUS.request,
      columns: COLUMNS,
      now: isoNow(this.clock),
      leaseUntil,
      batchSize: this.options.batchSize,
    });
  }

  /** Resolves one claimed row and writes the outcome; failures are recorded for a retry. */
  private async settle(row: Row): Promise<void> {
    const id = String(row.id);
    const projectId = String(row.project_id);
    try {
      const mail = await this.resolve({
        id,
        projectId,
        kind: String(row.subject),
        email: String(row.recipient),
        payload: parsePayload(row.text_body),
      });
      if (!mail) {
        await this.db.run({ kind: 'delete', table: MAIL_QUEUE.table, where: stillRequested(id) });
        return;
      }
      const status = this.options.delivery === 'smtp' ? MAIL_STATUS.pending : MAIL_STATUS.outbox;
      const changed = await this.write(id, {
        status,
        recipient: mail.to,
        subject: mail.subject,
        text_body: mail.text,
        html_body: mail.html,
        attempts: 0,
        locked_until: null,
        next_attempt_at: isoNow(this.clock),
        last_error: null,
      });
      // 0: another process resolved it after our lease ran out; its mail stands, ours is dropped.
      if (changed === 0) return;
      if (status === MAIL_STATUS.outbox) {
        this.log.info({ projectId, mailId: id }, `mail to ${mail.to} queued in the outbox of project ${projectId}`);
      } else {
        this.log.info({ projectId, mailId: id }, `mail to ${mail.to} queued for SMTP delivery (project ${projectId})`);
        this.onMailQueued();
      }
    } catch (error) {
      await this.recordFailure(row, error).catch((failure: unknown) => {
        this.log.error(
          { err: failure, mailId: id },
          'mail request worker: could not record a failed resolution; the request is retried when its lease ends',
        );
      });
    }
  }

  private async recordFailure(row: Row, error: unknown): Promise<void> {
    const id = String(row.id);
    const attempts = Number(row.attempts);
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, 500);
    if (this.stopping) {
      // Shutting down is not the request's fault: put it back as due without counting the attempt.
      await this.write(id, { locked_until: null, next_attempt_at: isoNow(this.clock), attempts: attempts - 1 });
      return;
    }
    if (attempts >= this.options.maxAttempts) {
      await this.db.run({ kind: 'delete', table: MAIL_QUEUE.table, where: stillRequested(id) });
      this.log.error(
        { err: error, mailId: id, projectId: row.project_id },
        `mail request dropped after ${attempts} failed attempt(s)`,
      );
      return;
    }
    const delayMs = Math.min(this.options.backoffBaseMs * 2 ** Math.min(attempts - 1, 20), 60_000);
    const next = new Date(this.clock.now() + delayMs).toISOString();
    await this.write(id, { locked_until: null, next_attempt_at: next, last_error: reason });
    this.log.warn(
      { err: error, mailId: id, projectId: row.project_id, nextAttemptAt: next },
      'mail request could not be resolved; retrying',
    );
  }

  /** Updates a row that is still a request; resolves with the number of rows changed (0 or 1). */
  private write(id: string, values: Record<string, unknown>): Promise<number> {
    return this.db.run({
      kind: 'update',
      table: MAIL_QUEUE.table,
      set: Object.entries(values).map(([name, value]) => {
        const column = col(MAIL_QUEUE, name);
        return { column, value: sql.value(value, column.type) };
      }),
      where: stillRequested(id),
    });
  }
}

function stillRequested(id: string): Expr {
  return sql.and(sql.eq('id', id), sql.eq('status', MAIL_STATUS.request));
}

function parsePayload(value: unknown): Readonly<Record<string, unknown>> {
  try {
    const parsed: unknown = JSON.parse(String(value));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
