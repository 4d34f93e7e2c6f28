/** Identifiers: UUIDv7 for rows (time-ordered), readable random ids for projects. */
import { v7 as uuidv7 } from 'uuid';
import { randomBase62 } from './random.js';

/** A new row id: a UUIDv7, so ids sort roughly by creation time. */
export function newRowId(): string {
  return uuidv7();
}

/** A new project id matching `^[a-z0-9][a-z0-9-]{2,39}$`. */
export function newProjectId(): string {
  return `p-${randomBase62(12).toLowerCase()}`;
}
