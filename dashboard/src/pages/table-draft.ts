/**
 * The table editor's form state and its conversion to and from a table definition (contract
 * §2). Pure functions, so the editor stays a view.
 */
import { RULE_OPERATIONS, type Column, type ColumnType, type OnDelete, type RuleOperation, type Table } from '../api';

/** One column of the form: every option as the text typed. */
export interface DraftColumn {
  key: number;
  name: string;
  type: ColumnType;
  required: boolean;
  unique: boolean;
  /** The default as typed; empty means none. JSON text for json columns. */
  defaultText: string;
  maxLength: string;
  enumText: string;
  min: string;
  max: string;
  refTable: string;
  onDelete: OnDelete;
}

/** One rule of the form: locked (null) or an expression (empty = anyone). */
export interface DraftRule {
  locked: boolean;
  expression: string;
}

/** The whole table form. */
export interface Draft {
  name: string;
  auth_table: boolean;
  verify_email: boolean;
  columns: DraftColumn[];
  rules: Record<RuleOperation, DraftRule>;
  /** One index per line, columns separated by commas. */
  indexesText: string;
  /** The text columns full-text search reads, separated by commas ('' for none). */
  searchText: string;
}

let nextKey = 1;

/** A blank text column. */
export function blankColumn(): DraftColumn {
  return {
    key: nextKey++,
    name: '',
    type: 'text',
    required: false,
    unique: false,
    defaultText: '',
    maxLength: '',
    enumText: '',
    min: '',
    max: '',
    refTable: '',
    onDelete: 'restrict',
  };
}

/** The form state for a new table (every rule admin-only, as the server's default). */
export function emptyDraft(): Draft {
  const rules = Object.fromEntries(RULE_OPERATIONS.map((op) => [op, { locked: true, expression: '' }])) as Record<
    RuleOperation,
    DraftRule
  >;
  return {
    name: '',
    auth_table: false,
    verify_email: false,
    columns: [blankColumn()],
    rules,
    indexesText: '',
    searchText: '',
  };
}

/** The form state for an existing table. */
export function draftOf(table: Table): Draft {
  const rules = Object.fromEntries(
    RULE_OPERATIONS.map((op) => [op, { locked: table.rules[op] === null, expression: table.rules[op] ?? '' }]),
  ) as Record<RuleOperation, DraftRule>;
  return {
    name: table.name,
    auth_table: table.auth_table,
    verify_email: table.verify_email,
    columns: table.columns.map((c) => ({
      key: nextKey++,
      name: c.name,
      type: c.type,
      required: c.required ?? false,
      unique: c.unique ?? false,
      defaultText:
        c.default === undefined || c.default === null
          ? ''
          : c.type === 'json'
            ? JSON.stringify(c.default)
            : String(c.default),
      maxLength: c.max_length === undefined ? '' : String(c.max_length),
      enumText: (c.enum ?? []).join(', '),
      min: c.min === undefined ? '' : String(c.min),
      max: c.max === undefined ? '' : String(c.max),
      refTable: c.references?.table ?? '',
      onDelete: c.references?.on_delete ?? 'restrict',
    })),
    rules,
    indexesText: table.indexes.map((index) => index.join(', ')).join('\n'),
    searchText: (table.search ?? []).join(', '),
  };
}

function parseDefault(column: DraftColumn): unknown {
  const text = column.defaultText;
  switch (column.type) {
    case 'integer':
    case 'number': {
      const value = Number(text);
      if (text.trim() === '' || Number.isNaN(value))
        throw new Error(`Column “${column.name}”: the default must be a number.`);
      return value;
    }
    case 'boolean':
      if (text !== 'true' && text !== 'false')
        throw new Error(`Column “${column.name}”: the default must be true or false.`);
      return text === 'true';
    case 'json':
      try {
        return JSON.parse(text);
      } catch {
        throw new Error(`Column “${column.name}”: the default is not valid JSON.`);
      }
    default:
      return text;
  }
}

function number(text: string, what: string): number | undefined {
  if (text.trim() === '') return undefined;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`${what} must be a number.`);
  return value;
}

/**
 * The definition to PUT. Throws an Error naming the column when a typed value cannot be read
 * (the server validates everything else and answers with its own message).
 */
export function definitionOf(draft: Draft): Omit<Table, 'name'> {
  const columns: Column[] = draft.columns
    .filter((c) => c.name.trim() !== '')
    .map((c) => {
      const column: Column = { name: c.name.trim(), type: c.type };
      if (c.required) column.required = true;
      if (c.unique) column.unique = true;
      if (c.defaultText !== '') column.default = parseDefault(c);
      if (c.type === 'text') {
        const maxLength = number(c.maxLength, `Column “${c.name}”: max length`);
        if (maxLength !== undefined) column.max_length = maxLength;
        const values = c.enumText
          .split(',')
          .map((v) => v.trim())
          .filter((v) => v !== '');
        if (values.length > 0) column.enum = values;
        if (c.refTable) column.references = { table: c.refTable, on_delete: c.onDelete };
      }
      if (c.type === 'integer' || c.type === 'number') {
        const min = number(c.min, `Column “${c.name}”: min`);
        const max = number(c.max, `Column “${c.name}”: max`);
        if (min !== undefined) column.min = min;
        if (max !== undefined) column.max = max;
      }
      return column;
    });
  const rules = Object.fromEntries(
    RULE_OPERATIONS.map((op) => [op, draft.rules[op].locked ? null : draft.rules[op].expression]),
  ) as Table['rules'];
  const indexes = draft.indexesText
    .split('\n')
    .map((line) =>
      line
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== ''),
    )
    .filter((index) => index.length > 0);
  const search = draft.searchText
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  // PUT is declarative: a table saved without search stops searching, so an empty box means none.
  return {
    columns,
    auth_table: draft.auth_table,
    verify_email: draft.verify_email,
    rules,
    indexes,
    ...(search.length > 0 && { search }),
  };
}
