/**
 * Reads the committed change counters of schemas (`change_versions`, bumped by the change
 * trigger) for the caches of `PgDatabase.externalChangeVersion`, with as few statements as
 * possible: one statement reads every counter a request will need.
 *
 * A request first asks for the system schema's counter (project registry: keys, settings),
 * then, once that answered, for its project's (schema service: tables). Asked one after the
 * other, they cost two round trips before the request's own statement. So every read also
 * fetches the counters of the project schemas asked for most recently: the project's counter
 * arrives with the system's, and the project's ask that follows finds it already read.
 *
 * A counter read is shared by every ask made from the moment it is sent until one event-loop
 * turn after it answered; the next ask sends a new read. An ask therefore never gets a value
 * read before the request that asks arrived at this process, except for requests that arrive
 * while a read is on its way (as with one read per schema before this file).
 */
import type pg from 'pg';
import { quoteIdent } from '../sql-compiler.js';
import { SYSTEM_SCHEMA } from './pg-migrations.js';

/** How many recently asked schemas each read also fetches. */
const COMPANIONS = 16;
/** A schema not asked for this long is no longer fetched along. */
const COMPANION_TTL_MS = 5_000;

const READ_COUNTERS = {
  // Named: parsed and planned once per pooled connection.
  name: 'rowbase:change-counters',
  text: `SELECT schema_name, version FROM ${quoteIdent(SYSTEM_SCHEMA)}.${quoteIdent('change_versions')} WHERE schema_name = ANY($1::text[])`,
};

/** The change counters of one engine's schemas, read in shared statements. */
export class ChangeCounters {
  /** The read each schema's asks share now (see the file comment). */
  private readonly current = new Map<string, Promise<number>>();
  /** Schemas asked for, least recently asked first, with when they were last asked. */
  private readonly recent = new Map<string, number>();

  constructor(
    private readonly pool: pg.Pool,
    /** Called with the error of a failed read (before it reaches the asks). */
    private readonly onFailure: (error: unknown) => void,
  ) {}

  /** The committed counter of `schema` (0 when it never changed). Rejects with the pg error. */
  read(schema: string): Promise<number> {
    this.noteAsked(schema);
    return this.current.get(schema) ?? this.startRead(schema);
  }

  private noteAsked(schema: string): void {
    this.recent.delete(schema);
    this.recent.set(schema, Date.now());
    if (this.recent.size > COMPANIONS) this.recent.delete(this.recent.keys().next().value!);
  }

  /** Sends one read for `schema` plus the recently asked schemas that no read is under way for. */
  private startRead(schema: string): Promise<number> {
    const since = Date.now() - COMPANION_TTL_MS;
    const schemas = [schema];
    for (const [other, askedAt] of this.recent) if (askedAt >= since && other !== schema && !this.current.has(other)) schemas.push(other);
    const counters = this.pool.query<{ schema_name: string; version: string | number }>({ ...READ_COUNTERS, values: [schemas] }).then(
      (result) => new Map(result.rows.map((row) => [row.schema_name, Number(row.version)])),
      (error: unknown) => {
        this.onFailure(error);
        throw error;
      },
    );
    for (const name of schemas) {
      const counter = counters.then((map) => map.get(name) ?? 0);
      // A schema fetched along may never be asked for: its failure must not go unhandled.
      counter.catch(() => undefined);
      this.current.set(name, counter);
      const forget = (): void => {
        setImmediate(() => {
          if (this.current.get(name) === counter) this.current.delete(name);
        });
      };
      counter.then(forget, forget);
    }
    return this.current.get(schema)!;
  }
}
