/**
 * Conditions on the `user_id` column of the auth system tables (sessions, spent refresh tokens,
 * mailed links) for many users at once: what forgetting the users deleted by filter deletes.
 */
import { sql, type Expr } from '../query/sql-tree.js';

/** Ids per condition: far under every engine's limit on bound parameters. */
const IDS_PER_CONDITION = 1000;

/** `user_id IN (...)` conditions over `userIds`, a thousand ids each; none for no ids. */
export function userIdsIn(userIds: readonly string[]): Expr[] {
  const conditions: Expr[] = [];
  for (let i = 0; i < userIds.length; i += IDS_PER_CONDITION) {
    const values = userIds.slice(i, i + IDS_PER_CONDITION).map((id) => sql.value(id, 'text'));
    conditions.push({ kind: 'in', expr: sql.column('user_id'), values });
  }
  return conditions;
}
