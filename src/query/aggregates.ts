/**
 * Aggregates in `select` (contract §13): `select=status,count()`,
 * `select=status,total:sum(amount),avg(amount),min(due),max(due)`. Plain columns become the
 * grouping keys; each output gets a key (`alias:` or the default `count`, `sum_<col>`, ...).
 * Pure: checks names and types against the columns it is given.
 */
import { AppError } from '../errors/app-error.js';
import { shortenSource } from './filter-parser.js';
import { listNames } from './literal-values.js';
import type { AggregateFunction, AggregateOutput, OrderTerm, ValueType } from './sql-tree.js';

/** What an aggregate `select` asks for. */
export interface AggregateSelect {
  /** The grouping columns, in the order written. */
  readonly groupBy: readonly string[];
  readonly outputs: readonly AggregateOutput[];
}

const FUNCTIONS: readonly AggregateFunction[] = ['count', 'sum', 'avg', 'min', 'max'];
const ITEM = /^(?:([a-z][a-z0-9_]{0,62})\s*:\s*)?([a-zA-Z_]+)\s*\(\s*([^()]*?)\s*\)$/;
const EXAMPLE = 'select=status,count(),total:sum(amount)';

/** True when a `select` value names an aggregate function (it holds a parenthesis). */
export function isAggregateSelect(text: string): boolean {
  return text.includes('(');
}

function invalid(detail: string, suggestion: string): AppError {
  return new AppError('VALIDATION_FILTER', { message: `select: ${detail}`, suggestion });
}

/**
 * Parses an aggregate `select` (items already split at commas). Throws VALIDATION_FILTER for
 * an unknown function or column, `sum`/`avg` of a non-numeric column, `min`/`max` of a
 * boolean or json column, an argument to `count`, grouping by a json column, and two outputs
 * with the same key.
 */
export function parseAggregateSelect(
  items: readonly string[],
  columns: ReadonlyMap<string, ValueType>,
): AggregateSelect {
  const groupBy: string[] = [];
  const outputs: AggregateOutput[] = [];
  const keys = new Set<string>();
  const claim = (key: string, item: string) => {
    if (keys.has(key)) {
      throw invalid(
        `two outputs are named "${key}" (in "${shortenSource(item)}")`,
        'Name one of them with an alias, for example: ' +
          `${key}_2:${item.includes(':') ? item.slice(item.indexOf(':') + 1) : item}; ` +
          'each output key and grouping column must be unique.',
      );
    }
    keys.add(key);
  };
  for (const item of items) {
    if (!item.includes('(')) {
      const type = columns.get(item);
      if (type === undefined)
        throw invalid(
          `unknown column "${shortenSource(item)}"`,
          `Group by one of the columns: ${listNames(columns.keys())}, for example: ${EXAMPLE}.`,
        );
      if (type === 'json')
        throw invalid(
          `json column "${item}" cannot be a grouping key`,
          'Group by a column of another type: ' +
            `${listNames([...columns].filter(([, t]) => t !== 'json').map(([n]) => n))}.`,
        );
      claim(item, item);
      groupBy.push(item);
      continue;
    }
    const match = ITEM.exec(item);
    if (!match)
      throw invalid(
        `"${shortenSource(item)}" is not an aggregate`,
        'Write function(column) with an optional alias, for example: ' +
          `${EXAMPLE}. Functions: count(), sum, avg, min, max.`,
      );
    const [, alias, name, argument] = match as unknown as [string, string | undefined, string, string];
    const fn = name.toLowerCase() as AggregateFunction;
    if (!FUNCTIONS.includes(fn))
      throw invalid(
        `unknown function "${shortenSource(name)}"`,
        `Use count(), sum(column), avg(column), min(column) or max(column), for example: ${EXAMPLE}.`,
      );
    let output: AggregateOutput;
    if (fn === 'count') {
      if (argument !== '')
        throw invalid(
          `count takes no column ("${shortenSource(item)}")`,
          'Write count() to count the rows of each group.',
        );
      output = { key: alias ?? 'count', fn, type: 'integer' };
    } else {
      const type = columns.get(argument);
      if (type === undefined)
        throw invalid(
          `unknown column "${shortenSource(argument)}" in ${fn}()`,
          `Aggregate one of the columns: ${listNames(columns.keys())}.`,
        );
      const numeric = [...columns].filter(([, t]) => t === 'integer' || t === 'number').map(([n]) => n);
      if ((fn === 'sum' || fn === 'avg') && type !== 'integer' && type !== 'number') {
        throw invalid(
          `${fn}(${argument}): "${argument}" is ${type}, not a number`,
          numeric.length > 0
            ? `${fn} works on integer and number columns: ` +
                `${listNames(numeric)}; min and max also take text and timestamps.`
            : `This table has no integer or number column to ${fn}; count() works on any table.`,
        );
      }
      if (type === 'json' || type === 'boolean') {
        throw invalid(
          `${fn}(${argument}): a ${type} column has no order`,
          'min and max work on text, integer, number and timestamp columns; to ' +
            `count true values, filter on ${argument} = true and use count().`,
        );
      }
      output = {
        key: alias ?? `${fn}_${argument}`,
        fn,
        column: argument,
        type: fn === 'avg' ? 'number' : fn === 'sum' ? 'number' : type,
      };
    }
    claim(output.key, item);
    outputs.push(output);
  }
  if (outputs.length === 0) throw invalid('no aggregate function', `Add one, for example: ${EXAMPLE}.`);
  return Object.freeze({ groupBy: Object.freeze(groupBy), outputs: Object.freeze(outputs) });
}

/**
 * The order of an aggregate answer: `sort` may name grouping columns and output keys; the
 * grouping columns not named follow, so the order is stable. Throws VALIDATION_FILTER for another name.
 */
export function parseAggregateSort(items: readonly string[] | undefined, select: AggregateSelect): OrderTerm[] {
  const names = [...select.groupBy, ...select.outputs.map((o) => o.key)];
  const terms: OrderTerm[] = [];
  for (const item of items ?? []) {
    const descending = item.startsWith('-');
    const name = descending ? item.slice(1) : item;
    if (!names.includes(name)) {
      throw new AppError('VALIDATION_FILTER', {
        message: `sort: "${shortenSource(name)}" is not a grouping column or output key of this select`,
        suggestion:
          `With aggregates, sort by one of: ${names.join(', ')}, ` + `for example: sort=-${select.outputs[0]!.key}.`,
      });
    }
    if (!terms.some((t) => t.column === name)) terms.push(Object.freeze({ column: name, descending }));
  }
  for (const name of select.groupBy)
    if (!terms.some((t) => t.column === name)) terms.push(Object.freeze({ column: name, descending: false }));
  return terms;
}
