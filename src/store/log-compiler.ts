/**
 * The statements that log the rows a write by filter changes (`Executor.writeLoggingRows`):
 * one realtime event-log entry per row, its record built by the database in the data API's
 * JSON form (`Dialect.jsonText`), so the rows never travel to JavaScript and back. Engines with
 * one writer at a time run `compileLogBefore` just before the write; the others run
 * `compileLoggingWrite`, the write and its log in one statement.
 */
import type { ColumnRef, DeleteStatement, UpdateStatement, ValueType } from '../query/sql-tree.js';
import { quoteIdent, SqlCompiler, type CompiledSql } from './sql-compiler.js';
import { cols, EVENTS } from './system-tables.js';
import type { RowLog } from './types.js';

const LOG_COLUMNS = cols(EVENTS, ['created_at', 'table_name', 'action', 'record'])
  .map((column) => quoteIdent(column.name))
  .join(', ');
/** The rows a logged write changed, in `compileLoggingWrite`. */
const WRITTEN = '"_rb_written"';

/** A SqlCompiler that also compiles the logging statements. Stateless; one instance per engine (or schema). */
export class LoggingSqlCompiler extends SqlCompiler {
  /**
   * The event-log entries of the rows `write` is about to change, for engines with one writer at
   * a time (run in its transaction just before it: the same WHERE meets the same rows):
   * `INSERT INTO "_rb_events" (...) SELECT ... FROM <table> WHERE <where>`, each record built
   * from the row with an update's new values put in (plain values: their JSON is made here).
   */
  compileLogBefore(write: UpdateStatement | DeleteStatement, log: RowLog): CompiledSql {
    const params: unknown[] = [];
    const bind = this.binder(params);
    const set = new Map<string, string>();
    for (const { column, value } of write.kind === 'update' ? write.set : []) {
      if (value.kind !== 'value' && value.kind !== 'null') throw new Error('a logged update sets plain values only');
      set.set(column.name, value.kind === 'null' ? 'null' : (JSON.stringify(value.value) ?? 'null'));
    }
    const head = this.logHead(write, log, bind);
    const record = this.recordJson(log.record, (column) => {
      const json = set.get(column.name);
      return json === undefined ? undefined : bind(json, 'text');
    });
    const table = this.tableName(write.table);
    const paths = this.pathContext(table);
    const where = this.expression(write.where, bind, paths);
    return { sql: `${head}${record} FROM ${table} WHERE ${where}`, params };
  }

  /**
   * One statement that runs `write` and logs the rows it changed (engines that run writers at
   * once: the log must hold exactly the rows written): `WITH written AS (<write> RETURNING the
   * record's columns), logged AS (INSERT INTO "_rb_events" ... SELECT ... FROM written ORDER BY
   * id RETURNING seq) SELECT count(*) AS n, max(seq) AS last FROM logged`. The sort reads every
   * written row before the first number is taken: numbers are taken at the end of the write, as
   * the readers' gap rule expects (changes/event-log.ts), not while it waits on a row lock.
   */
  compileLoggingWrite(write: UpdateStatement | DeleteStatement, log: RowLog): CompiledSql {
    const { sql: written, params } = this.compile({ ...write, returning: log.record });
    const bind = this.binder(params);
    const head = this.logHead(write, log, bind);
    const record = this.recordJson(log.record, () => undefined, WRITTEN);
    return {
      sql:
        `WITH ${WRITTEN} AS (${written}), "_rb_logged" AS (${head}${record} FROM ${WRITTEN} ` +
        `ORDER BY ${WRITTEN}."id" RETURNING "seq") ` +
        'SELECT count(*) AS "n", max("seq") AS "last" FROM "_rb_logged"',
      params,
    };
  }

  /** `INSERT INTO "_rb_events" (created_at, table_name, action, record) SELECT <created_at>, <table>, <action>, `. */
  private logHead(write: UpdateStatement | DeleteStatement, log: RowLog, bind: (v: unknown, t: ValueType) => string) {
    return (
      `INSERT INTO ${this.tableName(EVENTS.table)} (${LOG_COLUMNS}) SELECT ${bind(log.createdAt, 'text')}, ` +
      `${bind(write.table, 'text')}, ${bind(write.kind, 'text')}, `
    );
  }

  /** `'{"a":' || <json of a> || ',"b":' || ... || '}'`: the keys in order, as JSON.stringify writes them. */
  private recordJson(
    columns: readonly ColumnRef[],
    override: (column: ColumnRef) => string | undefined,
    qualifier?: string,
  ): string {
    if (columns.length === 0) return "'{}'";
    const parts = columns.map((column, i) => {
      // Names are checked identifiers; the key is still written as JSON, then as an SQL string.
      const key = `'${i === 0 ? '{' : ','}${JSON.stringify(column.name).replaceAll("'", "''")}:'`;
      const given = override(column);
      const value =
        given ??
        this.dialect.jsonText(
          qualifier ? `${qualifier}.${quoteIdent(column.name)}` : quoteIdent(column.name),
          column.type,
        );
      return `${key} || ${value}`;
    });
    return `${parts.join(' || ')} || '}'`;
  }
}
