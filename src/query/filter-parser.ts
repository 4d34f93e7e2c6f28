/**
 * The filter language parser (contract §6): source text → `FilterNode`. Purely syntactic:
 * it does not know the table, so unknown columns and type mismatches are left to
 * `compileFilter`. Input is bounded (length and nesting) so that hostile text costs a
 * bounded amount of work and can never overflow the stack.
 */
import { AppError } from '../errors/app-error.js';
import {
  describeUnpairedSurrogate,
  UNPAIRED_SURROGATE_SUGGESTION,
  unpairedSurrogateIndex,
} from '../lib/unpaired-surrogate.js';
import type { ComparisonOperator, FilterNode, IsSetNode, OperandNode } from './filter-ast.js';

/** Longest accepted source text, in UTF-16 code units. */
export const MAX_FILTER_LENGTH = 4096;
/** Deepest accepted nesting of parentheses and `!`. */
export const MAX_FILTER_DEPTH = 32;

/** The example every syntax error shows, so callers see a correct expression next to their own. */
export const FILTER_EXAMPLE = 'title ~ "x" && done = false';
const SUGGESTION =
  'Write comparisons joined by && or ||, for example: ' +
  `${FILTER_EXAMPLE}. Quote strings, group with ( ) and negate with !.`;

const NAME = /^[a-z][a-z0-9_]*$/;
// A word may be a relation path (`owner.team.name`, contract §13): names joined by dots.
const WORD = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/;
/** Most names in a relation path: 3 hops and the column read at the end. */
export const MAX_PATH_SEGMENTS = 4;
const NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/;
const VARIABLE = /^@[A-Za-z0-9_.]*/;
// A modifier after a variable, PocketBase style: `@request.body.role:isset`.
const MODIFIER = /^:[A-Za-z0-9_]*/;
const ISSET_EXAMPLE = 'id = @request.auth.id && !@request.body.role:isset';
const WHITESPACE = /\s/;

type Token =
  | { readonly type: 'operand'; readonly node: OperandNode; readonly position: number; readonly text: string }
  | { readonly type: 'isset'; readonly node: IsSetNode; readonly position: number; readonly text: string }
  | { readonly type: 'compare'; readonly op: ComparisonOperator; readonly position: number; readonly text: string }
  | { readonly type: 'and' | 'or' | 'not' | '(' | ')' | 'end'; readonly position: number; readonly text: string };

/** Builds the VALIDATION_FILTER error every syntax problem becomes. */
function syntaxError(parameter: string, detail: string, position: number, suggestion = SUGGESTION): AppError {
  return new AppError('VALIDATION_FILTER', {
    message: `${parameter}: ${detail} at character ${position + 1}`,
    suggestion,
  });
}

