/**
 * Expanded rows kept between requests (row-expand.ts), on engines where this process sees
 * every write to a project's database (`Database.dataGeneration`: SQLite, whose data folder
 * one process owns). Without it (PostgreSQL, or inside a transaction) nothing is kept.
 *
 * Why it is exact: an entry records the database's data generation read before its rows were
 * read, and the compiled table (one per schema version) they were read with. It is used only
 * while both are still current, so any write statement to that project (a cascade included:
 * the generation counts statements, not rows), a schema change, a reopened file or a change
 * by another process makes every entry of that database stale at once. A read that raced a
 * write was tagged with the generation before the write, and is never used.
 *
 * Rules: entries are used only for callers the table's rule shows every row to (the admin key,
 * or an open rule: no condition). A caller under a conditional rule reads from the database
 * each time, as before. Entries hold whole readable rows, the same for every such caller.
 *
 * Memory: one cache for the process (built with the services), bounded by an estimate of the
 * bytes it holds (EXPAND_CACHE_MB); the oldest entries are dropped
 * first. Stale entries are dropped when next asked for, or age out.
 */
import type { Database, Executor, Row } from '../store/types.js';
import type { CompiledTable } from './compiled-table.js';

/** What the cache holds at most by default, in estimated bytes, for the whole process (EXPAND_CACHE_MB). */
export const DEFAULT_RELATED_ROW_CACHE_BYTES = 32 * 1024 * 1024;

/** Rows larger than this (estimated) are not kept: one would push out many ordinary rows. */
const LARGEST_ROW_BYTES = 64 * 1024;

interface Entry {
  readonly table: CompiledTable;
  readonly generation: number;
  /** A forward entry holds one row; a reverse entry a parent's listed rows (maybe none). */
  readonly value: Row | readonly Row[];
  readonly bytes: number;
}

/**
 * Numbers for database objects, so keys can be strings; a dropped
 * and recreated project gets a new object, so a new number.
 */
const databaseNumbers = new WeakMap<object, number>();
let lastDatabaseNumber = 0;

function databaseNumber(db: object): number {
  let number = databaseNumbers.get(db);
  if (number === undefined) {
    number = ++lastDatabaseNumber;
    databaseNumbers.set(db, number);
  }
  return number;
}

/** Estimated bytes of a decoded row: string contents at two bytes a character, a flat cost per value and per row. */
function rowBytes(row: Row): number {
  let bytes = 64;
  for (const key in row) {
    const value = row[key];
    bytes += 16 + key.length;
    if (typeof value === 'string') bytes += value.length * 2;
    else if (value !== null && typeof value === 'object') bytes += JSON.stringify(value).length * 2;
  }
  return bytes;
}

/** The process's store of expanded rows, keyed by database, table, path and id. */
export class RelatedRowCache {
  private readonly entries = new Map<string, Entry>();
  private heldBytes = 0;

  /** `budgetBytes` 0 keeps nothing: every expanded row is read from the database. */
  constructor(private readonly budgetBytes: number = DEFAULT_RELATED_ROW_CACHE_BYTES) {}

  /** Estimated bytes held now (for tests and diagnostics). */
  get bytes(): number {
    return this.heldBytes;
  }

  /**
   * The view of one database at its current generation, or undefined where the engine offers
   * none (no caching). Take it right before the reads it guards: rows read after it may be
   * stored under its generation, and are used only while nothing was written since.
   */
  at(db: Executor): RelatedRowView | undefined {
    if (this.budgetBytes === 0) return undefined;
    const generation = (db as Partial<Database>).dataGeneration?.();
    return generation === undefined ? undefined : new RelatedRowView(this, `${databaseNumber(db)}\u0000`, generation);
  }

  /** The value under `key` if it was stored for `table` at `generation`; a stale entry is dropped. */
  lookup(key: string, table: CompiledTable, generation: number): Entry['value'] | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.generation === generation && entry.table === table) return entry.value;
    // Generations only grow: an entry of another one (or an older schema) can never be used again.
    if (entry.generation < generation || entry.table !== table) this.remove(key, entry);
    return undefined;
  }

  /**
   * Keeps `value` under `key`; drops the oldest entries past
   * the budget. An entry holding a row over 64 KiB is not kept.
   */
  store(key: string, table: CompiledTable, generation: number, value: Entry['value']): void {
    const previous = this.entries.get(key);
    if (previous !== undefined) this.remove(key, previous);
    let bytes = key.length * 2 + 64;
    for (const row of Array.isArray(value) ? (value as readonly Row[]) : [value as Row]) {
      const size = rowBytes(row);
      if (size > LARGEST_ROW_BYTES) return;
      bytes += size;
    }
    this.entries.set(key, { table, generation, value, bytes });
    this.heldBytes += bytes;
    // Map keeps insertion order: the first keys are the oldest entries.
    for (const [oldKey, oldEntry] of this.entries) {
      if (this.heldBytes <= this.budgetBytes) break;
      this.remove(oldKey, oldEntry);
    }
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.heldBytes -= entry.bytes;
  }
}

/** One database's entries at one generation (see RelatedRowCache.at). */
export class RelatedRowView {
  constructor(
    private readonly cache: RelatedRowCache,
    private readonly prefix: string,
    readonly generation: number,
  ) {}

  /** The row of `table` with this id, as read before at this generation. */
  forward(table: CompiledTable, id: string): Row | undefined {
    return this.cache.lookup(`${this.prefix}${table.name}\u0000${id}`, table, this.generation) as Row | undefined;
  }

  storeForward(table: CompiledTable, row: Row): void {
    this.cache.store(`${this.prefix}${table.name}\u0000${String(row.id)}`, table, this.generation, row);
  }

  /**
   * The rows of `table` whose `column` is `parentId` (creation order, at most 100), as read before at this generation.
   */
  reverse(table: CompiledTable, column: string, parentId: string): readonly Row[] | undefined {
    return this.cache.lookup(`${this.prefix}${table.name}(${column})\u0000${parentId}`, table, this.generation) as
      | readonly Row[]
      | undefined;
  }

  storeReverse(table: CompiledTable, column: string, parentId: string, rows: readonly Row[]): void {
    this.cache.store(`${this.prefix}${table.name}(${column})\u0000${parentId}`, table, this.generation, rows);
  }
}
