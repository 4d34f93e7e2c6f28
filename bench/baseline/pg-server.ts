/**
 * The PostgreSQL baseline: the least a hand-written server must do to answer the benchmark's
 * data requests on PostgreSQL with Rowbase's endpoints and response shapes. Fastify + `pg`
 * (a pool of 10, as Rowbase's default), named prepared statements, response schemas, and
 * nothing else: no credentials, no rules, no validation, no error catalogue. The one exception is
 * the tables whose view rule is `owner = @request.auth.id` (notes, issue 26): they answer only a
 * signed-in user, with a bearer token checked as a careful server would (bearer.ts: HS256 with
 * jose, then the session and the password version read per request) and only that user's rows.
 *
 * Usage: node --import tsx bench/baseline/pg-server.ts --url postgres://... --schema p_bench [--port N]
 * It serves the tables of bench/schema.ts from the project schema Rowbase created in that
 * database (same rows, same indexes, same sessions as the Rowbase process it is compared with),
 * and reads the project's JWT secret from Rowbase's system schema once at start.
 */
import Fastify from 'fastify';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { BENCH_TABLES, type BenchTable } from '../schema.js';
import { type BearerError, importJwtKey, isCurrent, refused, verifyBearer } from './bearer.js';

const BULK_BODY_LIMIT = 16 * 1024 * 1024;
const q = (name: string) => `"${name}"`;

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}

const url = argument('url');
const schema = argument('schema');
if (!url || !schema) throw new Error('usage: pg-server.ts --url URL --schema NAME [--port N]');

const INT8_OID = 20;
const pool = new pg.Pool({
  connectionString: url,
  max: 10,
  // bigint as a number (the benchmark's integers are small);
  // timestamptz stays a Date, written as ISO by the serialiser.
  types: {
    getTypeParser: (oid: number, format?: 'text' | 'binary') =>
      oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format ?? 'text'),
  } as pg.CustomTypesConfig,
});

type Row = Record<string, unknown>;

/** The project's JWT secret, as Rowbase stores it (`rowbase.project_settings`), read once. */
async function readJwtSecret(project: string): Promise<string> {
  const result = await pool.query('SELECT jwt_secret FROM rowbase.project_settings WHERE project_id = $1', [project]);
  const secret = (result.rows[0] as { jwt_secret?: unknown } | undefined)?.jwt_secret;
  if (typeof secret !== 'string') throw new Error(`no JWT secret for project ${project}`);
  return secret;
}

const jwtKey = await importJwtKey(await readJwtSecret(argument('project') ?? schema.replace(/^p_/, '')));
const authTable = BENCH_TABLES.find((t) => t.definition.auth_table === true)!;
// The session by primary key and its user's password version by primary key, in one statement.
const sessionQuery = {
  name: 'session',
  text:
    `SELECT s.expires_at, s.revoked_at, u.password_version FROM ${q(schema)}."_rb_sessions" s ` +
    `JOIN ${q(schema)}.${q(authTable.name)} u ON u.id = s.user_id WHERE s.id = $1 AND s.user_id = $2`,
};

/** The signed-in user's id, or the 401 answer: a valid token whose session is live and password version current. */
async function signedInUser(header: string | undefined): Promise<string | BearerError> {
  const claims = await verifyBearer(header, jwtKey);
  if ('error' in claims) return claims;
  const result = await pool.query({ ...sessionQuery, values: [claims.sessionId, claims.userId] });
  if (!isCurrent(result.rows[0], claims, new Date().toISOString()))
    return refused('AUTH_INVALID_TOKEN', 'The session has ended or the password was changed.');
  return claims.userId;
}

/** Tables whose view and list rules are `owner = @request.auth.id`: only their owner reads their rows. */
const isOwnerTable = (table: BenchTable) =>
  (table.definition.rules as { view?: unknown } | undefined)?.view === 'owner = @request.auth.id';

function rowSchema(table: BenchTable): Record<string, unknown> {
  const types: Record<BenchTable['columns'][number]['type'], Record<string, unknown>> = {
    text: { type: ['string', 'null'] },
    integer: { type: ['integer', 'null'] },
    boolean: { type: 'boolean' },
    timestamp: { type: 'string', format: 'date-time' },
  };
  return { type: 'object', properties: Object.fromEntries(table.columns.map((c) => [c.name, types[c.type]])) };
}

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

/**
 * GET by id and the list of a table with view and list rule `owner = @request.auth.id` (issue 26):
 * the signed-in user's rows only (another's row is 404, as not found). Only what the benchmark
 * sends: sort=[-]<column>, limit, offset, count=none. The page and its count run side by side.
 */
