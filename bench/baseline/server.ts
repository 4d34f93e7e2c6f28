/**
 * The baseline: the least a hand-written server must do to answer the benchmark's data
 * requests with Rowbase's endpoints and response shapes. Fastify + better-sqlite3, prepared
 * statements, Rowbase's default SQLite durability done the plain way (WAL with
 * synchronous=FULL: a 2xx write is on disk; Rowbase gets the same guarantee by syncing the WAL
 * off the event loop, see docs/benchmarks.md), foreign keys on, and nothing else: no
 * credentials, no rules, no validation, no error catalogue. The one exception is the tables whose
 * view rule is `owner = @request.auth.id` (notes, issue 26): they answer only a signed-in user,
 * with a bearer token checked as a careful server would (bearer.ts: HS256 with jose, then the
 * session and the password version read per request) and only the rows that user owns.
 *
 * Responses go through Fastify response schemas (fast-json-stringify), one route per table.
 *
 * Usage: node --import tsx bench/baseline/server.ts --db FILE [--system-db FILE --project ID] [--port N]
 * It serves the tables of bench/schema.ts from FILE (a copy of the Rowbase project file, so
 * both servers read the same rows through the same indexes, and the same sessions) and prints
 * "listening on URL". `--system-db` (a copy of Rowbase's system.db) is where project ID's JWT
 * secret is read from, once at start; without it, signed-in routes answer 401.
 */
import BetterSqlite3 from 'better-sqlite3';
import Fastify from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { BENCH_TABLES, type BenchTable } from '../schema.js';
import { type BearerError, importJwtKey, isCurrent, refused, verifyBearer } from './bearer.js';

const BULK_BODY_LIMIT = 16 * 1024 * 1024;
const q = (name: string) => `"${name}"`;

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}

const file = argument('db');
if (!file) throw new Error('usage: server.ts --db FILE [--port N]');

