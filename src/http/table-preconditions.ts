/**
 * Reads the If-Match and If-None-Match headers of a schema write (contract §2) into the
 * preconditions the schema service checks inside its transaction.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../errors/app-error.js';
import type { TablePreconditions } from '../tables/table-version.js';

// One entity tag: optional weak prefix, then a quoted string (RFC 9110 §8.8.3).
const ENTITY_TAG = /^(?:W\/)?"[^"]*"$/;

/**
 * The preconditions of a request, or undefined when it carries none. Throws VALIDATION_FAILED
 * for an If-Match that is neither `*` nor a list of quoted ETags, and for an If-None-Match
 * other than `*` (a table write can only be made create-only).
 */
export function tablePreconditions(headers: IncomingHttpHeaders): TablePreconditions | undefined {
  const ifMatch = headerValue(headers['if-match']);
  const ifNoneMatch = headerValue(headers['if-none-match']);
  if (ifMatch === undefined && ifNoneMatch === undefined) return undefined;
  if (ifNoneMatch !== undefined && ifNoneMatch !== '*') {
    throw new AppError('VALIDATION_FAILED', {
      message: `If-None-Match: ${ifNoneMatch} is not supported here; only If-None-Match: * (create only) is.`,
      suggestion:
        'Send If-None-Match: * to create the table only if it does not ' +
        'exist, or If-Match: <ETag> to change the version you read.',
    });
  }
  return {
    ...(ifMatch !== undefined && { ifMatch: parseIfMatch(ifMatch) }),
    ...(ifNoneMatch !== undefined && { ifNoneMatch: '*' as const }),
  };
}

function parseIfMatch(value: string): '*' | readonly string[] {
  if (value === '*') return '*';
  const tags = value
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
  if (tags.length === 0 || tags.some((tag) => !ENTITY_TAG.test(tag))) {
    throw new AppError('VALIDATION_FAILED', {
      message: `If-Match: ${value} is not a list of ETags.`,
      suggestion:
        'Send the ETag header of GET /p/{id}/v1/tables/{table} exactly ' +
        'as received, quotes included, e.g. If-Match: "abc…".',
    });
  }
  return tags;
}

/** A header's value, several occurrences joined as HTTP allows; undefined when absent. */
function headerValue(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const value = (Array.isArray(raw) ? raw.join(', ') : raw).trim();
  return value === '' ? undefined : value;
}
