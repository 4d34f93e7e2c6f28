/**
 * The `search=` query of a list request (contract §18) → a `SearchQuery`: the words and
 * phrases every matching row holds, grouped by `or`, and the ones it must not hold. Pure.
 *
 * The syntax is ours, not an engine's: words, `"quoted phrases"`, `-excluded` terms and `or`
 * between two terms. Everything else is plain text: a term keeps only its letters, digits and
 * combining marks (its tokens); `*`, `:`, `^`, `&`, `|`, `(`, `NEAR` and the like are
 * separators or plain words. So the compilers only ever see tokens made of letters, digits and
 * marks, which they hand to FTS5's `MATCH` inside quotes and to PostgreSQL as bound values.
 *
 * Decisions (docs/api.md "Full-text search"): an unclosed quote runs to the end of the query;
 * `or` that is not between two kept terms is a plain word; a term made of separators only is
 * dropped. Refused with VALIDATION_FILTER: control characters other than tab and line breaks,
 * more than MAX_SEARCH_LENGTH characters or MAX_SEARCH_TERMS terms, a query that keeps no word,
 * and one whose every term is excluded (there would be nothing to rank, and the answer would be
 * nearly the whole table).
 */
import { AppError } from '../errors/app-error.js';

/** A phrase: its tokens in order; a single word is a phrase of one token. */
export type SearchPhrase = readonly string[];

/** A parsed search: every group must match (a group matches when one of its phrases does), no excluded phrase may. */
export interface SearchQuery {
  /** ANDed groups; each group is phrases ORed. Never empty. */
  readonly all: readonly (readonly SearchPhrase[])[];
  /** Phrases no matching row holds. */
  readonly none: readonly SearchPhrase[];
}

/** Longest accepted query, in characters (code points, as JSON Schema's maxLength counts them). */
export const MAX_SEARCH_LENGTH = 500;
/** Most terms (words, phrases, exclusions) in one query. */
export const MAX_SEARCH_TERMS = 32;

/**
 * Token characters: letters, decimal and letter numbers, and the marks that belong to them.
 * The same classes as the engines' tokenizers (FTS5 `unicode61` with categories `L* Nd Nl`;
 * PostgreSQL `[[:alnum:]]` after folding), so a token here is a token there.
 */
const TOKEN = /[\p{L}\p{Nd}\p{Nl}][\p{L}\p{Nd}\p{Nl}\p{M}]*/gu;
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const SUGGESTION =
  'Search with words, "quoted phrases", -excluded words and or between two words, for example: ' +
  'search=apple "green tea" -banana.';

interface Term {
  readonly tokens: SearchPhrase;
  readonly excluded: boolean;
  /** An unquoted `or`: an operator when it stands between two kept terms. */
  readonly or: boolean;
}

function refuse(detail: string, suggestion = SUGGESTION): AppError {
  return new AppError('VALIDATION_FILTER', { message: `search: ${detail}`, suggestion });
}

/** The tokens of a piece of text, as written: the engines fold case and accents themselves, alike. */
export function searchTokens(text: string): string[] {
  return [...text.matchAll(TOKEN)].map((match) => match[0]);
}

/** Splits the query into terms: quoted phrases, words, each with a leading `-` or not. */
function splitTerms(text: string): Term[] {
  const terms: Term[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (/\s/.test(char)) {
      i++;
      continue;
    }
    let excluded = false;
    let start = i;
    if (char === '-' && i + 1 < text.length && !/\s/.test(text[i + 1]!)) {
      excluded = true;
      start = i + 1;
    }
    if (text[start] === '"') {
      const close = text.indexOf('"', start + 1);
      const end = close === -1 ? text.length : close;
      terms.push({ tokens: searchTokens(text.slice(start + 1, end)), excluded, or: false });
      i = close === -1 ? text.length : close + 1;
      continue;
    }
    let end = start;
    while (end < text.length && !/\s/.test(text[end]!) && text[end] !== '"') end++;
    if (end === start) end++;
    const word = text.slice(start, end);
    terms.push({ tokens: searchTokens(word), excluded, or: !excluded && word.toLowerCase() === 'or' });
    i = end;
  }
  return terms.filter((term) => term.tokens.length > 0);
}

/**
 * Parses a search query. Throws AppError VALIDATION_FILTER (message starting `search:`) for
 * control characters, a query longer than MAX_SEARCH_LENGTH or with more than MAX_SEARCH_TERMS
 * terms, a query without a word to search for, and a query of exclusions only. Never throws
 * anything else.
 */
export function parseSearch(text: string): SearchQuery {
  // Code units count at least the code points: only a long text needs counting.
  const length = text.length > MAX_SEARCH_LENGTH ? [...text].length : text.length;
  if (length > MAX_SEARCH_LENGTH)
    throw refuse(
      `the query is ${length} characters long; at most ${MAX_SEARCH_LENGTH} are allowed`,
      'Search with a few words; narrow the rows further with filter.',
    );
  if (CONTROL.test(text)) throw refuse('the query holds a control character', 'Send printable text only.');
  const terms = splitTerms(text);
  if (terms.length > MAX_SEARCH_TERMS)
    throw refuse(
      `the query has ${terms.length} terms; at most ${MAX_SEARCH_TERMS} are allowed`,
      'Search with fewer words; narrow the rows further with filter.',
    );
  const all: SearchPhrase[][] = [];
  const none: SearchPhrase[] = [];
  let joinNext = false;
  terms.forEach((term, index) => {
    if (term.excluded) {
      none.push(Object.freeze(term.tokens));
      joinNext = false;
      return;
    }
    const next = terms[index + 1];
    const previousKept = index > 0 && !terms[index - 1]!.excluded && all.length > 0;
    if (term.or && previousKept && next !== undefined && !next.excluded && !joinNext) {
      joinNext = true;
      return;
    }
    if (joinNext) all.at(-1)!.push(Object.freeze(term.tokens));
    else all.push([Object.freeze(term.tokens)]);
    joinNext = false;
  });
  if (all.length === 0) {
    throw none.length === 0
      ? refuse('the query holds no word to search for (only spaces, punctuation or symbols)')
      : refuse(
          'every term of the query is excluded',
          'Add at least one word to search for besides the -excluded ones, for example: search=apple -banana.',
        );
  }
  return Object.freeze({ all: Object.freeze(all.map((group) => Object.freeze(group))), none: Object.freeze(none) });
}
