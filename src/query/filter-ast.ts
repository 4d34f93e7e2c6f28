/**
 * The syntax tree of the filter language (contract §6): what `parseFilter` produces and
 * `compileFilter` consumes. Nodes are plain immutable objects; every node carries
 * `position`, the 0-based offset of its first character in the source text, so that
 * compile-time errors can point at the place the caller wrote.
 */

/** The comparison operators; `~` is "contains, case-insensitive" and `!~` its negation. */
export type ComparisonOperator = '=' | '!=' | '>' | '>=' | '<' | '<=' | '~' | '!~';

/** Fields shared by every operand: where it starts and the exact source text it came from. */
interface OperandBase {
  readonly position: number;
  /** The operand as written (quotes included for strings), for error messages. */
  readonly text: string;
}

/** A column of the table, e.g. `title`. */
export interface ColumnOperand extends OperandBase {
  readonly kind: 'column';
  readonly name: string;
}

/** A quoted string literal with its escapes resolved. */
export interface StringOperand extends OperandBase {
  readonly kind: 'string';
  readonly value: string;
}

/** A finite number literal (integer, decimal, negative, exponent). */
export interface NumberOperand extends OperandBase {
  readonly kind: 'number';
  readonly value: number;
}

/** `true` or `false`. */
export interface BooleanOperand extends OperandBase {
  readonly kind: 'boolean';
  readonly value: boolean;
}

/** The literal `null`. */
export interface NullOperand extends OperandBase {
  readonly kind: 'null';
}

/** `@now`: the request's timestamp. */
export interface NowOperand extends OperandBase {
  readonly kind: 'now';
}

/** `@request.auth.<name>` or `@request.body.<name>`. */
export interface RequestOperand extends OperandBase {
  readonly kind: 'request';
  readonly source: 'auth' | 'body';
  readonly name: string;
}

/** Anything that can stand on either side of a comparison. */
export type OperandNode =
  | ColumnOperand
  | StringOperand
  | NumberOperand
  | BooleanOperand
  | NullOperand
  | NowOperand
  | RequestOperand;

/** `left op right`; `position` is where `left` starts, `operatorPosition` where `op` does. */
export interface ComparisonNode {
  readonly kind: 'comparison';
  readonly op: ComparisonOperator;
  readonly left: OperandNode;
  readonly right: OperandNode;
  readonly position: number;
  readonly operatorPosition: number;
}

/** Two or more expressions joined by `&&` (`and`) or `||` (`or`), flattened. */
export interface LogicalNode {
  readonly kind: 'and' | 'or';
  readonly items: readonly FilterNode[];
  readonly position: number;
}

/** `!expr`; `position` is that of the `!`. */
export interface NotNode {
  readonly kind: 'not';
  readonly expr: FilterNode;
  readonly position: number;
}

/**
 * `@request.body.<name>:isset`: true when the request body has the key `name`, whatever its
 * value (null included). It tells "not sent" from "sent as null", which `= null` cannot.
 * `text` is the source as written, modifier included.
 */
export interface IsSetNode {
  readonly kind: 'isset';
  readonly name: string;
  readonly text: string;
  readonly position: number;
}

/** A boolean expression of the filter language. */
export type FilterNode = ComparisonNode | LogicalNode | NotNode | IsSetNode;
