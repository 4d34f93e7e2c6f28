/**
 * PostgreSQL outages under traffic (issue 10, item 4): a real `rowbase serve` process runs on
 * a PostgreSQL server of this test's own (never the shared one), which is stopped and started
 * again while clients keep calling the data API, auth, admin endpoints and /health.
 *
 * During an outage every request is answered quickly with 503 SERVICE_UNAVAILABLE and a
 * Retry-After header (never a hang, never a 500, never a driver message); afterwards the
 * process serves again within seconds by itself, its LISTEN connection is back, no write
 * answered 2xx is missing, and no cache serves what the database no longer says.
 * @engine postgres — the PostgreSQL pass only.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { eventually } from '../helpers/eventually.js';
import { startPgCluster, type PgCluster } from '../helpers/pg-cluster.js';
import { openStream, type SseStream } from '../helpers/sse-client.js';
import { freePort, PROCESS_PLATFORM_KEY, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver.js';

/**
 * No request may take longer than this, outage or not (here statements are cut at 1.5 + 2 s, connection waits at 2 s).
 */
const BOUND_MS = 6_000;
/** The process must serve writes again within this long after the database is back. */
const RECOVERY_MS = 8_000;
const PASSWORD = 'correct horse battery';
// Words that would mean a driver or socket message reached the client.
const DRIVER_WORDS =
  /ECONN[A-Z]|EPIPE|[Tt]erminated|socket|[Pp]ostgres|pg_|127\.0\.0\.1|timeout exceeded|SQLSTATE|57P0/;

interface Outcome {
  readonly name: string;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly status: number;
  readonly code: string | undefined;
  readonly retryAfter: string | null;
  readonly text: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PostgreSQL stopped and started under a running server with traffic', () => {
  let cluster: PgCluster;
  let server: ServerProcess;
  let smtp: SmtpReceiver;
  let dir: string;
  let admin: Record<string, string>;
  let bearer: Record<string, string>;
  const outcomes: Outcome[] = [];
  const acknowledged = new Set<string>();
  let written = 0;
  const p = (route: string) => `/p/outage${route}`;

  /** One request with a hard bound; a request still unanswered at the bound counts as status 0 (a hang). */
  const request = async (
    name: string,
    method: string,
    route: string,
    headers: Record<string, string> = {},
    body?: unknown,
  ): Promise<Outcome> => {
    const startedAt = Date.now();
    let outcome: Outcome;
    try {
      const response = await fetch(`${server.url}${route}`, {
        method,
        headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(BOUND_MS),
      });
      const text = await response.text();
      const code = response.status >= 400 ? (JSON.parse(text) as { error?: { code?: string } }).error?.code : undefined;
      outcome = {
        name,
        startedAt,
        endedAt: Date.now(),
        status: response.status,
        code,
        retryAfter: response.headers.get('retry-after'),
        text,
      };
    } catch (error) {
      outcome = {
        name,
        startedAt,
        endedAt: Date.now(),
        status: 0,
        code: undefined,
        retryAfter: null,
        text: String(error),
      };
    }
    outcomes.push(outcome);
    return outcome;
  };

  /** Writes rows one by one and two at a time (bulk: one transaction), remembering those answered 201. */
  const write = async (): Promise<Outcome> => {
    const n = ++written;
    if (n % 3 === 0) {
      const out = await request('bulk write', 'POST', p('/api/notes/bulk'), admin, [
        { title: `w${n}a` },
        { title: `w${n}b` },
      ]);
      if (out.status === 201)
        for (const row of JSON.parse(out.text).data as { title: string }[]) acknowledged.add(row.title);
      return out;
    }
    const out = await request('write', 'POST', p('/api/notes'), admin, { title: `w${n}` });
    if (out.status === 201) acknowledged.add((JSON.parse(out.text).data as { title: string }).title);
    return out;
  };

