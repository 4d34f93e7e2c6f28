/**
 * Test fixtures: a real server on 127.0.0.1 over a temporary data folder, and builders for
 * projects and tables. Every scenario file starts its own server; nothing is mocked.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp, type AppOptions, type BuiltApp } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/config.js';
import type { Clock } from '../../src/lib/clock.js';
import { checkAnswer } from './openapi-truth.js';
import { createTestDatabase, testEngine } from './test-database.js';

export const PLATFORM_KEY = 'rb_test_platform_key_0123456789abcdef';

export interface TestServer {
  readonly url: string;
  readonly built: BuiltApp;
  readonly dataDir: string;
  /** Sends a request; JSON bodies are encoded and decoded. */
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface RequestOptions {
  readonly headers?: Record<string, string>;
  /** A value to send as JSON, or a raw string (sent as is). */
  readonly body?: unknown;
  readonly rawBody?: string;
}

export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
  readonly text: string;
}

/** A fake clock tests can move forward. */
export class TestClock implements Clock {
  constructor(private ms = Date.now()) {}
  now(): number {
    return this.ms;
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

/** Starts a server on a random port over a fresh data folder. `env` adds settings. */
export async function startTestServer(
  env: Record<string, string> = {},
  options: AppOptions & { dataDir?: string } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'rowbase-test-'));
  // ROWBASE_TEST_ENGINE=postgres: a fresh database per server (the same one again for a reused dataDir).
  const database =
    testEngine() === 'postgres' && env.DATABASE_URL === undefined
      ? await createTestDatabase(options.dataDir)
      : undefined;
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    PLATFORM_KEY,
    RATE_LIMITS: 'off',
    ...(database && { DATABASE_URL: database.url }),
    ...env,
    DATA_DIR: dataDir,
    PORT: '0',
  });
  const built = await buildApp(config, options);
  const address = await built.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url: address,
    built,
    dataDir,
    request: async (method, route, requestOptions = {}) => {
      const response = await send(address, method, route, requestOptions);
      // Every answer on a path the project's OpenAPI document describes must match it (contract §9).
      await checkAnswer(built.services, method, route, response);
      return response;
    },
    async close() {
      await built.app.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (database && !options.dataDir) await database.drop();
    },
  };
}

async function send(base: string, method: string, route: string, options: RequestOptions): Promise<TestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${base}${route}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

export interface TestProject {
  readonly id: string;
  readonly adminKey: string;
  readonly publishableKey: string;
  /** Headers for the admin key. */
  readonly admin: Record<string, string>;
  /** Headers for the publishable key. */
  readonly anon: Record<string, string>;
}

/** Creates a project through the platform API. */
export async function createProject(server: TestServer, id?: string): Promise<TestProject> {
  const response = await server.request('POST', '/v1/projects', {
    headers: { 'x-platform-key': PLATFORM_KEY },
    body: { name: id ?? 'test project', ...(id && { id }) },
  });
  if (response.status !== 201) throw new Error(`project creation failed: ${response.status} ${response.text}`);
  const data = response.body.data;
  return {
    id: data.id,
    adminKey: data.admin_key,
    publishableKey: data.publishable_key,
    admin: { 'x-admin-key': data.admin_key },
    anon: { 'x-api-key': data.publishable_key },
  };
}

/** Declares a table through the schema API; throws unless it succeeds. */
export async function putTable(
  server: TestServer,
  project: TestProject,
  name: string,
  definition: unknown,
): Promise<void> {
  const response = await server.request('PUT', `/p/${project.id}/v1/tables/${name}`, {
    headers: project.admin,
    body: definition,
  });
  if (response.status !== 201 && response.status !== 200)
    throw new Error(`PUT table ${name} failed: ${response.status} ${response.text}`);
}
