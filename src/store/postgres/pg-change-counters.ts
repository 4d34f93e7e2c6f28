/**
 * Reads the committed change counters of schemas (`change_versions`, bumped by the change
 * trigger) for the caches of `PgDatabase.externalChangeVersion`, with a named statement
 * (parsed and planned once per pooled connection).
 *
 * A read is shared only by the asks of the event-loop turn in which it was sent. An ask is
 * made by a request that has already arrived, so every read it gets was sent after the request
 * arrived: a change another process committed and answered before this request was sent is
 * always seen (a key rotated there no longer works here, a tightened rule holds). Sharing a
 * read while it is on its way, as an earlier version did, could hand a request counters read
 * before it arrived.
 */
import type pg from 'pg';
import { quoteIdent } from '../sql-compiler.js';
import { CHANGE_VERSIONS, col } from '../system-tables.js';
import { SYSTEM_SCHEMA } from './pg-migrations.js';

const TABLE = `${quoteIdent(SYSTEM_SCHEMA)}.${quoteIdent(CHANGE_VERSIONS.table)}`;
const VERSION = quoteIdent(col(CHANGE_VERSIONS, 'version').name);
const SCHEMA_NAME = quoteIdent(col(CHANGE_VERSIONS, 'schema_name').name);

const READ_COUNTERS = {
  // Named: parsed and planned once per pooled connection.
  name: 'rowbase:change-counters',
  text: `SELECT ${VERSION} AS counter FROM ${TABLE} WHERE ${SCHEMA_NAME} = $1`,
};

/** The change counters of one engine's schemas, read in shared statements. */
export class ChangeCounters {
  /** The read each schema's asks share in this event-loop turn (see the file comment). */
  private readonly current = new Map<string, Promise<number>>();

  constructor(
    private readonly pool: pg.Pool,
    /** Called with the error of a failed read (before it reaches the asks). */
    private readonly onFailure: (error: unknown) => void,
  ) {}

  /** The committed counter of `schema` (0 when it never changed). Rejects with the pg error. */
  read(schema: string): Promise<number> {
    return this.current.get(schema) ?? this.startRead(schema);
  }

  private startRead(schema: string): Promise<number> {
    const counter = this.pool.query<{ counter: string | number }>({ ...READ_COUNTERS, values: [schema] }).then(
      (result) => Number(result.rows[0]?.counter ?? 0),
      (error: unknown) => {
        this.onFailure(error);
        throw error;
      },
    );
    this.current.set(schema, counter);
    // Joinable until this turn ends: asks of later turns send a read of their own.
    setImmediate(() => {
      if (this.current.get(schema) === counter) this.current.delete(schema);
    });
    return counter;
  }
}