  const readers: (() => Promise<Outcome>)[] = [
    () => request('list', 'GET', p('/api/notes?limit=5'), admin),
    () => request('health', 'GET', '/health'),
    () => request('me', 'GET', p('/auth/me'), bearer),
    () => request('login', 'POST', p('/auth/login'), {}, { email: 'ada@example.com', password: PASSWORD }),
    () => request('settings', 'GET', p('/v1/settings'), admin),
    () => request('projects', 'GET', '/v1/projects', { 'x-platform-key': PROCESS_PLATFORM_KEY }),
    () =>
      request(
        'signup',
        'POST',
        p('/auth/signup'),
        {},
        { email: `u${Date.now()}${Math.random()}@example.com`, password: PASSWORD },
      ),
    () =>
      request(
        'forgot-password',
        'POST',
        p('/auth/forgot-password'),
        {},
        { email: 'ada@example.com', redirect_url: 'https://app.example.com/reset' },
      ),
  ];

  /** Runs traffic (two writers, two readers over every endpoint above) until `stop` resolves. */
  const traffic = (stop: Promise<void>): Promise<void> => {
    let running = true;
    void stop.then(() => (running = false));
    const loop = async (next: () => Promise<Outcome>) => {
      while (running) {
        await next();
        await sleep(20);
      }
    };
    let turn = 0;
    const reader = () => readers[turn++ % readers.length]!();
    return Promise.all([loop(write), loop(write), loop(reader), loop(reader)]).then(() => undefined);
  };

  /** Polls writes until one succeeds; returns how long that took. */
  const timeToRecover = async (): Promise<number> => {
    const from = Date.now();
    while (Date.now() - from < RECOVERY_MS + BOUND_MS) {
      if ((await write()).status === 201) return Date.now() - from;
      await sleep(50);
    }
    return Number.POSITIVE_INFINITY;
  };

  /** Waits until the traffic has had `count` more writes acknowledged. */
  const acknowledgedMore = async (count: number, when: string): Promise<void> => {
    const from = acknowledged.size;
    await eventually(() => acknowledged.size >= from + count, {
      timeoutMs: 20_000,
      what: `${count} writes acknowledged ${when}`,
    });
  };

  /** Stops the database (mode), keeps traffic on it for `outageMs`, starts it again; returns the outage window. */
  const outage = async (
    mode: 'fast' | 'immediate' | 'freeze',
    outageMs: number,
    meanwhile?: () => Promise<void>,
  ): Promise<{ down: number; up: number; recoveredInMs: number }> => {
    let endTraffic!: () => void;
    const running = traffic(new Promise<void>((resolve) => (endTraffic = resolve)));
    // Enough acknowledged writes on each side of the outage to mean something, counted rather
    // than hoped for from a fixed pause (a loaded machine writes fewer rows per second).
    await acknowledgedMore(10, 'before the outage');
    if (mode === 'freeze') await cluster.freeze();
    else await cluster.stop(mode);
    const down = Date.now();
    await sleep(outageMs);
    await meanwhile?.();
    const up = Date.now();
    if (mode === 'freeze') await cluster.resume();
    else await cluster.start();
    const recoveredInMs = await timeToRecover();
    await acknowledgedMore(10, 'after the recovery');
    endTraffic();
    await running;
    return { down, up, recoveredInMs };
  };