const db = new BetterSqlite3(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 5000');

type Row = Record<string, unknown>;

/** One table's prepared statements and row decoder, built once at start. */
interface ServedTable {
  readonly table: BenchTable;
  readonly byId: BetterSqlite3.Statement;
  readonly insert: BetterSqlite3.Statement;
  readonly declared: readonly string[];
  readonly statements: Map<string, BetterSqlite3.Statement>;
  decode(row: Row): Row;
}

function serve(table: BenchTable): ServedTable {
  const columns = table.columns.map((c) => q(c.name)).join(', ');
  const booleans = table.columns.filter((c) => c.type === 'boolean').map((c) => c.name);
  const declared = table.columns
    .map((c) => c.name)
    .filter(
      (name) =>
        name !== 'id' &&
        name !== 'created_at' &&
        name !== 'updated_at' &&
        name !== 'email' &&
        name !== 'email_verified',
    );
  const insertColumns = ['id', 'created_at', 'updated_at', ...declared];
  return {
    table,
    byId: db.prepare(`SELECT ${columns} FROM ${q(table.name)} WHERE ${q('id')} = ?`),
    insert: db.prepare(
      `INSERT INTO ${q(table.name)} (${insertColumns.map(q).join(', ')}) ` +
        `VALUES (${insertColumns.map(() => '?').join(', ')}) RETURNING ${columns}`,
    ),
    declared,
    statements: new Map(),
    decode(row) {
      for (const name of booleans) row[name] = row[name] === 1;
      return row;
    },
  };
}

const tables = new Map(BENCH_TABLES.map((t) => [t.name, serve(t)]));

function statement(served: ServedTable, key: string, sql: () => string): BetterSqlite3.Statement {
  let prepared = served.statements.get(key);
  if (!prepared) {
    prepared = db.prepare(sql());
    served.statements.set(key, prepared);
  }
  return prepared;
}

function insertRow(served: ServedTable, body: Row, now: string): Row {
  const values = served.declared.map((name) => {
    const value = body[name] ?? (name === 'done' ? false : null);
    return typeof value === 'boolean' ? (value ? 1 : 0) : value;
  });
  const id = typeof body.id === 'string' ? body.id : uuidv7();
  return served.decode(served.insert.get(id, now, now, ...values) as Row);
}

/**
 * `INSERT ... ON CONFLICT (column) DO UPDATE` of one row, for bulk upserts (`?on_conflict=`,
 * a unique column of the table): every column but id and created_at takes the sent value.
 */
function upsertStatement(served: ServedTable, column: string): BetterSqlite3.Statement {
  const columns = served.table.columns.map((c) => q(c.name)).join(', ');
  const insertColumns = ['id', 'created_at', 'updated_at', ...served.declared];
  const updated = ['updated_at', ...served.declared.filter((name) => name !== column)];
  return statement(
    served,
    `upsert:${column}`,
    () =>
      `INSERT INTO ${q(served.table.name)} (${insertColumns.map(q).join(', ')}) ` +
      `VALUES (${insertColumns.map(() => '?').join(', ')}) ON CONFLICT (${q(column)}) DO UPDATE SET ` +
      `${updated.map((name) => `${q(name)} = excluded.${q(name)}`).join(', ')} RETURNING ${columns}`,
  );
}

function upsertRow(served: ServedTable, upsert: BetterSqlite3.Statement, body: Row, now: string): Row {
  const values = served.declared.map((name) => {
    const value = body[name] ?? (name === 'done' ? false : null);
    return typeof value === 'boolean' ? (value ? 1 : 0) : value;
  });
  return served.decode(upsert.get(uuidv7(), now, now, ...values) as Row);
}

/** The project's JWT secret, as Rowbase stores it (system.db, `project_settings`), read once. */
function readJwtSecret(systemFile: string, project: string): string {
  const system = new BetterSqlite3(systemFile, { readonly: true, fileMustExist: true });
  try {
    const secret = system
      .prepare('SELECT "jwt_secret" FROM "project_settings" WHERE "project_id" = ?')
      .pluck()
      .get(project);
    if (typeof secret !== 'string') throw new Error(`no JWT secret for project ${project} in ${systemFile}`);
    return secret;
  } finally {
    system.close();
  }
}

const systemDb = argument('system-db');
const jwtKey = systemDb ? await importJwtKey(readJwtSecret(systemDb, argument('project') ?? 'bench')) : undefined;
const authTable = BENCH_TABLES.find((t) => t.definition.auth_table === true)!;
// The session by primary key and its user's password version by primary key, in one statement.
const sessionOf = db.prepare(
  `SELECT s."expires_at", s."revoked_at", u."password_version" FROM "_rb_sessions" s ` +
    `JOIN ${q(authTable.name)} u ON u."id" = s."user_id" WHERE s."id" = ? AND s."user_id" = ?`,
);

/** The signed-in user's id, or the 401 answer: a valid token whose session is live and password version current. */
async function signedInUser(header: string | undefined): Promise<string | BearerError> {
  if (!jwtKey) return refused('AUTH_INVALID_TOKEN', 'The baseline was started without --system-db.');
  const claims = await verifyBearer(header, jwtKey);
  if ('error' in claims) return claims;
  const session = sessionOf.get(claims.sessionId, claims.userId) as Parameters<typeof isCurrent>[0];
  if (!isCurrent(session, claims, new Date().toISOString()))
    return refused('AUTH_INVALID_TOKEN', 'The session has ended or the password was changed.');
  return claims.userId;
}

/** Tables whose view and list rules are `owner = @request.auth.id`: only their owner reads their rows. */
const isOwnerTable = (table: BenchTable) =>
  (table.definition.rules as { view?: unknown } | undefined)?.view === 'owner = @request.auth.id';

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
const notFound = (what: string) => ({
  error: { code: 'NOT_FOUND', message: `${what} not found`, suggestion: 'Check the path.' },
});

// Rowbase's answer for a row that does not exist and one outside the view rule alike.
const ROW_NOT_FOUND = {
  error: { code: 'ROW_NOT_FOUND', message: 'No such row is visible to this caller.', suggestion: 'Check the id.' },
};

type TableRoute = { Params: { id: string } };
type RowRoute = { Params: { id: string; rowId: string } };

/** The JSON schema of a table's rows: Fastify compiles it into a serialiser (fast-json-stringify). */
function rowSchema(table: BenchTable): Record<string, unknown> {
  const types = {
    text: ['string', 'null'],
    integer: ['integer', 'null'],
    boolean: 'boolean',
    timestamp: 'string',
  } as const;
  return {
    type: 'object',
    properties: Object.fromEntries(table.columns.map((c) => [c.name, { type: types[c.type] }])),
  };
}

type Schema = Record<string, unknown>;

/** GET by id and the list of a table anyone may read (view and list rules ""). */
function registerReads(served: ServedTable, one: Schema, page: Schema): void {
  const base = `/p/:id/api/${served.table.name}`;
  app.get<RowRoute>(`${base}/:rowId`, { schema: one }, async (request, reply) => {
    const found = served.byId.get(request.params.rowId) as Row | undefined;
    if (!found) return reply.code(404).send(notFound('row'));
    return { data: served.decode(found) };
  });

  // Only what the benchmark sends: filter=<column> = '<text>', sort=[-]<column>, limit, offset, count=none.
  app.get<TableRoute & { Querystring: Record<string, string | undefined> }>(
    base,
    { schema: { response: { 200: page } } },
    async (request) => {
      const query = request.query;
      const filter = query.filter ? /^\s*([a-z_]+)\s*=\s*'([^']*)'\s*$/.exec(query.filter) : null;
      const sort = query.sort ?? 'created_at';
      const sortColumn = sort.startsWith('-') ? sort.slice(1) : sort;
      const limit = Math.min(query.limit === undefined ? 50 : Number(query.limit), 1000);
      const offset = query.offset === undefined ? 0 : Number(query.offset);
      const where = filter ? ` WHERE ${q(filter[1]!)} = ?` : '';
      const params = filter ? [filter[2]!] : [];
      const columns = served.table.columns.map((c) => q(c.name)).join(', ');
      const pageStatement = statement(
        served,
        `page:${filter?.[1]}:${sort}:${offset > 0}`,
        () =>
          `SELECT ${columns} FROM ${q(served.table.name)}${where} ` +
          `ORDER BY ${q(sortColumn)} ${sort.startsWith('-') ? 'DESC' : 'ASC'}, "id" ASC ` +
          `LIMIT ?${offset > 0 ? ' OFFSET ?' : ''}`,
      );
      const rows = (pageStatement.all(...params, limit, ...(offset > 0 ? [offset] : [])) as Row[]).map((r) =>
        served.decode(r),
      );
      let total: number | null = null;
      if (query.count !== 'none') {
        total = statement(
          served,
          `count:${filter?.[1]}`,
          () => `SELECT count(*) AS n FROM ${q(served.table.name)}${where}`,
        )
          .pluck()
          .get(...params) as number;
      }
      return { data: rows, meta: { total, limit, offset, next_cursor: null } };
    },
  );
}

