/**
 * TypeScript declarations of a project's tables (contract §10), printed from the schema
 * model: per table an interface for the row as read, the create body and the update body,
 * then `Database`, the map the client SDK is typed by. Names and literals pass through
 * identifiers.ts; nothing from the schema is pasted into the text unescaped.
 */
import type { JsonSchema } from './column-schemas.js';
import { tsCommentName, tsLiteral, tsPropertyKey } from './identifiers.js';
import type { ObjectSchema, SchemaModel, TableModel } from './schema-model.js';

const JSON_TYPE = 'export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };';

/** The TypeScript type of one property's JSON Schema (the shapes column-schemas.ts produces). */
export function tsType(schema: JsonSchema): string {
  if (Array.isArray(schema.enum))
    return (schema.enum as (string | number | boolean | null)[]).map(tsLiteral).join(' | ');
  const types = Array.isArray(schema.type)
    ? (schema.type as string[])
    : typeof schema.type === 'string'
      ? [schema.type]
      : [];
  if (types.length === 0) return 'Json';
  return types
    .map((type) => {
      switch (type) {
        case 'string':
          return 'string';
        case 'integer':
        case 'number':
          return 'number';
        case 'boolean':
          return 'boolean';
        case 'null':
          return 'null';
        default:
          return 'Json';
      }
    })
    .join(' | ');
}

/** Words for a property's doc comment: only numbers and fixed words, never text from the schema. */
function propertyComment(schema: JsonSchema): string | undefined {
  const notes: string[] = [];
  if (schema.readOnly === true) notes.push('read-only');
  if (schema.writeOnly === true) notes.push('write-only: never returned');
  if (typeof schema.minLength === 'number') notes.push(`at least ${schema.minLength} characters`);
  if (typeof schema.maxLength === 'number' && schema.format !== 'email')
    notes.push(`at most ${schema.maxLength} characters`);
  const safe = Number.MAX_SAFE_INTEGER;
  if (typeof schema.minimum === 'number' && schema.minimum !== -safe) notes.push(`at least ${schema.minimum}`);
  if (typeof schema.maximum === 'number' && schema.maximum !== safe) notes.push(`at most ${schema.maximum}`);
  if (schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer')))
    notes.push('a whole number');
  if (schema.format === 'date-time') notes.push('ISO 8601 timestamp in UTC');
  return notes.length > 0 ? notes.join('; ') : undefined;
}

function printInterface(name: string, comment: string, schema: ObjectSchema): string {
  const required = new Set(schema.required);
  const lines = [`/** ${comment} */`, `export interface ${name} {`];
  for (const [property, propertySchema] of Object.entries(schema.properties)) {
    const note = propertyComment(propertySchema);
    if (note) lines.push(`  /** ${note} */`);
    lines.push(`  ${tsPropertyKey(property)}${required.has(property) ? '' : '?'}: ${tsType(propertySchema)};`);
  }
  lines.push('}');
  return lines.join('\n');
}

/**
 * What `expand=` can follow from a row of `table`: each reference column (one row, or null)
 * and each `other(column)` whose column references this table (a list), with the related
 * table's row and relations, so the SDK can type nested paths.
 */
function printRelations(table: TableModel, relations: RelationIndex): string {
  const relation = (key: string, target: string, { many }: { many: boolean }) => {
    const t = relations.typeOf.get(target);
    return t === undefined
      ? []
      : [`  ${tsPropertyKey(key)}: { row: ${t}Row; relations: ${t}Relations; many: ${many} };`];
  };
  const lines = [
    ...table.references.flatMap((r) => relation(r.column, r.table, { many: false })),
    ...(relations.referencing.get(table.name) ?? []).flatMap(({ table: other, column }) =>
      relation(`${other}(${column})`, other, { many: true }),
    ),
  ];
  return [
    `/** What expand= follows from a row of ${tsCommentName(table.name)}: ` +
      'references (a row or null) and table(column) listings (rows). */',
    `export interface ${table.typeName}Relations {`,
    ...lines,
    '}',
  ].join('\n');
}

/**
 * Type names by table, and the columns of other tables that
 * reference each table (in model order): built once per document.
 */
interface RelationIndex {
  readonly typeOf: ReadonlyMap<string, string>;
  readonly referencing: ReadonlyMap<string, readonly { readonly table: string; readonly column: string }[]>;
}

function indexRelations(model: SchemaModel): RelationIndex {
  const referencing = new Map<string, { table: string; column: string }[]>();
  for (const other of model.tables) {
    for (const r of other.references) {
      const list = referencing.get(r.table);
      if (list) list.push({ table: other.name, column: r.column });
      else referencing.set(r.table, [{ table: other.name, column: r.column }]);
    }
  }
  return { typeOf: new Map(model.tables.map((t) => [t.name, t.typeName] as const)), referencing };
}

function printTable(table: TableModel, relations: RelationIndex): string {
  const t = table.typeName;
  const label = tsCommentName(table.name);
  return [
    printInterface(`${t}Row`, `A row of ${label} as the API returns it.`, table.row),
    printInterface(`${t}Create`, `The body that creates a row of ${label}.`, table.create),
    printInterface(`${t}Update`, `The body that changes a row of ${label} (any subset).`, table.update),
    printRelations(table, relations),
  ].join('\n\n');
}

/** The declarations for a project; `projectId` goes into the header comment (escaped). */
export function buildTypeDeclarations(model: SchemaModel, projectId: string): string {
  const relations = indexRelations(model);
  const database = model.tables.map(
    (t) =>
      `  ${tsPropertyKey(t.name)}: { Row: ${t.typeName}Row; Create: ${t.typeName}Create; ` +
      `Update: ${t.typeName}Update; Relations: ${t.typeName}Relations };`,
  );
  return [
    `// Generated by \`rowbase types\` for project ${tsCommentName(projectId)} ` +
      `(schema ${tsCommentName(model.version)}). Do not edit.`,
    '',
    '/** Any JSON value (json columns). */',
    JSON_TYPE,
    '',
    ...model.tables.map((t) => `${printTable(t, relations)}\n`),
    '/** Every table of the project: its row, create body, update body and what expand= follows. */',
    database.length > 0 ? `export type Database = {\n${database.join('\n')}\n};` : 'export type Database = {};',
    '',
  ].join('\n');
}
