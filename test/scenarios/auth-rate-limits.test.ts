/**
 * Scenarios for the auth rate limits (contract §5) on a server started with RATE_LIMITS=on
 * and a fake clock: per client address on each limited endpoint, per email for failed
 * logins and for mails, the same for unknown emails, Retry-After, TRUST_PROXY.
 * Each scenario uses its own project, since counters are per project.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { bearer, createAuthProject, mailsTo, PASSWORD, signUp, waitForMail } from '../helpers/auth-fixtures.js';
import {
  startTestServer,
  TestClock,
  type TestProject,
  type TestResponse,
  type TestServer,
} from '../helpers/test-server.js';

const clock = new TestClock();
let server: TestServer;
before(async () => {
  server = await startTestServer({ RATE_LIMITS: 'on' }, { clock });
});
after(() => server.close());

const limits = (perAddress: number, failedLogins = 100, mails = 100) => ({
  rate_limits: {
    per_address_per_minute: perAddress,
    failed_logins_per_email: failedLogins,
    mails_per_email_per_hour: mails,
  },
  allowed_redirect_origins: ['https://app.example.com'],
});
const post = (project: TestProject, path: string, body: unknown, headers: Record<string, string> = {}) =>
  server.request('POST', `/p/${project.id}/auth/${path}`, { body, headers });

/** Asserts 429 RATE_LIMITED with a Retry-After of 1..max seconds. */
function assertLimited(response: TestResponse, maxSeconds: number): void {
  assertError(response, 429, 'RATE_LIMITED');
  const retryAfter = Number(response.headers.get('retry-after'));
  assert.ok(
    Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= maxSeconds,
    `Retry-After: ${response.headers.get('retry-after')}`,
  );
}

describe('per client address, each endpoint', () => {
  const endpoints: [string, (p: TestProject, i: number) => Promise<TestResponse>][] = [
    ['login', (p, i) => post(p, 'login', { email: `nobody${i}@example.com`, password: PASSWORD })],
    ['signup', (p) => post(p, 'signup', { email: 'not-an-email', password: PASSWORD })],
    [
      'forgot-password',
      (p, i) =>
        post(p, 'forgot-password', { email: `nobody${i}@example.com`, redirect_url: 'https://app.example.com/r' }),
    ],
    ['reset-password', (p) => post(p, 'reset-password', { token: 'A'.repeat(43), new_password: PASSWORD })],
    ['verify', (p) => server.request('GET', `/p/${p.id}/auth/verify?token=${'A'.repeat(43)}`)],
  ];
  for (const [name, call] of endpoints) {
    it(`${name}: the 4th request in a minute (limit 3) → 429 RATE_LIMITED + Retry-After; later allowed`, async () => {
      const project = await createAuthProject(server, { verifyEmail: true, settings: limits(3) });
      for (let i = 0; i < 3; i++) assert.notEqual((await call(project, i)).status, 429);
      assertLimited(await call(project, 3), 60);
      clock.advance(61);
      assert.notEqual((await call(project, 4)).status, 429);
    });
  }

  it('change-password looped (an argon2 verify each): the 4th in a minute (limit 3) → 429 RATE_LIMITED', async () => {
    const project = await createAuthProject(server, { settings: limits(3) });
    const user = await signUp(server, project, 'looper@example.com');
    const change = () =>
      post(
        project,
        'change-password',
        { current_password: 'not the password', new_password: PASSWORD },
        bearer(user.token),
      );
    for (let i = 0; i < 3; i++) assertError(await change(), 401, 'AUTH_INVALID_CREDENTIALS');
    assertLimited(await change(), 60);
    clock.advance(61);
    assertError(await change(), 401, 'AUTH_INVALID_CREDENTIALS');
  });

  it('each endpoint has its own counter: a limited login does not limit forgot-password', async () => {
    const project = await createAuthProject(server, { settings: limits(1) });
    await post(project, 'login', { email: 'a@example.com', password: PASSWORD });
    assertLimited(await post(project, 'login', { email: 'a@example.com', password: PASSWORD }), 60);
    assert.equal(
      (await post(project, 'forgot-password', { email: 'a@example.com', redirect_url: 'https://app.example.com/r' }))
        .status,
      200,
    );
  });

  it('without TRUST_PROXY, X-Forwarded-For does not buy a fresh counter', async () => {
    const project = await createAuthProject(server, { settings: limits(2) });
    for (let i = 0; i < 2; i++)
      await post(
        project,
        'login',
        { email: 'a@example.com', password: PASSWORD },
        { 'x-forwarded-for': `203.0.113.${i}` },
      );
    assertLimited(
      await post(
        project,
        'login',
        { email: 'a@example.com', password: PASSWORD },
        { 'x-forwarded-for': '203.0.113.99' },
      ),
      60,
    );
  });

  it('with TRUST_PROXY naming the proxy, each X-Forwarded-For client has its own counter', async () => {
    const proxied = await startTestServer({ RATE_LIMITS: 'on', TRUST_PROXY: '127.0.0.1' });
    try {
      const project = await createAuthProject(proxied, { settings: limits(1) });
      const login = (client: string) =>
        proxied.request('POST', `/p/${project.id}/auth/login`, {
          body: { email: 'a@example.com', password: PASSWORD },
          headers: { 'x-forwarded-for': client },
        });
      assert.equal((await login('203.0.113.1')).status, 401);
      assert.equal((await login('203.0.113.2')).status, 401);
      assertLimited(await login('203.0.113.1'), 60);
    } finally {
      await proxied.close();
    }
  });
});