function registerOwnerReads(table: BenchTable, name: string, one: Schema, page: Schema): void {
  const base = `/p/:id/api/${table.name}`;
  const columns = table.columns.map((c) => q(c.name)).join(', ');
  const from = `FROM ${name} WHERE "owner" = $1`;

  app.get<RowRoute>(`${base}/:rowId`, { schema: one }, async (request, reply) => {
    const user = await signedInUser(request.headers.authorization);
    if (typeof user !== 'string') return reply.code(401).send(user);
    const result = await pool.query({
      name: `${table.name}:owned`,
      text: `SELECT ${columns} ${from} AND "id" = $2`,
      values: [user, request.params.rowId],
    });
    if (result.rows.length === 0) return reply.code(404).send(ROW_NOT_FOUND);
    return { data: result.rows[0] };
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
      const rows = pool.query({
        name: `${table.name}:owned-page:${sort}`,
        text:
          `SELECT ${columns} ${from} ORDER BY ${q(sort.replace(/^-/, ''))} ${direction}, "id" ${direction} ` +
          'LIMIT $2 OFFSET $3',
        values: [user, limit, offset],
      });
      const total =
        query.count === 'none'
          ? undefined
          : pool.query({
              name: `${table.name}:owned-count`,
              text: `SELECT count(*)::int AS n ${from}`,
              values: [user],
            });
      // Both awaited together: a failure of one never leaves the other's unhandled.
      const [listed, counted] = await Promise.all([rows, total]);
      const n = counted ? (counted.rows[0] as { n: number }).n : null;
      return { data: listed.rows, meta: { total: n, limit, offset, next_cursor: null } };
    },
  );
}

type Schema = Record<string, unknown>;

/** What the batch route needs of each table: its qualified name, columns, insert and its values. */
interface PgTable {
  readonly name: string;
  readonly columns: string;
  readonly insertSql: string;
  values(body: Row, now: string): unknown[];
}
const pgTables = new Map<string, PgTable>();