/** Cuts source text short for a message, so that a 4 KiB literal does not flood it. */
export function shortenSource(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** Quotes source text for a message (string literals keep their own quotes), cut short. */
export function quoteSource(text: string): string {
  const short = shortenSource(text);
  return short.startsWith('"') || short.startsWith("'") ? short : `"${short}"`;
}

function describe(token: Token): string {
  return token.type === 'end' ? 'the end of the expression' : quoteSource(token.text);
}

/**
 * Parses filter source text into a syntax tree.
 * Throws AppError VALIDATION_FILTER, naming `parameter` and the 1-based character position,
 * for any syntax error, for text longer than MAX_FILTER_LENGTH, for nesting deeper than
 * MAX_FILTER_DEPTH and for an unpaired UTF-16 surrogate.
 */
export function parseFilter(source: string, parameter = 'filter'): FilterNode {
  if (source.length > MAX_FILTER_LENGTH) {
    throw syntaxError(
      parameter,
      `the expression is longer than ${MAX_FILTER_LENGTH} characters`,
      MAX_FILTER_LENGTH,
      `Shorten the expression to at most ${MAX_FILTER_LENGTH} characters, for example by splitting the request.`,
    );
  }
  const surrogate = unpairedSurrogateIndex(source);
  if (surrogate >= 0) {
    // No engine can compare with it as sent (each replaces it differently): refused, not matched.
    throw syntaxError(
      parameter,
      `an unpaired UTF-16 surrogate ${describeUnpairedSurrogate(source)} (not a character)`,
      surrogate,
      UNPAIRED_SURROGATE_SUGGESTION,
    );
  }
  const tokens = tokenize(source, parameter);
  let index = 0;
  const peek = (): Token => tokens[index]!;
  const advance = (): Token => tokens[index++]!;

  const parseOr = (depth: number): FilterNode => {
    const items = [parseAnd(depth)];
    while (peek().type === 'or') {
      advance();
      items.push(parseAnd(depth));
    }
    return items.length === 1
      ? items[0]!
      : Object.freeze({ kind: 'or', items: Object.freeze(items), position: items[0]!.position });
  };

  const parseAnd = (depth: number): FilterNode => {
    const items = [parseUnary(depth)];
    while (peek().type === 'and') {
      advance();
      items.push(parseUnary(depth));
    }
    return items.length === 1
      ? items[0]!
      : Object.freeze({ kind: 'and', items: Object.freeze(items), position: items[0]!.position });
  };

  const enter = (token: Token, depth: number): number => {
    if (depth + 1 > MAX_FILTER_DEPTH) {
      throw syntaxError(
        parameter,
        `the expression nests deeper than ${MAX_FILTER_DEPTH} levels of "(" and "!"`,
        token.position,
        `Remove redundant parentheses and "!", for example: ${FILTER_EXAMPLE}.`,
      );
    }
    return depth + 1;
  };

  const parseUnary = (depth: number): FilterNode => {
    const token = peek();
    if (token.type === 'not') {
      const inner = enter(token, depth);
      advance();
      // `!` negates the comparison or group that follows: negating a bare operand means nothing here.
      return Object.freeze({ kind: 'not', expr: parseUnary(inner), position: token.position });
    }
    if (token.type === '(') {
      const inner = enter(token, depth);
      advance();
      const expr = parseOr(inner);
      const closing = peek();
      if (closing.type !== ')') {
        throw closing.type === 'end'
          ? syntaxError(
              parameter,
              `expected ")" to close the "(" at character ${token.position + 1}, found the end of the expression`,
              closing.position,
            )
          : syntaxError(parameter, `expected "&&", "||" or ")" before ${describe(closing)}`, closing.position);
      }
      advance();
      return expr;
    }
    if (token.type === 'operand') return parseComparison();
    if (token.type === 'isset') {
      advance();
      const after = peek();
      if (after.type === 'compare') {
        // PocketBase writes `:isset = false`; here the test stands alone, so say how to write it.
        throw syntaxError(
          parameter,
          `${quoteSource(token.text)} is a test on its own and cannot be compared with "${after.text}"`,
          after.position,
          `Use it as a condition, negated with ! when needed, for example: ${ISSET_EXAMPLE}.`,
        );
      }
      return token.node;
    }
    throw syntaxError(parameter, `expected a comparison, "(" or "!" but found ${describe(token)}`, token.position);
  };

  const parseComparison = (): FilterNode => {
    const left = advance() as Extract<Token, { type: 'operand' }>;
    const operator = peek();
    if (operator.type !== 'compare') {
      throw syntaxError(parameter, `expected a comparison operator after ${quoteSource(left.text)}`, operator.position);
    }
    advance();
    const right = peek();
    if (right.type !== 'operand') {
      if (right.type === 'isset') {
        throw syntaxError(
          parameter,
          `${quoteSource(right.text)} is a test on its own and cannot be compared`,
          right.position,
          `Use it as a condition, negated with ! when needed, for example: ${ISSET_EXAMPLE}.`,
        );
      }
      throw syntaxError(
        parameter,
        `expected a value after "${operator.text}" but found ${describe(right)}`,
        right.position,
      );
    }
    advance();
    return Object.freeze({
      kind: 'comparison',
      op: operator.op,
      left: left.node,
      right: right.node,
      position: left.position,
      operatorPosition: operator.position,
    });
  };

  const root = parseOr(0);
  const rest = peek();
  if (rest.type === ')') throw syntaxError(parameter, 'unexpected ")" without a matching "("', rest.position);
  if (rest.type !== 'end')
    throw syntaxError(parameter, `expected "&&" or "||" before ${describe(rest)}`, rest.position);
  return root;
}

/** Splits source text into tokens; operands come out as finished AST nodes. */
function tokenize(source: string, parameter: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  const push = (token: Token): void => {
    tokens.push(Object.freeze(token));
    at += token.text.length;
  };
  while (at < source.length) {
    const char = source[at]!;
    const next = source[at + 1];
    if (WHITESPACE.test(char)) {
      at += 1;
      continue;
    }
    if (char === '"' || char === "'") {
      push(readString(source, at, parameter));
      continue;
    }
    if (char === '-' || (char >= '0' && char <= '9')) {
      push(readNumber(source, at, parameter));
      continue;
    }
    if (char === '@') {
      push(readVariable(source, at, parameter));
      continue;
    }
    const word = WORD.exec(source.slice(at))?.[0];
    if (word !== undefined) {
      push(wordToken(word, at, parameter));
      continue;
    }
    if (char === ':' && source.startsWith(':isset', at)) {
      throw syntaxError(
        parameter,
        `:isset applies only to @request.body.<field>`,
        at,
        `Test whether the body sends a field with @request.body.<field>:isset, for example: ${ISSET_EXAMPLE}.`,
      );
    }
    const operator = readOperator(char, next);
    if (operator === undefined) {
      const shown = String.fromCodePoint(source.codePointAt(at)!);
      if (char === '&' || char === '|')
        throw syntaxError(parameter, `expected "${char}${char}" but found a single "${char}"`, at);
      throw syntaxError(parameter, `unexpected character ${JSON.stringify(shown)}`, at);
    }
    if (operator === '=' && next === '=') {
      throw syntaxError(parameter, 'unexpected "=="', at, `Compare with a single "=", for example: ${FILTER_EXAMPLE}.`);
    }
    push(operatorToken(operator, at));
  }
  tokens.push(Object.freeze({ type: 'end', position: source.length, text: '' }));
  return tokens;
}

/** Operators written with two characters; checked before their one-character prefixes. */
const TWO_CHAR = new Set(['!=', '!~', '>=', '<=', '&&', '||']);

function readOperator(char: string, next: string | undefined): string | undefined {
  const pair = char + (next ?? '');
  if (TWO_CHAR.has(pair)) return pair;
  return '=<>~!()'.includes(char) ? char : undefined;
}

function operatorToken(text: string, position: number): Token {
  if (text === '&&') return { type: 'and', position, text };
  if (text === '||') return { type: 'or', position, text };
  if (text === '!') return { type: 'not', position, text };
  if (text === '(' || text === ')') return { type: text, position, text };
  return { type: 'compare', op: text as ComparisonOperator, position, text };
}

function operand(node: OperandNode): Token {
  return { type: 'operand', node: Object.freeze(node), position: node.position, text: node.text };
}

function readString(source: string, start: number, parameter: string): Token {
  const quote = source[start]!;
  let value = '';
  let at = start + 1;
  while (at < source.length) {
    const char = source[at]!;
    if (char === quote) {
      return operand({ kind: 'string', value, position: start, text: source.slice(start, at + 1) });
    }
    if (char === '\\') {
      const escaped = source[at + 1];
      if (escaped === undefined) break;
      if (escaped !== '"' && escaped !== "'" && escaped !== '\\') {
        throw syntaxError(
          parameter,
          `unknown escape "\\${String.fromCodePoint(source.codePointAt(at + 1)!)}" in a string`,
          at,
          'Inside quotes only \\" \\\' and \\\\ are escapes; write any ' +
            'other character as it is, for example: title = "a\\"b".',
        );
      }
      value += escaped;
      at += 2;
      continue;
    }
    value += char;
    at += 1;
  }
  throw syntaxError(
    parameter,
    'unterminated string',
    start,
    `Close the string with ${quote}, for example: ${FILTER_EXAMPLE}.`,
  );
}

function readNumber(source: string, start: number, parameter: string): Token {
  const text = NUMBER.exec(source.slice(start))?.[0];
  if (text === undefined) throw syntaxError(parameter, 'unexpected character "-"', start);
  const after = source[start + text.length];
  if (after !== undefined && /[A-Za-z0-9_.@]/.test(after)) {
    throw syntaxError(parameter, `malformed number ${quoteSource(text + after)}`, start);
  }
  const value = Number(text);
  if (!Number.isFinite(value)) throw syntaxError(parameter, `the number ${quoteSource(text)} is out of range`, start);
  return operand({ kind: 'number', value, position: start, text });
}

function readVariable(source: string, start: number, parameter: string): Token {
  const text = VARIABLE.exec(source.slice(start))![0];
  const modifier = MODIFIER.exec(source.slice(start + text.length))?.[0];
  if (modifier !== undefined) return readModifier(text, modifier, start, parameter);
  if (text === '@now') return operand({ kind: 'now', position: start, text });
  const match = /^@request\.(auth|body)\.(.*)$/.exec(text);
  if (match === null) {
    throw syntaxError(
      parameter,
      `unknown variable ${quoteSource(text)}`,
      start,
      'The variables are @now, @request.auth.<name> and @request.body.<name>, for example: due < @now.',
    );
  }
  const name = match[2]!;
  // @request.auth.team.plan follows references from the user's row (contract §13).
  const segments = name.split('.');
  if (
    match[1] === 'auth' &&
    segments.length > 1 &&
    segments.length <= MAX_PATH_SEGMENTS &&
    segments.every((segment) => NAME.test(segment))
  ) {
    return operand({ kind: 'request', source: 'auth', name, position: start, text });
  }
  if (!NAME.test(name)) {
    throw syntaxError(
      parameter,
      `invalid field name ${quoteSource(name)} in ${quoteSource(text)}`,
      start,
      'Field names are lower-case letters, digits and _, starting ' +
        'with a letter, for example: owner = @request.auth.id.',
    );
  }
  return operand({ kind: 'request', source: match[1] as 'auth' | 'body', name, position: start, text });
}

/**
 * `@request.body.<name>:isset`, the only modifier: a presence test on a body field. Any other
 * modifier, or `:isset` on anything but a plain body field, is a syntax error at the modifier.
 */
function readModifier(variable: string, modifier: string, start: number, parameter: string): Token {
  const at = start + variable.length;
  if (modifier !== ':isset') {
    throw syntaxError(
      parameter,
      `unknown modifier ${quoteSource(modifier)} after ${quoteSource(variable)}`,
      at,
      `The only modifier is :isset, on @request.body fields, for example: ${ISSET_EXAMPLE}.`,
    );
  }
  const name = /^@request\.body\.(.*)$/.exec(variable)?.[1];
  if (name === undefined || !NAME.test(name)) {
    throw syntaxError(
      parameter,
      `:isset applies only to @request.body.<field>, not to ${quoteSource(variable)}`,
      at,
      `Test whether the body sends a field with @request.body.<field>:isset, for example: ${ISSET_EXAMPLE}.`,
    );
  }
  const text = variable + modifier;
  const node: IsSetNode = Object.freeze({ kind: 'isset', name, text, position: start });
  return { type: 'isset', node, position: start, text };
}

function wordToken(word: string, position: number, parameter: string): Token {
  if (word === 'true' || word === 'false')
    return operand({ kind: 'boolean', value: word === 'true', position, text: word });
  if (word === 'null') return operand({ kind: 'null', position, text: word });
  const segments = word.split('.');
  if (segments.length > 1 && segments.every((segment) => NAME.test(segment))) {
    if (segments.length > MAX_PATH_SEGMENTS) {
      throw syntaxError(
        parameter,
        `the path ${quoteSource(word)} follows ${segments.length - 1} references; at most ${MAX_PATH_SEGMENTS - 1}`,
        position,
        `Shorten it, for example: ${segments.slice(-2).join('.')} on the table one step closer.`,
      );
    }
    return operand({ kind: 'column', name: word, position, text: word });
  }
  if (!NAME.test(word)) {
    throw syntaxError(
      parameter,
      `invalid column name ${quoteSource(word)}`,
      position,
      'Column names are lower-case letters, digits and _, starting ' +
        `with a letter; quote strings. For example: ${FILTER_EXAMPLE}.`,
    );
  }
  return operand({ kind: 'column', name: word, position, text: word });
}