/**
 * GET by id and the list of a table with view and list rule `owner = @request.auth.id` (issue 26):
 * the signed-in user's rows only (another's row is 404, as not found). Only what the benchmark
 * sends: sort=[-]<column>, limit, offset, count=none.
 */
function registerOwnerReads(served: ServedTable, one: Schema, page: Schema): void {
  const base = `/p/:id/api/${served.table.name}`;
  const columns = served.table.columns.map((c) => q(c.name)).join(', ');
  const from = `FROM ${q(served.table.name)} WHERE "owner" = ?`;
  const owned = db.prepare(`SELECT ${columns} ${from} AND "id" = ?`);
  const count = db.prepare(`SELECT count(*) AS n ${from}`).pluck();

  app.get<RowRoute>(`${base}/:rowId`, { schema: one }, async (request, reply) => {
    const user = await signedInUser(request.headers.authorization);
    if (typeof user !== 'string') return reply.code(401).send(user);
    const found = owned.get(user, request.params.rowId) as Row | undefined;
    if (!found) return reply.code(404).send(ROW_NOT_FOUND);
    return { data: served.decode(found) };
  });

  app.get<TableRoute & { Querystring: Record<string, string | undefined> }>(
    base,
    { schema: { response: { 200: page } } },
    async (request, reply) => {
      const user = await signedInUser(request.headers.authorization);
      if (typeof user !== 'string') return reply.code(401).send(user);
      const query = request.query;
      const sort = query.sort ?? 'created_at';
      const direction = sort.startsWith('-') ? 'DESC' : 'ASC';
      const limit = Math.min(query.limit === undefined ? 50 : Number(query.limit), 1000);
      const offset = query.offset === undefined ? 0 : Number(query.offset);
      const pageStatement = statement(
        served,
        `owned:${sort}`,
        () =>
          `SELECT ${columns} ${from} ORDER BY ${q(sort.replace(/^-/, ''))} ${direction}, "id" ${direction} ` +
          'LIMIT ? OFFSET ?',
      );
      const rows = (pageStatement.all(user, limit, offset) as Row[]).map((r) => served.decode(r));
      const total = query.count === 'none' ? null : (count.get(user) as number);
      return { data: rows, meta: { total, limit, offset, next_cursor: null } };
    },
  );
}

