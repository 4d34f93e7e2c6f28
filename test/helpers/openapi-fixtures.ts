/**
 * Project schemas for the OpenAPI and types tests: no auth table; an auth table with
 * verify_email; and one that uses every column type and option. Each is an ordered list of
 * [table name, definition body] (a table is declared after those it references).
 */
import { parseDefinition } from '../../src/tables/parse-definition.js';
import type { TableDefinition } from '../../src/schema/definition.js';
import { putTable, type TestProject, type TestServer } from './test-server.js';

/** A project schema: [table name, definition body] in declaration order. */
export type SchemaFixture = readonly (readonly [string, Record<string, unknown>])[];

/** A plain project: one table, no auth table. */
export const NO_AUTH_SCHEMA: SchemaFixture = [
  [
    'notes',
    {
      columns: [
        { name: 'body', type: 'text', required: true },
        { name: 'pinned', type: 'boolean', default: false },
      ],
      rules: { list: '', view: '' },
    },
  ],
];

/** An auth table with verify_email and two custom columns, and a table of the users' posts. */
export const AUTH_VERIFY_SCHEMA: SchemaFixture = [
  [
    'users',
    {
      auth_table: true,
      verify_email: true,
      columns: [
        { name: 'display_name', type: 'text', max_length: 80 },
        { name: 'role', type: 'text', enum: ['member', 'editor'], default: 'member' },
      ],
    },
  ],
  [
    'posts',
    {
      columns: [
        { name: 'title', type: 'text', required: true },
        { name: 'author', type: 'text', references: { table: 'users', on_delete: 'cascade' } },
      ],
      rules: {
        list: '',
        view: '',
        create: 'author = @request.auth.id',
        update: 'author = @request.auth.id',
        delete: 'author = @request.auth.id',
      },
    },
  ],
];

/** Every column type and option, on an auth table and a table that references it. */
export const EVERY_OPTION_SCHEMA: SchemaFixture = [
  [
    'app_users',
    {
      auth_table: true,
      columns: [{ name: 'nickname', type: 'text', unique: true, max_length: 30 }],
    },
  ],
  [
    'tasks',
    {
      columns: [
        { name: 'title', type: 'text', required: true, max_length: 200 },
        { name: 'status', type: 'text', enum: ['open', 'on hold', 'closed'], default: 'open' },
        { name: 'label', type: 'text', enum: ['a', 'b'] },
        { name: 'done', type: 'boolean', default: false },
        { name: 'priority', type: 'integer', min: 1, max: 5, required: true, default: 3 },
        { name: 'count', type: 'integer' },
        { name: 'score', type: 'number', min: 0, max: 1.5 },
        { name: 'ratio', type: 'number' },
        { name: 'code', type: 'text', unique: true },
        { name: 'owner', type: 'text', references: { table: 'app_users', on_delete: 'set_null' } },
        { name: 'due', type: 'timestamp' },
        { name: 'started_at', type: 'timestamp', required: true },
        { name: 'meta', type: 'json' },
        { name: 'config', type: 'json', required: true, default: { a: 1 } },
      ],
      rules: { list: '', view: '', create: '', update: '', delete: '' },
      indexes: [['owner', 'due']],
    },
  ],
];

/** The table definitions of a fixture, as the schema service would hold them. */
export function definitionsOf(schema: SchemaFixture): TableDefinition[] {
  return schema.map(([name, body]) => parseDefinition(name, body));
}

/** Declares a fixture's tables on a running server, in order. */
export async function applySchema(server: TestServer, project: TestProject, schema: SchemaFixture): Promise<void> {
  for (const [name, body] of schema) await putTable(server, project, name, body);
}
