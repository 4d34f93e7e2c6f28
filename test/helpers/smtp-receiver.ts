/**
 * A real SMTP receiver for tests (the smtp-server package) on 127.0.0.1, keeping every
 * message it accepts, decoded into subject, text and html. It can be slow (delays its
 * greeting and its answer to DATA) and can be started on a port chosen in advance, so a
 * test can point SMTP_URL at a server that is not up yet.
 */
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  readonly envelopeFrom: string;
  readonly envelopeTo: readonly string[];
  readonly headers: ReadonlyMap<string, string>;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly raw: string;
}

export interface SmtpReceiver {
  readonly port: number;
  /** `smtp://127.0.0.1:PORT`, for SMTP_URL. */
  readonly url: string;
  readonly received: readonly ReceivedMail[];
  /** Resolves with the first received mail matching `predicate` (waiting for it), or rejects after `timeoutMs`. */
  waitForMail(predicate?: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export interface SmtpReceiverOptions {
  /** Listen on this port (see `freePort` in server-process.ts); a random one when absent. */
  readonly port?: number;
  /** Wait this long before the greeting and again before accepting the message. */
  readonly delayMs?: number;
  /** Refuse recipients for which this returns true, with 550 (a permanent refusal). */
  readonly rejectRecipient?: (address: string) => boolean;
}

/** Starts a receiver; close() it at the end of the test. */
export async function startSmtpReceiver(options: SmtpReceiverOptions = {}): Promise<SmtpReceiver> {
  const received: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const timers = new Set<NodeJS.Timeout>();
  const delay = (callback: () => void) => {
    if (!options.delayMs) return callback();
    const timer = setTimeout(() => {
      timers.delete(timer);
      callback();
    }, options.delayMs);
    timers.add(timer);
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 100,
    onConnect(_session, callback) {
      delay(() => callback());
    },
    onRcptTo(address, _session, callback) {
      if (options.rejectRecipient?.(address.address)) {
        callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        delay(() => {
          received.push(decodeMail(raw, session.envelope));
          for (const wake of waiters) wake();
          callback();
        });
      });
    },
  });
  const port = options.port ?? 0;
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');

  return {
    port: address.port,
    url: `smtp://127.0.0.1:${address.port}`,
    received,
    waitForMail(predicate = () => true, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = received.find(predicate);
          if (!found) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching mail within ${timeoutMs} ms (received ${received.length})`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => {
      // Pending delays would keep the test process alive long after the test.
      for (const timer of timers) clearTimeout(timer);
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Envelope {
  readonly mailFrom: false | { address: string };
  readonly rcptTo: readonly { address: string }[];
}

function decodeMail(raw: string, envelope: Envelope): ReceivedMail {
  const { headers, body } = splitMessage(raw);
  const parts = leafParts(headers, body);
  const part = (type: string) => parts.find((p) => p.type === type)?.content ?? '';
  return {
    envelopeFrom: envelope.mailFrom ? envelope.mailFrom.address : '',
    envelopeTo: envelope.rcptTo.map((r) => r.address),
    headers,
    subject: decodeWords(headers.get('subject') ?? ''),
    text: part('text/plain'),
    html: part('text/html'),
    raw,
  };
}

function splitMessage(raw: string): { headers: Map<string, string>; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  const head = end === -1 ? raw : raw.slice(0, end);
  const body = end === -1 ? '' : raw.slice(end + 4);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function leafParts(headers: Map<string, string>, body: string): { type: string; content: string }[] {
  const contentType = headers.get('content-type') ?? 'text/plain';
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type.startsWith('multipart/')) {
    const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
    if (!boundary) return [];
    const sections = body.split(`--${boundary}`).slice(1);
    return sections
      .filter((section) => !section.startsWith('--'))
      .flatMap((section) => {
        const part = splitMessage(section.replace(/^\r\n/, '').replace(/\r\n$/, ''));
        return leafParts(part.headers, part.body);
      });
  }
  return [{ type, content: decodeBody(body, headers.get('content-transfer-encoding') ?? '7bit') }];
}

function decodeBody(body: string, encoding: string): string {
  switch (encoding.toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable':
      return decodeQuotedPrintable(body);
    default:
      return body;
  }
}

function decodeQuotedPrintable(text: string): string {
  const joined = text.replace(/=\r\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const hex = joined.slice(i + 1, i + 3);
    if (joined[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(joined[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Decodes RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`) in a header. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_match, _charset: string, kind: string, data: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64').toString('utf8')
        : decodeQuotedPrintable(data.replace(/_/g, ' ')),
    );
}
