/**
 * The SMTP MailTransport: nodemailer with a small connection pool over SMTP_URL
 * (`smtp://user:pass@host:port`, or `smtps://` for implicit TLS). Every wait has a short
 * timeout so a dead or slow server fails the send inside the worker quickly; the worker
 * retries it later. Requests never reach this code: they only enqueue.
 */
import { createTransport } from 'nodemailer';
import type { NodemailerError } from 'nodemailer';
import { MailTransportError, type MailMessage, type MailTransport } from './mail-transport.js';

/** Timeouts of the SMTP conversation, in milliseconds. */
export interface SmtpTimeouts {
  /** Until the TCP (or TLS) connection is up. */
  readonly connectionMs: number;
  /** Until the server's greeting after connecting. */
  readonly greetingMs: number;
  /** Longest silence of the server in the middle of a conversation. */
  readonly socketMs: number;
  /** Until the host name resolves. */
  readonly dnsMs: number;
}

export const DEFAULT_SMTP_TIMEOUTS: SmtpTimeouts = Object.freeze({
  connectionMs: 10_000,
  greetingMs: 10_000,
  socketMs: 30_000,
  dnsMs: 10_000,
});

/** How many connections the pool keeps open at most. */
const MAX_CONNECTIONS = 3;

/**
 * Builds a MailTransport sending over `smtpUrl`. Throws a plain Error (at startup) when the
 * URL is not an smtp:// or smtps:// URL.
 */
export function buildSmtpTransport(smtpUrl: string, timeouts: SmtpTimeouts = DEFAULT_SMTP_TIMEOUTS): MailTransport {
  let scheme: string;
  try {
    scheme = new URL(smtpUrl).protocol;
  } catch {
    throw new Error('SMTP_URL must be a URL such as smtp://user:pass@mail.example.com:587.');
  }
  if (scheme !== 'smtp:' && scheme !== 'smtps:') {
    throw new Error(`SMTP_URL must start with smtp:// or smtps://, not ${scheme}//.`);
  }
  const transporter = createTransport({
    url: smtpUrl,
    pool: true,
    maxConnections: MAX_CONNECTIONS,
    connectionTimeout: timeouts.connectionMs,
    greetingTimeout: timeouts.greetingMs,
    socketTimeout: timeouts.socketMs,
    dnsTimeout: timeouts.dnsMs,
    // nodemailer's own logging could print the message source, which carries tokens.
    logger: false,
    debug: false,
  });

  return {
    async send(message: MailMessage, signal: AbortSignal): Promise<void> {
      let rejected: readonly unknown[] = [];
      try {
        const info = await transporter.sendMail({ ...message, signal });
        rejected = info.rejected ?? [];
      } catch (error) {
        throw translateSmtpError(error as NodemailerError);
      }
      if (rejected.length > 0)
        throw new MailTransportError('the SMTP server rejected the recipient', { permanent: true });
    },
    async close(): Promise<void> {
      transporter.close();
    },
  };
}

/**
 * Turns a nodemailer error into a MailTransportError. Permanent only when the server
 * answered with a permanent reply (5xx, not 503): connection trouble, timeouts and 4xx
 * replies are worth retrying, and so are authentication failures, which an operator fixes.
 */
function translateSmtpError(error: NodemailerError): MailTransportError {
  const permanent = error.permanent === true && error.code !== 'EAUTH';
  const parts = [error.code, error.responseCode, error.command].filter((part) => part !== undefined && part !== '');
  // The server's reply text is kept (it explains the refusal); the message never holds the body.
  const text = `${parts.join(' ')}${parts.length > 0 ? ': ' : ''}${error.response ?? error.message}`.slice(0, 500);
  return new MailTransportError(text, { permanent, cause: error });
}