for (const table of BENCH_TABLES) {
  const name = `${q(schema)}.${q(table.name)}`;
  const columns = table.columns.map((c) => q(c.name)).join(', ');
  const declared = table.columns
    .map((c) => c.name)
    .filter((n) => !['id', 'created_at', 'updated_at', 'email', 'email_verified'].includes(n));
  const insertColumns = ['id', 'created_at', 'updated_at', ...declared];
  const placeholders = insertColumns.map((_, i) => `$${i + 1}`).join(', ');
  const insertSql =
    `INSERT INTO ${name} (${insertColumns.map(q).join(', ')}) ` + `VALUES (${placeholders}) RETURNING ${columns}`;
  const values = (body: Row, now: string) => [
    typeof body.id === 'string' ? body.id : uuidv7(),
    now,
    now,
    ...declared.map((n) => body[n] ?? (n === 'done' ? false : null)),
  ];
  pgTables.set(table.name, { name, columns, insertSql, values });
  const row = rowSchema(table);
  const one = {
    response: {
      200: { type: 'object', properties: { data: row } },
      201: { type: 'object', properties: { data: row } },
    },
  };
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
  const base = `/p/:id/api/${table.name}`;

  if (isOwnerTable(table)) {
    registerOwnerReads(table, name, one, page);
  } else {
    app.get<RowRoute>(`${base}/:rowId`, { schema: one }, async (request, reply) => {
      const result = await pool.query({
        name: `${table.name}:byId`,
        text: `SELECT ${columns} FROM ${name} WHERE "id" = $1`,
        values: [request.params.rowId],
      });
      if (result.rows.length === 0) return reply.code(404).send(notFound('row'));
      return { data: result.rows[0] };
    });

    // Only what the benchmark sends: filter=<column> = '<text>', sort=[-]<column>, limit, count=none.
    app.get<TableRoute & { Querystring: Record<string, string | undefined> }>(
      base,
      { schema: { response: { 200: page } } },
      async (request) => {
        const query = request.query;
        const filter = query.filter ? /^\s*([a-z_]+)\s*=\s*'([^']*)'\s*$/.exec(query.filter) : null;
        const sort = query.sort ?? 'created_at';
        const sortColumn = sort.startsWith('-') ? sort.slice(1) : sort;
        const limit = Math.min(query.limit === undefined ? 50 : Number(query.limit), 1000);
        const where = filter ? ` WHERE ${q(filter[1]!)} = $1` : '';
        const params = filter ? [filter[2]!] : [];
        const order = `${q(sortColumn)} ${sort.startsWith('-') ? 'DESC' : 'ASC'}, "id" ASC`;
        const rows = pool.query({
          name: `${table.name}:page:${filter?.[1]}:${sort}`,
          text: `SELECT ${columns} FROM ${name}${where} ORDER BY ${order} LIMIT $${params.length + 1}`,
          values: [...params, limit],
        });
        const total =
          query.count === 'none'
            ? undefined
            : pool.query({
                name: `${table.name}:count:${filter?.[1]}`,
                text: `SELECT count(*)::int AS n FROM ${name}${where}`,
                values: params,
              });
        const data = (await rows).rows;
        const n = total ? ((await total).rows[0] as { n: number }).n : null;
        return { data, meta: { total: n, limit, offset: 0, next_cursor: null } };
      },
    );
  }

  app.post<TableRoute & { Body: Row }>(base, { schema: one }, async (request, reply) => {
    const result = await pool.query({
      name: `${table.name}:insert`,
      text: insertSql,
      values: values(request.body, new Date().toISOString()),
    });
    return reply.code(201).send({ data: result.rows[0] });
  });

  const many = { type: 'object', properties: { data: { type: 'array', items: row } } };
  app.post<TableRoute & { Body: Row[]; Querystring: { on_conflict?: string } }>(
    `${base}/bulk`,
    {
      bodyLimit: BULK_BODY_LIMIT,
      schema: { response: { 200: many, 201: many } },
    },
    async (request, reply) => {
      // One multi-row INSERT (with ?on_conflict=, INSERT ... ON CONFLICT DO UPDATE): all rows or none, one round trip.
      const now = new Date().toISOString();
      const width = insertColumns.length;
      const tuples = request.body.map(
        (_, r) => `(${insertColumns.map((__, c) => `$${r * width + c + 1}`).join(', ')})`,
      );
      const column = request.query.on_conflict;
      // Only what the benchmark sends: a unique declared column (stock.sku), each value once per request.
      if (column !== undefined && !declared.includes(column)) return reply.code(400).send(notFound('column'));
      const updated = ['updated_at', ...declared.filter((n) => n !== column)];
      const conflict =
        column === undefined
          ? ''
          : ` ON CONFLICT (${q(column)}) DO UPDATE SET ${updated.map((n) => `${q(n)} = excluded.${q(n)}`).join(', ')}`;
      const text =
        `INSERT INTO ${name} (${insertColumns.map(q).join(', ')}) ` +
        `VALUES ${tuples.join(', ')}${conflict} RETURNING ${columns}`;
      const result = await pool.query(
        text,
        request.body.flatMap((body) => values(body, now)),
      );
      return reply.code(column === undefined ? 201 : 200).send({ data: result.rows });
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

// The batch (contract §18) by hand: one pooled client, BEGIN, the operations in order, COMMIT; no rules, no checks.
app.post<{ Body: { operations: BatchOperation[] } }>(
  '/p/:id/api/batch',
  { bodyLimit: BULK_BODY_LIMIT },
  async (request) => {
    const now = new Date().toISOString();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const data: unknown[] = [];
      for (const operation of request.body.operations) {
        const table = pgTables.get(operation.table)!;
        if (operation.method === 'POST') {
          const result = await client.query({
            name: `${operation.table}:insert`,
            text: table.insertSql,
            values: table.values(operation.body!, now),
          });
          data.push({ status: 201, body: { data: result.rows[0] } });
        } else if (operation.method === 'PATCH') {
          const names = Object.keys(operation.body!);
          const set = [...names, 'updated_at'].map((n, i) => `${q(n)} = $${i + 1}`).join(', ');
          const result = await client.query({
            name: `${operation.table}:update:${names.join(',')}`,
            text: `UPDATE ${table.name} SET ${set} WHERE "id" = $${names.length + 2} RETURNING ${table.columns}`,
            values: [...names.map((n) => operation.body![n]), now, operation.id],
          });
          data.push({ status: 200, body: { data: result.rows[0] } });
        } else {
          await client.query({
            name: `${operation.table}:delete`,
            text: `DELETE FROM ${table.name} WHERE "id" = $1`,
            values: [operation.id],
          });
          data.push({ status: 204, body: null });
        }
      }
      await client.query('COMMIT');
      return { data };
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  },
);

// Update by filter (issue 25): one UPDATE ... WHERE <column> = $n setting the body's columns, answering the count.
const COUNT = { type: 'object', properties: { data: { type: 'object', properties: { count: { type: 'integer' } } } } };
for (const table of BENCH_TABLES) {
  const name = `${q(schema)}.${q(table.name)}`;
  const declared = table.columns
    .map((c) => c.name)
    .filter((n) => !['id', 'created_at', 'updated_at', 'email', 'email_verified'].includes(n));
  app.patch<TableRoute & { Querystring: Record<string, string | undefined>; Body: Row }>(
    `/p/:id/api/${table.name}`,
    { schema: { response: { 200: COUNT } } },
    async (request, reply) => {
      const filter = /^\s*([a-z_]+)\s*=\s*'([^']*)'\s*$/.exec(request.query.filter ?? '');
      if (!filter || !table.columns.some((c) => c.name === filter[1])) return reply.code(400).send(notFound('filter'));
      const names = declared.filter((n) => n in request.body);
      const set = names.map((n, i) => `${q(n)} = $${i + 1}, `).join('');
      const result = await pool.query({
        name: `${table.name}:update:${filter[1]}:${names.join(',')}`,
        text:
          `UPDATE ${name} SET ${set}"updated_at" = $${names.length + 1} ` +
          `WHERE ${q(filter[1]!)} = $${names.length + 2}`,
        values: [...names.map((n) => request.body[n]), new Date().toISOString(), filter[2]],
      });
      return { data: { count: result.rowCount ?? 0 } };
    },
  );
}

app.get('/health', async () => ({ status: 'ok' }));

const address = await app.listen({ host: '127.0.0.1', port: Number(argument('port') ?? 0) });
process.stdout.write(`PostgreSQL baseline listening on ${address}\n`);
const stop = () => {
  void app.close().then(() => pool.end());
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
