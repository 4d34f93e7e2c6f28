/**
 * The one model of a project's schema that every generated artefact comes from: per table,
 * JSON Schemas of the row as read, the create body and the update body (and, for the auth
 * table, the signup body). The OpenAPI document and the TypeScript declarations are both
 * printed from this model, so they cannot disagree.
 */
import { createHash } from 'node:crypto';
import type { ColumnType, Rules, TableDefinition } from '../schema/definition.js';
import {
  columnSchema,
  READ_SYSTEM_COLUMNS,
  SIGNUP_COLUMNS,
  WRITE_SYSTEM_COLUMNS,
  type JsonSchema,
} from './column-schemas.js';
import { typeNames } from './identifiers.js';
import { sortKeys } from './sort-keys.js';

/** A JSON Schema of an object with known properties, in column order. */
export interface ObjectSchema {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, JsonSchema>>;
  readonly required: readonly string[];
  readonly additionalProperties: false;
}

/** One table, as generated artefacts see it. */
export interface TableModel {
  readonly name: string;
  /** PascalCase base of the table's type names (`TasksRow`, `TasksCreate`, ...). */
  readonly typeName: string;
  readonly authTable: boolean;
  readonly verifyEmail: boolean;
  /** The text columns full-text search reads (contract §18); empty when the table declares none. */
  readonly search: readonly string[];
  /** The table's rules: which operations a non-admin caller may attempt at all (null: none). */
  readonly rules: Rules;
  /** Columns a caller may read, filter, sort and select: system, auth (no password), declared. */
  readonly readable: readonly string[];
  /** The value type of each readable column (what a shorthand filter on it must look like). */
  readonly readableTypes: Readonly<Record<string, ColumnType>>;
  /** The row as every answer returns it: every readable column, always present. */
  readonly row: ObjectSchema;
  /** The body of POST /api/{table} (and each item of /bulk). */
  readonly create: ObjectSchema;
  /** The body of PATCH /api/{table}/{row_id}: any subset of the writable columns. */
  readonly update: ObjectSchema;
  /** Columns with `references`, and the table each points at (what a forward `expand` follows). */
  readonly references: readonly { readonly column: string; readonly table: string }[];
  /** Columns of other tables (model order) that reference this one (what a reverse `table(column)` expand lists). */
  readonly referencedBy: readonly { readonly table: string; readonly column: string }[];
  /** The auth table only: the body of POST /auth/signup. */
  readonly signup?: ObjectSchema;
  /** Columns `?on_conflict=` may name (id and the unique columns); empty on the auth table, which has no upserts. */
  readonly conflictTargets: readonly string[];
}

/** A project's schema, tables in name order. */
export interface SchemaModel {
  readonly tables: readonly TableModel[];
  readonly authTable: TableModel | undefined;
  /** A short hash of the definitions: changes whenever the schema does. */
  readonly version: string;
}

/** Builds the model of a project's tables (in any order; the model sorts them by name). */
export function buildSchemaModel(definitions: readonly TableDefinition[]): SchemaModel {
  const sorted = [...definitions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const names = typeNames(sorted.map((t) => t.name));
  const built = sorted.map((definition) => buildTableModel(definition, names.get(definition.name)!));
  const referencedBy = new Map<string, { table: string; column: string }[]>();
  for (const other of built) {
    for (const r of other.references)
      referencedBy.set(r.table, [
        ...(referencedBy.get(r.table) ?? []),
        Object.freeze({ table: other.name, column: r.column }),
      ]);
  }
  const tables = built.map((table) =>
    Object.freeze({ ...table, referencedBy: Object.freeze(referencedBy.get(table.name) ?? []) }),
  );
  const version = createHash('sha256')
    .update(JSON.stringify(sortKeys(sorted)))
    .digest('hex')
    .slice(0, 12);
  return Object.freeze({ tables: Object.freeze(tables), authTable: tables.find((t) => t.authTable), version });
}

function objectSchema(properties: Record<string, JsonSchema>, required: readonly string[]): ObjectSchema {
  return Object.freeze({
    type: 'object',
    properties: Object.freeze(properties),
    required: Object.freeze([...required]),
    additionalProperties: false,
  });
}

/** The system columns' value types, and the auth table's. */
const SYSTEM_TYPES: Readonly<Record<string, ColumnType>> = Object.freeze({
  id: 'text',
  created_at: 'timestamp',
  updated_at: 'timestamp',
  email: 'text',
  email_verified: 'boolean',
});

function buildTableModel(table: TableDefinition, typeName: string): Omit<TableModel, 'referencedBy'> {
  const auth = table.auth_table;
  const read: Record<string, JsonSchema> = {
    id: READ_SYSTEM_COLUMNS.id,
    created_at: READ_SYSTEM_COLUMNS.created_at,
    updated_at: READ_SYSTEM_COLUMNS.updated_at,
    ...(auth && { email: READ_SYSTEM_COLUMNS.email, email_verified: READ_SYSTEM_COLUMNS.email_verified }),
  };
  const declaredWrite: Record<string, JsonSchema> = {};
  const declaredUpdate: Record<string, JsonSchema> = {};
  for (const column of table.columns) {
    // A required column is NOT NULL in storage; any other may hold null.
    read[column.name] = columnSchema(column, 'read', { nullable: !column.required });
    declaredWrite[column.name] = columnSchema(column, 'create', { nullable: !column.required });
    declaredUpdate[column.name] = columnSchema(column, 'update', { nullable: !column.required });
  }
  const requiredDeclared = table.columns.filter((c) => c.required && c.default === undefined).map((c) => c.name);
  const authWrite: Record<string, JsonSchema> = auth
    ? {
        email: WRITE_SYSTEM_COLUMNS.email,
        password: WRITE_SYSTEM_COLUMNS.password,
        email_verified: WRITE_SYSTEM_COLUMNS.email_verified,
      }
    : {};
  const create = objectSchema({ id: WRITE_SYSTEM_COLUMNS.id, ...authWrite, ...declaredWrite }, [
    ...(auth ? ['email', 'password'] : []),
    ...requiredDeclared,
  ]);
  const update = objectSchema({ ...authWrite, ...declaredUpdate }, []);
  const signup = auth
    ? objectSchema({ email: SIGNUP_COLUMNS.email, password: SIGNUP_COLUMNS.password, ...declaredWrite }, [
        'email',
        'password',
        ...requiredDeclared,
      ])
    : undefined;
  return {
    name: table.name,
    typeName,
    authTable: auth,
    verifyEmail: auth && table.verify_email,
    search: Object.freeze([...(table.search ?? [])]),
    rules: table.rules,
    readable: Object.freeze(Object.keys(read)),
    readableTypes: Object.freeze(
      Object.fromEntries(
        Object.keys(read).map((name) => [
          name,
          table.columns.find((c) => c.name === name)?.type ?? SYSTEM_TYPES[name]!,
        ]),
      ),
    ),
    row: objectSchema(read, Object.keys(read)),
    create,
    update,
    references: Object.freeze(
      table.columns
        .filter((c) => c.references)
        .map((c) => Object.freeze({ column: c.name, table: c.references!.table })),
    ),
    ...(signup && { signup }),
    conflictTargets: Object.freeze(auth ? [] : ['id', ...table.columns.filter((c) => c.unique).map((c) => c.name)]),
  };
}