// One set of routes per table (static paths), each with response schemas, as a hand-written server would have.
for (const served of tables.values()) {
  const base = `/p/:id/api/${served.table.name}`;
  const row = rowSchema(served.table);
  const one = {
    response: {
      200: { type: 'object', properties: { data: row } },
      201: { type: 'object', properties: { data: row } },
    },
  };
  const many = { type: 'object', properties: { data: { type: 'array', items: row } } };
  const page = {
    type: 'object',
    properties: {
      data: { type: 'array', items: row },
      meta: {
        type: 'object',
        properties: {
          total: { type: ['integer', 'null'] },
          limit: { type: 'integer' },
          offset: { type: 'integer' },
          next_cursor: { type: 'null' },
        },
      },
    },
  };

  if (isOwnerTable(served.table)) registerOwnerReads(served, one, page);
  else registerReads(served, one, page);

  app.post<TableRoute & { Body: Row }>(base, { schema: one }, async (request, reply) => {
    const created = insertRow(served, request.body, new Date().toISOString());
    return reply.code(201).send({ data: created });
  });

  app.post<TableRoute & { Body: Row[]; Querystring: { on_conflict?: string } }>(
    `${base}/bulk`,
    { bodyLimit: BULK_BODY_LIMIT, schema: { response: { 200: many, 201: many } } },
    async (request, reply) => {
      const now = new Date().toISOString();
      const column = request.query.on_conflict;
      if (column !== undefined) {
        // Only what the benchmark sends: a unique declared column (stock.sku).
        if (!served.declared.includes(column)) return reply.code(400).send(notFound('column'));
        const upsert = upsertStatement(served, column);
        const rows = db.transaction((bodies: Row[]) => bodies.map((body) => upsertRow(served, upsert, body, now)))(
          request.body,
        );
        return reply.code(200).send({ data: rows });
      }
      const rows = db.transaction((bodies: Row[]) => bodies.map((body) => insertRow(served, body, now)))(request.body);
      return reply.code(201).send({ data: rows });
    },
  );
}

/** One operation of POST /api/batch, as the benchmark sends it. */
interface BatchOperation {
  readonly method: 'POST' | 'PATCH' | 'DELETE';
  readonly table: string;
  readonly id?: string;
  readonly body?: Row;
}

/** UPDATE ... SET the columns `body` names ... RETURNING, prepared once per table and column list. */
function updateRow(served: ServedTable, id: string, body: Row, now: string): Row | undefined {
  const names = Object.keys(body);
  const update = statement(
    served,
    `update:${names.join(',')}`,
    () =>
      `UPDATE ${q(served.table.name)} SET ${[...names, 'updated_at'].map((n) => `${q(n)} = ?`).join(', ')} ` +
      `WHERE "id" = ? RETURNING ${served.table.columns.map((c) => q(c.name)).join(', ')}`,
  );
  const values = names.map((n) => (typeof body[n] === 'boolean' ? (body[n] ? 1 : 0) : body[n]));
  const row = update.get(...values, now, id) as Row | undefined;
  return row && served.decode(row);
}

// The batch (contract §18) by hand: the operations in order in one transaction, no rules, no checks.
app.post<{ Body: { operations: BatchOperation[] } }>(
  '/p/:id/api/batch',
  { bodyLimit: BULK_BODY_LIMIT },
  async (request) => {
    const now = new Date().toISOString();
    const run = db.transaction((operations: BatchOperation[]) =>
      operations.map((operation) => {
        const served = tables.get(operation.table)!;
        if (operation.method === 'POST')
          return { status: 201, body: { data: insertRow(served, operation.body!, now) } };
        if (operation.method === 'PATCH')
          return { status: 200, body: { data: updateRow(served, operation.id!, operation.body!, now) } };
        statement(served, 'delete', () => `DELETE FROM ${q(served.table.name)} WHERE "id" = ?`).run(operation.id);
        return { status: 204, body: null };
      }),
    );
    return { data: run(request.body.operations) };
  },
);

// Update by filter (issue 25): one UPDATE ... WHERE <column> = ? setting the body's columns, answering the count.
const COUNT = { type: 'object', properties: { data: { type: 'object', properties: { count: { type: 'integer' } } } } };
for (const served of tables.values()) {
  app.patch<TableRoute & { Querystring: Record<string, string | undefined>; Body: Row }>(
    `/p/:id/api/${served.table.name}`,
    { schema: { response: { 200: COUNT } } },
    async (request, reply) => {
      const filter = /^\s*([a-z_]+)\s*=\s*'([^']*)'\s*$/.exec(request.query.filter ?? '');
      if (!filter || !served.table.columns.some((c) => c.name === filter[1]))
        return reply.code(400).send(notFound('filter'));
      const names = served.declared.filter((name) => name in request.body);
      const update = statement(
        served,
        `update:${filter[1]}:${names.join(',')}`,
        () =>
          `UPDATE ${q(served.table.name)} SET ${names.map((n) => `${q(n)} = ?, `).join('')}"updated_at" = ? ` +
          `WHERE ${q(filter[1]!)} = ?`,
      );
      const values = names.map((name) => {
        const value = request.body[name];
        return typeof value === 'boolean' ? (value ? 1 : 0) : value;
      });
      const { changes } = update.run(...values, new Date().toISOString(), filter[2]);
      return { data: { count: changes } };
    },
  );
}

app.get('/health', async () => ({ status: 'ok' }));

const address = await app.listen({ host: '127.0.0.1', port: Number(argument('port') ?? 0) });
process.stdout.write(`Baseline listening on ${address}\n`);
const stop = () => {
  void app.close().then(() => db.close());
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
