/**
 * The shape of a table as a project declares it, plus the system and auth columns every
 * table gets. Pure data: parsing and checking a submitted definition lives in
 * `src/tables/parse-definition.ts`. It sits below store/ because the DDL printers
 * read it at run time.
 */
import type { ValueType } from '../query/sql-tree.js';

export type ColumnType = ValueType;
export const COLUMN_TYPES: readonly ColumnType[] = ['text', 'integer', 'number', 'boolean', 'timestamp', 'json'];

export type OnDelete = 'cascade' | 'restrict' | 'set_null';

/** One declared column. Options that do not apply to the type are rejected at parse time. */
export interface ColumnDefinition {
  readonly name: string;
  readonly type: ColumnType;
  readonly required: boolean;
  readonly unique: boolean;
  /** `undefined` when no default is declared. */
  readonly default?: unknown;
  readonly references?: { readonly table: string; readonly on_delete: OnDelete };
  readonly max_length?: number;
  readonly enum?: readonly string[];
  readonly min?: number;
  readonly max?: number;
}

export type RuleOperation = 'list' | 'view' | 'create' | 'update' | 'delete';
export const RULE_OPERATIONS: readonly RuleOperation[] = ['list', 'view', 'create', 'update', 'delete'];

/** `null` locks the operation to the admin key; `""` lets any caller through; else a filter expression. */
export type Rule = string | null;
export type Rules = Readonly<Record<RuleOperation, Rule>>;

/** A table as declared through the schema API (the `columns` exclude system and auth columns). */
export interface TableDefinition {
  readonly name: string;
  readonly columns: readonly ColumnDefinition[];
  readonly auth_table: boolean;
  readonly verify_email: boolean;
  readonly rules: Rules;
  readonly indexes: readonly (readonly string[])[];
  /**
   * The text columns full-text search reads (contract §18), in the order declared; absent
   * when the table declares none (so definitions without search keep their shape and ETag).
   */
  readonly search?: readonly string[];
}

export const NAME_PATTERN = /^[a-z][a-z0-9_]{0,62}$/;
export const SYSTEM_COLUMN_NAMES = ['id', 'created_at', 'updated_at'] as const;
export const AUTH_COLUMN_NAMES = ['email', 'password', 'email_verified'] as const;

/** A column of the physical table: declared, system or auth. */
export interface PhysicalColumn {
  readonly name: string;
  readonly type: ColumnType;
  readonly origin: 'system' | 'auth' | 'declared';
  readonly definition?: ColumnDefinition;
  /**
   * The value the database itself fills in when an insert leaves the column out. Only auth
   * bookkeeping columns have one (signup writes neither); a declared column's default is the
   * row service's to apply, so both engines fill it alike.
   */
  readonly storedDefault?: boolean | number;
}

const SYSTEM_COLUMNS: readonly PhysicalColumn[] = [
  { name: 'id', type: 'text', origin: 'system' },
  { name: 'created_at', type: 'timestamp', origin: 'system' },
  { name: 'updated_at', type: 'timestamp', origin: 'system' },
];

const AUTH_COLUMNS: readonly PhysicalColumn[] = [
  { name: 'email', type: 'text', origin: 'auth' },
  { name: 'password', type: 'text', origin: 'auth' },
  { name: 'email_verified', type: 'boolean', origin: 'auth', storedDefault: false },
  // Bumped on every password change or reset; access tokens carry it (not a user-facing column).
  { name: 'password_version', type: 'integer', origin: 'auth', storedDefault: 1 },
];

/** Every physical column of a table, system columns first. */
export function physicalColumns(table: TableDefinition): PhysicalColumn[] {
  return [
    ...SYSTEM_COLUMNS,
    ...(table.auth_table ? AUTH_COLUMNS : []),
    ...table.columns.map((definition) => ({
      name: definition.name,
      type: definition.type,
      origin: 'declared' as const,
      definition,
    })),
  ];
}

/** Columns a client may read, filter and sort on: everything but secrets and internal bookkeeping. */
export function publicColumns(table: TableDefinition): PhysicalColumn[] {
  return physicalColumns(table).filter((c) => c.name !== 'password' && c.name !== 'password_version');
}

/** Default rules of a new table: everything admin-only, except an auth table's self-service rules. */
export function defaultRules({ authTable }: { readonly authTable: boolean }): Rules {
  if (!authTable) return { list: null, view: null, create: null, update: null, delete: null };
  return {
    list: null,
    view: 'id = @request.auth.id',
    create: '',
    update: 'id = @request.auth.id',
    delete: null,
  };
}
