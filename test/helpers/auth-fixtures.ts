/**
 * Builders for the auth scenario tests: a project with an auth table, signed-up users,
 * settings changes, and reading mail from the project's outbox (GET /p/{id}/v1/emails).
 */
import assert from 'node:assert/strict';
import type { MailView } from '../../src/email/mail-queue.js';
import { eventually } from './eventually.js';
import { createProject, putTable, type TestProject, type TestServer } from './test-server.js';

export const PASSWORD = 'correct horse battery';

/** Options of the auth table a test project gets. */
export interface AuthProjectOptions {
  readonly table?: string;
  readonly columns?: readonly unknown[];
  readonly verifyEmail?: boolean;
  readonly rules?: Record<string, string | null>;
  /** Settings to PATCH right after creation. */
  readonly settings?: Record<string, unknown>;
}

/** Creates a project with an auth table (`users` unless named) and optional settings. */
export async function createAuthProject(server: TestServer, options: AuthProjectOptions = {}): Promise<TestProject> {
  const project = await createProject(server);
  await putTable(server, project, options.table ?? 'users', {
    columns: options.columns ?? [{ name: 'name', type: 'text' }],
    auth_table: true,
    verify_email: options.verifyEmail ?? false,
    ...(options.rules && { rules: options.rules }),
  });
  if (options.settings) await patchSettings(server, project, options.settings);
  return project;
}

/** PATCHes project settings; throws unless 200. */
export async function patchSettings(
  server: TestServer,
  project: TestProject,
  patch: Record<string, unknown>,
): Promise<void> {
  const response = await server.request('PATCH', `/p/${project.id}/v1/settings`, {
    headers: project.admin,
    body: patch,
  });
  assert.equal(response.status, 200, `PATCH settings failed: ${response.text}`);
}

/** A signed-in user as signup returns it. */
export interface SignedUp {
  readonly token: string;
  readonly refresh_token: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly user: any;
}

/** Signs a user up; throws unless 201. */
export async function signUp(
  server: TestServer,
  project: TestProject,
  email: string,
  extra: Record<string, unknown> = {},
  password = PASSWORD,
): Promise<SignedUp> {
  const response = await server.request('POST', `/p/${project.id}/auth/signup`, {
    body: { email, password, ...extra },
  });
  assert.equal(response.status, 201, `signup failed: ${response.text}`);
  return response.body;
}

/** Logs a user in; throws unless 200. */
export async function logIn(
  server: TestServer,
  project: TestProject,
  email: string,
  password = PASSWORD,
): Promise<SignedUp> {
  const response = await server.request('POST', `/p/${project.id}/auth/login`, { body: { email, password } });
  assert.equal(response.status, 200, `login failed: ${response.text}`);
  return response.body;
}

/** The Authorization header for an access token. */
export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** One outbox item, as GET /p/{id}/v1/emails answers it. */
export type OutboxMail = MailView;

/** Every mail in the project's outbox, newest first. */
export async function outbox(server: TestServer, project: TestProject): Promise<OutboxMail[]> {
  const response = await server.request('GET', `/p/${project.id}/v1/emails?limit=1000`, { headers: project.admin });
  assert.equal(response.status, 200, response.text);
  return response.body.data;
}

/** Mails to `to`, newest first. */
export async function mailsTo(server: TestServer, project: TestProject, to: string): Promise<OutboxMail[]> {
  return (await outbox(server, project)).filter((mail) => mail.to === to);
}

/**
 * Waits until `to` has received `count` mails (forgot-password queues in the background)
 * and returns the newest. Throws after `timeoutMs`.
 */
export async function waitForMail(
  server: TestServer,
  project: TestProject,
  to: string,
  count = 1,
  timeoutMs = 5000,
): Promise<OutboxMail> {
  return eventually(
    async () => {
      const mails = await mailsTo(server, project, to);
      return mails.length >= count ? mails[0]! : undefined;
    },
    { timeoutMs, everyMs: 20, what: `mail #${count} to ${to}` },
  );
}

/** The link in a mail's text body (the first http(s) URL). */
export function linkIn(mail: OutboxMail): URL {
  const match = /https?:\/\/\S+/.exec(mail.text);
  assert.ok(match, `no link in mail: ${mail.text}`);
  return new URL(match[0]);
}

/** The `token` query parameter of the mail's link. */
export function tokenIn(mail: OutboxMail): string {
  const token = linkIn(mail).searchParams.get('token');
  assert.ok(token, `no token in link of: ${mail.text}`);
  return token;
}

/** The project's current JWT secret, for forging tokens in negative tests. */
export async function jwtSecretOf(server: TestServer, project: TestProject): Promise<string> {
  return (await server.built.services.registry.get(project.id)).jwtSecret;
}

/** Decodes a JWT's payload without checking it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function jwtPayload(token: string): any {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

/**
 * Seeds the project the backup tests restore: `backed-up` with an auth table holding
 * kept@example.com and a `notes` table holding "one" and "two".
 */
export async function seedBackedUpProject(server: TestServer): Promise<TestProject> {
  const project = await createProject(server, 'backed-up');
  await putTable(server, project, 'users', { columns: [], auth_table: true });
  await putTable(server, project, 'notes', { columns: [{ name: 'body', type: 'text' }] });
  await signUp(server, project, 'kept@example.com');
  for (const body of ['one', 'two']) {
    const created = await server.request('POST', '/p/backed-up/api/notes', { headers: project.admin, body: { body } });
    assert.equal(created.status, 201, created.text);
  }
  return project;
}
