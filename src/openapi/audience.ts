/**
 * Who a document is for. The admin key (and the platform key) may call every operation, so
 * its document describes the whole API. The publishable key is an anonymous client: an
 * operation whose rule is `null` is locked to it (contract §4), so its document leaves that
 * operation out, and a table it can call nothing on is not named at all. A rule that is not
 * null stays documented even when it may match no anonymous row (`id = @request.auth.id`):
 * whether a row matches is data, not schema.
 */
import type { RuleOperation } from '../schema/definition.js';
import type { TableModel } from './schema-model.js';

/** `admin`: the admin or platform key; `public`: the pk_ key (an anonymous client). */
export type Audience = 'admin' | 'public';

/** True when `audience` may call `operation` on `table`. */
export function mayCall(table: TableModel, operation: RuleOperation, audience: Audience): boolean {
  return audience === 'admin' || table.rules[operation] !== null;
}

/** True when the document for `audience` names `table`: it may call something on it. */
export function seesTable(table: TableModel, audience: Audience): boolean {
  return (['list', 'view', 'create', 'update', 'delete'] as const).some((operation) =>
    mayCall(table, operation, audience),
  );
}
