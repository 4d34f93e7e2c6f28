/**
 * Conversions between row values and the text of form fields, per column type. Pure.
 */
import type { Column, ColumnType } from '../api';

/** How a value shows in a grid cell: always a plain string (rendered as text, never HTML). */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Columns that usually name a row, in the order a label prefers them. */
const LABEL_COLUMNS = ['name', 'title', 'label', 'username', 'email'];
/** Text that is an id (a UUID) or a timestamp: no help as a label. */
const NOT_A_LABEL = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{4}-\d{2}-\d{2}T[\d:.]+Z?)$/i;

/**
 * A row's label for a person: its name, title, label, username or email column, else its first
 * other text value that is neither an id nor a timestamp, cut to 60 characters; empty when none.
 */
export function rowLabel(row: Record<string, unknown>): string {
  const text = (value: unknown): value is string => typeof value === 'string' && value !== '';
  const named = LABEL_COLUMNS.map((column) => row[column]).find(text);
  const first =
    named ??
    Object.entries(row).find(
      ([k, v]) => !['id', 'created_at', 'updated_at'].includes(k) && text(v) && !NOT_A_LABEL.test(v),
    )?.[1];
  return typeof first === 'string' ? first.slice(0, 60) : '';
}

/** The form text for a stored value. Timestamps become `YYYY-MM-DDTHH:MM:SS` in UTC for the picker. */
export function fieldText(type: ColumnType, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (type === 'json') return JSON.stringify(value, null, 2);
  if (type === 'timestamp' && typeof value === 'string') return value.slice(0, 19);
  return String(value);
}

/**
 * The value to send for a field's text: an empty field is null. Throws an Error naming the
 * column when the text cannot be read as the column's type.
 */
export function fieldValue(column: Pick<Column, 'name' | 'type'>, text: string): unknown {
  if (text.trim() === '') return null;
  switch (column.type) {
    case 'integer':
    case 'number': {
      const value = Number(text);
      if (Number.isNaN(value)) throw new Error(`${column.name}: not a number.`);
      return value;
    }
    case 'boolean':
      return text === 'true';
    case 'timestamp':
      // The picker shows UTC; an explicit zone typed by hand is kept.
      return /[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`;
    case 'json':
      try {
        return JSON.parse(text);
      } catch (error) {
        // The parser's own words carry the position, which is what finds the typo.
        throw new Error(`${column.name}: ${(error as Error).message}`);
      }
    default:
      return text;
  }
}

/** Fields whose text cannot be read as their column's type: one message per field name. */
export class FieldError extends Error {
  constructor(readonly byField: Record<string, string>) {
    super(Object.values(byField).join(' '));
  }
}

/**
 * The body a row form sends. Creating (`initial` undefined): every non-empty field. Editing:
 * the fields whose value differs from the one the form opened with (text typed back to what it
 * was, or JSON only re-spaced, is no change). Throws FieldError naming every unreadable field.
 */
export function changedFields(
  columns: Pick<Column, 'name' | 'type'>[],
  initial: Record<string, string> | undefined,
  texts: Record<string, string>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const column of columns) {
    const text = texts[column.name] ?? '';
    const before = initial?.[column.name];
    if (initial ? text === before : text === '') continue;
    try {
      const value = fieldValue(column, text);
      if (before !== undefined && JSON.stringify(value) === JSON.stringify(fieldValue(column, before))) continue;
      body[column.name] = value;
    } catch (error) {
      errors[column.name] = (error as Error).message;
    }
  }
  if (Object.keys(errors).length > 0) throw new FieldError(errors);
  return body;
}
