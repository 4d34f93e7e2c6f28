/**
 * The mail transport port: how a queued mail leaves the server. The worker
 * (`mail-worker.ts`) is the only caller; `app/` picks the implementation (SMTP today).
 */

/** One message ready to send: addresses and both bodies, already rendered. */
export interface MailMessage {
  readonly from: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** Sends mail somewhere outside the process. */
export interface MailTransport {
  /**
   * Sends one message. Resolves once the receiving server accepted it. Throws
   * MailTransportError (permanent or not) when it did not, or when `signal` aborts first.
   */
  send(message: MailMessage, signal: AbortSignal): Promise<void>;
  /** Closes open connections; sends still in flight fail. */
  close(): Promise<void>;
}

/**
 * A failed send. `permanent` means retrying cannot help (the server refused the message or
 * the recipient for good, SMTP 5xx); otherwise the worker retries later with backoff.
 * The message is safe to log and store: it never contains the mail's body.
 */
export class MailTransportError extends Error {
  readonly permanent: boolean;

  constructor(message: string, { permanent, cause }: { readonly permanent: boolean; readonly cause?: unknown }) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'MailTransportError';
    this.permanent = permanent;
  }
}