describe('per email: failed logins', () => {
  it('known email: after 2 failures the right password too → 429, until 15 minutes pass', async () => {
    const project = await createAuthProject(server, { settings: limits(100, 2) });
    await signUp(server, project, 'ada@example.com');
    for (let i = 0; i < 2; i++)
      assertError(
        await post(project, 'login', { email: 'ada@example.com', password: 'wrong password!' }),
        401,
        'AUTH_INVALID_CREDENTIALS',
      );
    assertLimited(await post(project, 'login', { email: 'ADA@example.com', password: PASSWORD }), 900);
    clock.advance(14 * 60);
    assertLimited(await post(project, 'login', { email: 'ada@example.com', password: PASSWORD }), 60);
    clock.advance(61);
    assert.equal((await post(project, 'login', { email: 'ada@example.com', password: PASSWORD })).status, 200);
  });

  it('unknown email: the same sequence of answers', async () => {
    const project = await createAuthProject(server, { settings: limits(100, 2) });
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await post(project, 'login', { email: 'ghost@example.com', password: 'wrong password!' })).status);
    assert.deepEqual(statuses, [401, 401, 429]);
  });

  it('successful logins do not count; malformed bodies count against the address only', async () => {
    const project = await createAuthProject(server, { settings: limits(100, 2) });
    await signUp(server, project, 'bob@example.com');
    for (let i = 0; i < 3; i++)
      assert.equal((await post(project, 'login', { email: 'bob@example.com', password: PASSWORD })).status, 200);
    for (let i = 0; i < 3; i++)
      assertError(
        await post(project, 'login', { email: 'bob@example.com', password: { $ne: '' } }),
        400,
        'VALIDATION_FAILED',
      );
    assert.equal((await post(project, 'login', { email: 'bob@example.com', password: PASSWORD })).status, 200);
  });
});