  /** Asserts the rules for every outcome so far: bounded, no 500, and 503s shaped right. */
  const checkOutcomes = (window: { down: number; up: number }, expect = { minDuring: 10, minNames: 6 }) => {
    const hung = outcomes.filter((o) => o.status === 0);
    assert.deepEqual(
      hung.map((o) => `${o.name}: ${o.text}`),
      [],
      `no request may run past ${BOUND_MS} ms`,
    );
    const fivehundreds = outcomes.filter((o) => o.status >= 500 && o.status !== 503);
    assert.deepEqual(
      fivehundreds.map((o) => `${o.name} ${o.status} ${o.text}`),
      [],
      'no 500 at any time',
    );
    for (const o of outcomes.filter((x) => x.status === 503)) {
      assert.equal(o.code, 'SERVICE_UNAVAILABLE', `${o.name}: ${o.text}`);
      assert.ok(Number(o.retryAfter) >= 1, `${o.name}: 503 without Retry-After`);
      assert.doesNotMatch(o.text, DRIVER_WORDS, `${o.name}: a driver message reached the client`);
      const { error } = JSON.parse(o.text) as { error: { message: string; suggestion: string } };
      assert.ok(error.message.length > 0 && error.suggestion.length > 0);
    }
    // Requests sent after the database stopped and answered before it started again.
    const during = outcomes.filter((o) => o.startedAt > window.down + 50 && o.endedAt <= window.up);
    assert.ok(
      during.length >= expect.minDuring,
      `traffic reached the server during the outage (${during.length} requests)`,
    );
    const notRefused = during.filter((o) => o.status !== 503);
    assert.deepEqual(
      notRefused.map((o) => `${o.name} ${o.status} ${o.text}`),
      [],
      'every request during the outage is 503',
    );
    assert.ok(
      new Set(during.map((o) => o.name)).size >= expect.minNames,
      'the outage was seen by writes, reads, auth, admin and /health',
    );
    const slowest = Math.max(...during.map((o) => o.endedAt - o.startedAt));
    return `${outcomes.length} requests, ${during.length} during the outage (all 503, slowest ${slowest} ms)`;
  };

