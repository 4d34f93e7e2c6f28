/**
 * The mail worker: sends `pending` rows of the mail queue through a MailTransport, in the
 * background. It claims a batch of due rows by setting a lease (`locked_until`) inside one
 * transaction, so several workers (processes sharing PostgreSQL) never send the same row
 * at once, and a crashed worker's rows become due again when the lease runs out. Delivery
 * is at least once: a crash between the server accepting a mail and the row being marked
 * `sent` sends it again later. Failures are retried with capped exponential backoff and
 * jitter; a permanent refusal, or too many attempts, marks the row `failed`.
 */
import { isoNow, systemClock, type Clock } from '../lib/clock.js';
import { col, MAIL_QUEUE } from '../store/system-tables.js';
import { sql } from '../query/sql-tree.js';
import type { Database, Row } from '../store/types.js';
import { claimDueRows, before } from './mail-claim.js';
import { MAIL_STATUS, type MailLog } from './mail-queue.js';
import { MailTransportError, type MailTransport } from './mail-transport.js';

/** Tunables of the worker; tests shorten them so retries happen in milliseconds. */
export interface MailWorkerOptions {
  /** How often to look for due mail when nothing woke the worker (retries, other processes' mail). */
  readonly pollIntervalMs: number;
  /** How many rows one claim takes (and sends concurrently). */
  readonly batchSize: number;
  /** After this many failed attempts a row is `failed`. */
  readonly maxAttempts: number;
  /** Delay before the first retry; doubled on each further failure... */
  readonly backoffBaseMs: number;
  /** ...up to this cap. */
  readonly backoffMaxMs: number;
  /** The longest one send may take, all timeouts included, before it counts as failed. */
  readonly sendTimeoutMs: number;
  /** How long a claim holds its rows; must exceed sendTimeoutMs (a crashed claim frees them after this). */
  readonly leaseMs: number;
  /** Sent and failed rows are deleted this long after their last attempt (their bodies hold tokens). */
  readonly retentionMs: number;
  /** How often to delete rows past retention. */
  readonly pruneIntervalMs: number;
}

/** Defaults: a retry schedule of 30 s, 1 min, 2 min ... capped at 1 h, giving up after about a day. */
export const DEFAULT_MAIL_WORKER_OPTIONS: MailWorkerOptions = Object.freeze({
  pollIntervalMs: 5_000,
  batchSize: 20,
  maxAttempts: 30,
  backoffBaseMs: 30_000,
  backoffMaxMs: 3_600_000,
  sendTimeoutMs: 60_000,
  leaseMs: 300_000,
  retentionMs: 7 * 24 * 3_600_000,
  pruneIntervalMs: 3_600_000,
});

const COLUMNS = ['id', 'project_id', 'recipient', 'subject', 'text_body', 'html_body', 'attempts', 'sender'].map(
  (name) => col(MAIL_QUEUE, name),
);
const ERROR_TEXT_LIMIT = 500;

/** Sends queued mail in the background. One per process; start() when the app is ready. */
export class MailWorker {
  private readonly options: MailWorkerOptions;
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private stopController = new AbortController();
  private wakeRequested = false;
  private wakeSleeper: (() => void) | undefined;
  private lastPruneAt = 0;

  constructor(
    private readonly db: Database,
    private readonly transport: MailTransport,
    private readonly log: MailLog,
    options: Partial<MailWorkerOptions> = {},
    /** Real time by default: leases and retry times are compared across processes and restarts. */
    private readonly clock: Clock = systemClock,
  ) {
    this.options = Object.freeze({ ...DEFAULT_MAIL_WORKER_OPTIONS, ...options });
  }

  /** Starts the background loop (idempotent). Never throws; storage errors are logged and retried. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopController = new AbortController();
    this.loopDone = this.loop();
  }

  /** Asks the worker to look for due mail now rather than at its next poll. */
  wake(): void {
    this.wakeRequested = true;
    this.wakeSleeper?.();
  }