describe('per email: mails', () => {
  it('forgot-password past the limit still answers 200 and sends nothing; unknown emails answer the same', async () => {
    const project = await createAuthProject(server, { settings: limits(100, 100, 2) });
    await signUp(server, project, 'carol@example.com');
    const answers: string[] = [];
    for (const email of ['carol@example.com', 'ghost@example.com']) {
      for (let i = 0; i < 4; i++) {
        const response = await post(project, 'forgot-password', { email, redirect_url: 'https://app.example.com/r' });
        assert.equal(response.status, 200);
        answers.push(response.text);
      }
    }
    assert.equal(new Set(answers).size, 1);
    // Stored requests are resolved in a batch 100-200 ms after the answers: wait for the two
    // allowed mails, then past another batch window, and check no third one came.
    await waitForMail(server, project, 'carol@example.com', 2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal((await mailsTo(server, project, 'carol@example.com')).length, 2);
    clock.advance(3601);
    assert.equal(
      (
        await post(project, 'forgot-password', {
          email: 'carol@example.com',
          redirect_url: 'https://app.example.com/r',
        })
      ).status,
      200,
    );
    await waitForMail(server, project, 'carol@example.com', 3, 3000);
    assert.equal((await mailsTo(server, project, 'carol@example.com')).length, 3);
  });

  it('a refused redirect_url counts against the address, not the email', async () => {
    const project = await createAuthProject(server, { settings: limits(4, 100, 1) });
    await signUp(server, project, 'dan@example.com');
    for (let i = 0; i < 3; i++)
      assertError(
        await post(project, 'forgot-password', { email: 'dan@example.com', redirect_url: 'https://evil.com/r' }),
        400,
        'VALIDATION_REDIRECT_URL',
      );
    assert.equal(
      (await post(project, 'forgot-password', { email: 'dan@example.com', redirect_url: 'https://app.example.com/r' }))
        .status,
      200,
    );
    assertLimited(
      await post(project, 'forgot-password', { email: 'dan@example.com', redirect_url: 'https://app.example.com/r' }),
      60,
    );
    await waitForMail(server, project, 'dan@example.com', 1, 3000);
    assert.equal((await mailsTo(server, project, 'dan@example.com')).length, 1, 'the one allowed mail went out');
  });

  it("resend-verification past the limit → 429 RATE_LIMITED with Retry-After (signup's mail counts)", async () => {
    const project = await createAuthProject(server, { verifyEmail: true, settings: limits(100, 100, 2) });
    const erin = await signUp(server, project, 'erin@example.com');
    assert.equal((await post(project, 'resend-verification', undefined, bearer(erin.token))).status, 200);
    assertLimited(await post(project, 'resend-verification', undefined, bearer(erin.token)), 3600);
    assert.equal((await mailsTo(server, project, 'erin@example.com')).length, 2);
  });
});

describe('RATE_LIMITS=off', () => {
  it('disables every limit, whatever the settings say', async () => {
    const open = await startTestServer({ RATE_LIMITS: 'off' });
    try {
      const project = await createAuthProject(open, { settings: limits(1, 1, 1) });
      for (let i = 0; i < 4; i++) {
        const response = await open.request('POST', `/p/${project.id}/auth/login`, {
          body: { email: 'x@example.com', password: PASSWORD },
        });
        assertError(response, 401, 'AUTH_INVALID_CREDENTIALS');
      }
    } finally {
      await open.close();
    }
  });
});

describe("the password hasher's wait queue (shared by every project)", () => {
  it('a burst past the queue bound → 503 SERVICE_UNAVAILABLE, Retry-After: 1 for the excess; then OK', async () => {
    const small = await startTestServer({}, { hasher: { maxConcurrent: 1, maxWaiting: 2 } });
    try {
      const project = await createAuthProject(small);
      await signUp(small, project, 'kim@example.com');
      const login = (password: string) =>
        small.request('POST', `/p/${project.id}/auth/login`, { body: { email: 'kim@example.com', password } });
      const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => login(`wrong password ${i}`)));
      const refused = burst.filter((response) => response.status === 503);
      assert.ok(refused.length > 0, 'the queue bound was never reached');
      for (const response of refused) {
        assertError(response, 503, 'SERVICE_UNAVAILABLE');
        assert.equal(response.headers.get('retry-after'), '1');
      }
      const answered = burst.filter((response) => response.status !== 503);
      assert.ok(answered.length >= 3, `only ${answered.length} answered: one running and two waiting fit`);
      for (const response of answered) assertError(response, 401, 'AUTH_INVALID_CREDENTIALS');
      assert.equal((await login(PASSWORD)).status, 200);
    } finally {
      await small.close();
    }
  });

  it('a login refused with 503 is not a failed attempt: it does not count toward failed_logins_per_email', async () => {
    const small = await startTestServer({ RATE_LIMITS: 'on' }, { hasher: { maxConcurrent: 1, maxWaiting: 1 } });
    try {
      const project = await createAuthProject(small, { settings: limits(100, 5) });
      await signUp(small, project, 'kim@example.com');
      const login = (password: string) =>
        small.request('POST', `/p/${project.id}/auth/login`, { body: { email: 'kim@example.com', password } });
      const burst = await Promise.all(Array.from({ length: 5 }, (_, i) => login(`wrong password ${i}`)));
      const refused = burst.filter((response) => response.status === 503).length;
      assert.ok(refused > 0, 'the queue bound was never reached');
      assert.deepEqual(
        burst.filter((response) => response.status !== 503).map((response) => response.status),
        Array(5 - refused).fill(401),
      );
      // 5 - refused failed attempts count; were the refused ones counted too, the limit of 5 would be spent.
      assert.equal((await login(PASSWORD)).status, 200);
    } finally {
      await small.close();
    }
  });
});