  const listTitles = async (): Promise<Set<string>> => {
    const titles = new Set<string>();
    for (let offset = 0; ; offset += 1000) {
      const page = await request('list all', 'GET', p(`/api/notes?limit=1000&offset=${offset}`), admin);
      assert.equal(page.status, 200, page.text);
      const rows = JSON.parse(page.text).data as { title: string }[];
      for (const row of rows) titles.add(row.title);
      if (rows.length < 1000) return titles;
    }
  };

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rowbase-outage-'));
    cluster = await startPgCluster();
    smtp = await startSmtpReceiver();
    // Rate limits on (counted in PostgreSQL), so that sign-in meets the database through them too.
    // Statements may take 1.5 s (the client gives up on a hung server 2 s later); connections 2 s.
    server = await startServerProcess(dir, {
      DATABASE_URL: cluster.url,
      SMTP_URL: smtp.url,
      PG_STATEMENT_TIMEOUT_MS: '1500',
      PG_POOL_TIMEOUT_MS: '2000',
      RATE_LIMITS: 'on',
      LOG_LEVEL: 'error',
    });
    const created = await request(
      'setup',
      'POST',
      '/v1/projects',
      { 'x-platform-key': PROCESS_PLATFORM_KEY },
      { name: 'Outage', id: 'outage' },
    );
    assert.equal(created.status, 201, created.text);
    admin = { 'x-admin-key': JSON.parse(created.text).data.admin_key };
    for (const [table, body] of [
      ['users', { auth_table: true, verify_email: true, columns: [] }],
      ['notes', { columns: [{ name: 'title', type: 'text', required: true }] }],
    ] as const) {
      const made = await request('setup', 'PUT', p(`/v1/tables/${table}`), admin, body);
      assert.equal(made.status, 201, made.text);
    }
    const limits = await request('setup', 'PATCH', p('/v1/settings'), admin, {
      rate_limits: { per_address_per_minute: 100_000, mails_per_email_per_hour: 100_000 },
    });
    assert.equal(limits.status, 200, limits.text);
    const origins = await request('setup', 'PUT', p('/v1/redirect-origins'), admin, {
      allowed_redirect_origins: ['https://app.example.com'],
    });
    assert.equal(origins.status, 200, origins.text);
    const user = await request(
      'setup',
      'POST',
      p('/auth/signup'),
      {},
      { email: 'ada@example.com', password: PASSWORD },
    );
    assert.equal(user.status, 201, user.text);
    bearer = { authorization: `Bearer ${JSON.parse(user.text).token}` };
    outcomes.length = 0;
  });

  after(async () => {
    if (server) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await smtp?.close();
    await cluster?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a clean stop (pg_ctl -m fast): 503 + Retry-After, back within seconds, no acknowledged write lost', async (t) => {
    const window = await outage('fast', 2_500);
    t.diagnostic(`${checkOutcomes(window)}; writes again ${window.recoveredInMs} ms after the start`);
    assert.ok(
      window.recoveredInMs < RECOVERY_MS,
      `writes work again ${window.recoveredInMs} ms after the database is back`,
    );
    assert.equal((await request('health', 'GET', '/health')).status, 200);
    const stored = await listTitles();
    assert.ok(acknowledged.size > 20, `enough acknowledged writes to mean something (${acknowledged.size})`);
    assert.deepEqual(
      [...acknowledged].filter((title) => !stored.has(title)),
      [],
      'every acknowledged write is stored',
    );
  });

  it('a crash (pg_ctl -m immediate, recovered from WAL): the same, and no acknowledged write lost', async (t) => {
    outcomes.length = 0;
    const window = await outage('immediate', 1_500);
    t.diagnostic(`${checkOutcomes(window)}; writes again ${window.recoveredInMs} ms after the start`);
    assert.ok(
      window.recoveredInMs < RECOVERY_MS,
      `writes work again ${window.recoveredInMs} ms after the database is back`,
    );
    const stored = await listTitles();
    assert.deepEqual(
      [...acknowledged].filter((title) => !stored.has(title)),
      [],
      'every acknowledged write is stored',
    );
  });

  it('a hung server (PostgreSQL SIGSTOPped, sockets open): 503 within the bound, then serving again', async (t) => {
    outcomes.length = 0;
    // Each request waits for its statement or connection timeout here, so few of the traffic's
    // requests fit wholly in the window: these probes, sent while it is frozen, certainly do.
    const probes = async () => {
      await Promise.all([
        readers[0]!(),
        readers[1]!(),
        readers[3]!(),
        readers[4]!(),
        request('write', 'POST', p('/api/notes'), admin, { title: 'during the freeze' }),
      ]);
    };
    const window = await outage('freeze', 1_000, probes);
    t.diagnostic(
      `${checkOutcomes(window, { minDuring: 4, minNames: 2 })}; ` +
        `writes again ${window.recoveredInMs} ms after the resume`,
    );
    assert.ok(
      window.recoveredInMs < RECOVERY_MS,
      `writes work again ${window.recoveredInMs} ms after the database resumed`,
    );
    const stored = await listTitles();
    assert.deepEqual(
      [...acknowledged].filter((title) => !stored.has(title)),
      [],
      'every acknowledged write is stored',
    );
  });

  it('the LISTEN connection is back by itself after the outage', async () => {
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      await eventually(
        async () =>
          (
            await client.query(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'rowbase-listen'",
            )
          ).rows[0].n === 1,
        { everyMs: 100, what: 'one listening connection, reconnected' },
      );
    } finally {
      await client.end();
    }
  });

  it('caches do not outlive an outage: settings changed while the server was blind are served after', async () => {
    const before = await request('settings', 'GET', p('/v1/settings'), admin);
    assert.deepEqual(
      JSON.parse(before.text).data.allowed_redirect_origins,
      ['https://app.example.com'],
      'cached before the outage',
    );
    // Like a restore or failover: the row changes without the change counter moving (triggers
    // off), on another port, so the server cannot see the database meanwhile.
    const rewrite = async () => {
      const hidden = await freePort();
      await cluster.start(hidden);
      const client = new pg.Client({ connectionString: cluster.urlOn(hidden) });
      await client.connect();
      try {
        await client.query("SET session_replication_role = 'replica'");
        const updated = await client.query(
          'UPDATE rowbase.project_settings SET settings = jsonb_set(settings, ' +
            `'{allowed_redirect_origins}', '["https://restored.example"]') WHERE project_id = 'outage'`,
        );
        assert.equal(updated.rowCount, 1);
      } finally {
        await client.end();
      }
      await cluster.stop('fast');
    };
    outcomes.length = 0;
    const window = await outage('fast', 500, rewrite);
    assert.ok(window.recoveredInMs < RECOVERY_MS);
    const afterwards = await request('settings', 'GET', p('/v1/settings'), admin);
    assert.equal(afterwards.status, 200, afterwards.text);
    assert.deepEqual(JSON.parse(afterwards.text).data.allowed_redirect_origins, ['https://restored.example']);
  });

  it('an open realtime stream through a hung server: the process lives, streams reopen, see new writes', async (t) => {
    const subscribe = async (stream: SseStream) => {
      const bound = await request('subscribe', 'POST', p('/realtime'), admin, {
        client_id: stream.clientId,
        subscriptions: ['notes'],
      });
      assert.equal(bound.status, 200, bound.text);
    };
    const held = await openStream(server.url, 'outage');
    await subscribe(held);
    // Streams of other projects opened and closed throughout, each project in turn: with no
    // stream of it left open, each opening loads that project's feed anew, and a load the freeze
    // catches fails while the poll waits on it.
    const others = Array.from({ length: 12 }, (_, i) => `outage-b${i}`);
    for (const id of others) {
      const other = await request(
        'setup',
        'POST',
        '/v1/projects',
        { 'x-platform-key': PROCESS_PLATFORM_KEY },
        { name: id, id },
      );
      assert.equal(other.status, 201, other.text);
    }
    let opening = true;
    let attempts = 0;
    const openers = async () => {
      while (opening) {
        attempts++;
        try {
          // Aborted once the answer starts: the connection closes, and with it the stream.
          const controller = new AbortController();
          const timer = setTimeout(() => controller.abort(), BOUND_MS);
          await fetch(`${server.url}/p/${others[attempts % others.length]}/realtime`, {
            signal: controller.signal,
          }).finally(() => clearTimeout(timer));
          controller.abort();
        } catch {
          // A refusal or an ended stream is fine here; the process staying up is what counts.
        }
        await sleep(10);
      }
    };
    const running = Promise.all([openers(), openers(), openers()]);
    outcomes.length = 0;
    await outage('freeze', 1_500);
    opening = false;
    await running;
    t.diagnostic(`${attempts} stream openings during the outage`);
    assert.equal(server.child.exitCode, null, `the server process is still running:\n${server.output()}`);
    assert.doesNotMatch(server.output(), /Unhandled|uncaught/i);
    const again = await openStream(server.url, 'outage');
    try {
      await subscribe(again);
      const wrote = await request('write', 'POST', p('/api/notes'), admin, { title: 'after the outage, live' });
      assert.equal(wrote.status, 201, wrote.text);
      const live = (event: { json?: { record?: { title?: string } } }) =>
        event.json?.record?.title === 'after the outage, live';
      await again.waitFor(1, live, 10_000);
      // The stream held through the outage either still delivers, or was ended cleanly.
      if (!held.ended) await held.waitFor(1, live, 10_000);
    } finally {
      again.close();
      held.close();
    }
  });

  it('the process never exited, and mail queued after the outage is sent', async () => {
    assert.equal(server.child.exitCode, null, `the server process is still running:\n${server.output()}`);
    assert.doesNotMatch(server.output(), /Unhandled|uncaught/i);
    const before = smtp.received.length;
    const signup = await request(
      'signup',
      'POST',
      p('/auth/signup'),
      {},
      { email: 'after@example.com', password: PASSWORD },
    );
    assert.equal(signup.status, 201, signup.text);
    await eventually(() => smtp.received.slice(before).some((mail) => mail.envelopeTo.includes('after@example.com')), {
      timeoutMs: 10_000,
      everyMs: 100,
      what: 'the mail queued after the outage',
    });
    assert.ok(
      smtp.received.slice(before).some((mail) => mail.envelopeTo.includes('after@example.com')),
      'the verification mail arrived',
    );
  });
});