  /**
   * Stops the loop: sends in flight are aborted and their rows put back as due (the attempt
   * is not counted), then the transport is closed. Resolves when no storage call is left.
   */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.stopController.abort();
    this.wakeSleeper?.();
    await this.loopDone;
    await this.transport.close();
  }

  /** Claims one batch of due mail and sends it. Resolves with how many rows it claimed. */
  async runOnce(): Promise<number> {
    const claimed = await this.claim();
    await Promise.all(claimed.map((row) => this.deliver(row)));
    return claimed.length;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      this.wakeRequested = false;
      let claimedFullBatch = false;
      try {
        await this.pruneWhenDue();
        claimedFullBatch = (await this.runOnce()) >= this.options.batchSize;
      } catch (error) {
        this.log.error({ err: error }, 'mail worker: could not read the mail queue; retrying at the next poll');
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
      // The loop alone must not keep a process alive (CLI commands, a forgotten stop()).
      timer.unref();
      this.wakeSleeper = done;
      if (this.wakeRequested || !this.running) done();
    });
  }

  /** Deletes sent and failed rows past retention, at most once per prune interval. */
  private async pruneWhenDue(): Promise<void> {
    const now = this.clock.now();
    if (now - this.lastPruneAt < this.options.pruneIntervalMs) return;
    this.lastPruneAt = now;
    const cutoff = new Date(now - this.options.retentionMs).toISOString();
    const removed = await this.db.run({
      kind: 'delete',
      table: MAIL_QUEUE.table,
      where: sql.or(
        sql.and(sql.eq('status', MAIL_STATUS.sent), before('sent_at', '<', cutoff)),
        sql.and(sql.eq('status', MAIL_STATUS.failed), before('next_attempt_at', '<', cutoff)),
      ),
    });
    if (removed > 0)
      this.log.info({ removed }, `mail worker: deleted ${removed} sent or failed mail(s) past retention`);
  }

  /** Takes due, unleased rows and leases them, in one transaction. */
  private claim(): Promise<Row[]> {
    const leaseUntil = new Date(this.clock.now() + this.options.leaseMs).toISOString();
    return claimDueRows(this.db, {
      status: MAIL_STATUS.pending,
      columns: COLUMNS,
      now: isoNow(this.clock),
      leaseUntil,
      batchSize: this.options.batchSize,
    });
  }

  private async deliver(row: Row): Promise<void> {
    const id = String(row.id);
    const fields = { mailId: id, projectId: row.project_id, attempt: row.attempts };
    const signal = AbortSignal.any([this.stopController.signal, AbortSignal.timeout(this.options.sendTimeoutMs)]);
    try {
      await this.transport.send(
        {
          from: String(row.sender ?? ''),
          to: String(row.recipient),
          subject: String(row.subject),
          text: String(row.text_body),
          html: String(row.html_body),
        },
        signal,
      );
    } catch (error) {
      await this.recordFailure(row, error, fields);
      return;
    }
    await this.update(id, {
      status: MAIL_STATUS.sent,
      sent_at: isoNow(this.clock),
      locked_until: null,
      last_error: null,
      ...REDACTED_BODIES,
    });
    this.log.info(fields, `mail to ${String(row.recipient)} sent`);
  }

  private async recordFailure(row: Row, error: unknown, fields: object): Promise<void> {
    const id = String(row.id);
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, ERROR_TEXT_LIMIT);
    if (this.stopController.signal.aborted) {
      // Shutting down, not a failure of the mail: put it back as due without counting the attempt.
      await this.update(id, {
        locked_until: null,
        next_attempt_at: isoNow(this.clock),
        attempts: Number(row.attempts) - 1,
      });
      return;
    }
    const attempts = Number(row.attempts);
    const permanent = error instanceof MailTransportError && error.permanent;
    if (permanent || attempts >= this.options.maxAttempts) {
      await this.update(id, { status: MAIL_STATUS.failed, locked_until: null, last_error: reason, ...REDACTED_BODIES });
      this.log.error(
        { ...fields, reason },
        `mail to ${String(row.recipient)} failed for good after ${attempts} attempt(s)`,
      );
      return;
    }
    const delayMs = retryDelayMs(attempts, this.options);
    const next = new Date(this.clock.now() + delayMs).toISOString();
    await this.update(id, { locked_until: null, next_attempt_at: next, last_error: reason });
    this.log.warn(
      { ...fields, reason, nextAttemptAt: next },
      `mail to ${String(row.recipient)} not sent; retrying in ${Math.round(delayMs / 1000)} s`,
    );
  }

  /** Writes the outcome of a claimed row; storage errors are logged (the lease frees the row later). */
  private async update(id: string, values: Record<string, unknown>): Promise<void> {
    try {
      await this.db.run({
        kind: 'update',
        table: MAIL_QUEUE.table,
        set: Object.entries(values).map(([name, value]) => {
          const column = col(MAIL_QUEUE, name);
          return { column, value: sql.value(value, column.type) };
        }),
        where: sql.and(sql.eq('id', id), sql.eq('status', MAIL_STATUS.pending)),
      });
    } catch (error) {
      this.log.error(
        { err: error, mailId: id },
        'mail worker: could not record the outcome of a send; the row will be retried when its lease ends',
      );
    }
  }
}

/**
 * What a mail's bodies become once it is sent or has failed for good. They held a one-time
 * link (verification or password reset): once the mail has left (or never will), the link
 * must not stay readable in the system database, its backups or the outbox listing. The
 * recipient, subject, status and error stay for the operator.
 */
export const REDACTED_BODY = '(removed once the mail was sent or failed for good: it held a one-time link)';
const REDACTED_BODIES = { text_body: REDACTED_BODY, html_body: REDACTED_BODY };

/** The wait before attempt `failedAttempts + 1`: base·2^(n−1), capped, with ±20 % jitter so retries spread out. */
export function retryDelayMs(
  failedAttempts: number,
  options: Pick<MailWorkerOptions, 'backoffBaseMs' | 'backoffMaxMs'>,
): number {
  const exponent = Math.min(Math.max(failedAttempts - 1, 0), 40);
  const capped = Math.min(options.backoffBaseMs * 2 ** exponent, options.backoffMaxMs);
  return Math.round(capped * (0.8 + Math.random() * 0.4));
}
