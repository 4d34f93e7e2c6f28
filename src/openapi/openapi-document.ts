/**
 * The OpenAPI 3.1 document of one project (contract §9), printed from the schema model:
 * the data API of every table and, with an auth table, the auth endpoints. Deterministic:
 * the same schema always gives the same bytes (keys sorted at every level).
 */
import { seesTable, type Audience } from './audience.js';
import { authPaths } from './auth-paths.js';
import { batchPaths } from './batch-paths.js';
import { AGGREGATE_GROUP_SCHEMA, LIST_META_SCHEMA, tableComponents, tablePaths } from './data-paths.js';
import { ERROR_ENVELOPE_SCHEMA } from './error-responses.js';
import { realtimePaths } from './realtime-paths.js';
import type { SchemaModel } from './schema-model.js';
import { sortKeys } from './sort-keys.js';

/** What the document says about where the project lives. */
export interface DocumentTarget {
  readonly projectId: string;
  /** The server's public base URL (PUBLIC_URL), without a trailing slash. */
  readonly publicUrl: string;
}

/** An OpenAPI document as plain JSON data. */
export type OpenApiDocument = Readonly<Record<string, unknown>>;

const SECURITY_SCHEMES = {
  ApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Api-Key',
    description: "The project's publishable key (pk_...): an anonymous client; table rules decide what it may do.",
  },
  BearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'An access token from /auth/signup, /auth/login or /auth/refresh: ' +
      'a user of the auth table, seen by rules as @request.auth.',
  },
  AdminKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Admin-Key',
    description:
      "The project's admin key (sk_...): full access, rules are not evaluated. Never put it in a browser app.",
  },
  PlatformKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Platform-Key',
    description: "The server operator's platform key: the admin key's powers on every project.",
  },
};

/**
 * Builds the document for a project's schema model, as `audience` sees the API: everything
 * for the admin key; for the pk_ key only the operations whose rules are not null, and only
 * the row schemas of tables it may call (plus the auth table's, which the auth answers carry).
 */
export function buildOpenApiDocument(
  model: SchemaModel,
  target: DocumentTarget,
  audience: Audience = 'admin',
): OpenApiDocument {
  const paths: Record<string, object> = {};
  const schemas: Record<string, object> = {
    ErrorEnvelope: ERROR_ENVELOPE_SCHEMA,
    ListMeta: LIST_META_SCHEMA,
    AggregateGroup: AGGREGATE_GROUP_SCHEMA,
  };
  const visible = model.tables.filter((t) => seesTable(t, audience));
  for (const table of model.tables) {
    if (!seesTable(table, audience) && !table.authTable) continue;
    Object.assign(paths, tablePaths(table, audience));
    Object.assign(schemas, tableComponents(table, model, audience));
  }
  if (model.authTable) Object.assign(paths, authPaths(model.authTable));
  Object.assign(paths, realtimePaths());
  // Merged: an older table named "batch" keeps its GET here, while POST is the batch endpoint.
  const batch = batchPaths(model, audience);
  for (const [path, item] of Object.entries(batch)) paths[path] = { ...paths[path], ...item };
  const tags = [
    ...(model.authTable
      ? [{ name: 'auth', description: `Email and password sign-in for the users of "${model.authTable.name}".` }]
      : []),
    ...visible.map((t) => ({ name: t.name, description: `The rows of "${t.name}".` })),
    { name: 'realtime', description: 'Server-sent events of row changes, filtered by the table rules.' },
    ...(Object.keys(batch).length > 0 && !visible.some((t) => t.name === 'batch')
      ? [{ name: 'batch', description: 'Writes to several tables in one transaction.' }]
      : []),
  ];
  return sortKeys({
    openapi: '3.1.0',
    info: {
      title: `Rowbase project ${target.projectId}`,
      version: model.version,
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        (audience === 'admin'
          ? 'The data API of every table and, when the project has an auth table, its auth endpoints, as they are now. '
          : 'The API as a client with the publishable key (pk_) sees it: only the tables ' +
            'and operations whose rules are not null (the admin key sees every table and ' +
            'operation), and the auth endpoints when the project has an auth table. ') +
        'Every error answers {"error": {"code", "message", "suggestion"}}. The admin ' +
        'endpoints (/v1/...) are described in docs/schema.md and docs/auth.md.',
    },
    servers: [{ url: `${target.publicUrl.replace(/\/+$/, '')}/p/${encodeURIComponent(target.projectId)}` }],
    tags,
    paths,
    components: { schemas, securitySchemes: SECURITY_SCHEMES },
  });
}
