/**
 * The import direction of docs/architecture.md, enforced by test/unit/architecture.test.ts:
 * cli → app → http → {auth, openapi, realtime} → {projects, email} → tables → changes
 * → store ports → schema → query → {errors, lib}.
 * No exceptions: type-only imports obey the same rules.
 */

module.exports = {
  forbidden: [
    {
      name: 'dashboard-uses-only-the-http-api',
      comment:
        'The dashboard (dashboard/) talks to the server over HTTP only: ' +
        'it imports nothing from src/, and src/ nothing from it. ' +
        'The one package it may import is the SDK (packages/client/src): ' +
        'the SDK is the HTTP API\'s client, so the dashboard ' +
        'shares its request core, event stream parser and error type instead of keeping copies.',
      severity: 'error',
      from: { path: '^dashboard/' },
      to: { path: '^(src|packages)/', pathNot: '^packages/client/src/' },
    },
    {
      name: 'sdk-knows-only-itself',
      comment:
        'The SDK (packages/client/src) is shipped alone: ' +
        'it imports nothing from the server, the dashboard or any package.',
      severity: 'error',
      from: { path: '^packages/client/src/' },
      to: { path: '^(src|dashboard|node_modules)/' },
    },
    {
      name: 'server-does-not-import-the-dashboard',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^dashboard/' },
    },
    { name: 'no-import-of-main', severity: 'error', from: {}, to: { path: '^src/main\\.ts$' } },
    {
      name: 'engines-only-from-app',
      comment: 'Only the composition root picks a storage engine.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(app|store)/' },
      to: { path: '^src/store/(sqlite|postgres)/' },
    },
    {
      name: 'errors-and-lib-are-leaves',
      severity: 'error',
      from: { path: '^src/(errors|lib)/' },
      to: { path: '^src/', pathNot: '^src/(errors|lib)/' },
    },
    {
      name: 'query-is-pure',
      severity: 'error',
      from: { path: '^src/query/' },
      to: { path: '^src/|^node_modules/', pathNot: '^src/(query|errors|lib)/' },
    },
    {
      name: 'core-knows-no-http',
      comment: 'Domain modules take ports; only http/ knows Fastify.',
      severity: 'error',
      from: { path: '^src/(auth|projects|tables|query|schema|store|changes|email|errors|lib)/' },
      to: { path: '^src/(http|app|cli)/|fastify' },
    },
    {
      name: 'http-does-not-build-the-app',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/(app|cli)/' },
    },
    {
      name: 'store-knows-only-the-table-model',
      severity: 'error',
      from: { path: '^src/store/' },
      comment: 'The store prints DDL from the table model in src/schema/; it never imports tables/ or anything above.',
      to: { path: '^src/(auth|projects|tables|email|http|realtime|openapi)/' },
    },
    {
      name: 'schema-is-pure-data',
      comment:
        'src/schema/ is the table model: plain data and helpers, below store/, ' +
        'importing only query types, errors and lib.',
      severity: 'error',
      from: { path: '^src/schema/' },
      to: { path: '^src/|^node_modules/', pathNot: '^src/(schema|query|errors|lib)/' },
    },
    {
      name: 'openapi-is-a-printer',
      comment: 'src/openapi/ prints documents and types from table definitions: no HTTP, no storage, no driver.',
      severity: 'error',
      from: { path: '^src/openapi/' },
      to: { path: '^src/(http|app|cli|store|auth|projects|email)/|fastify|better-sqlite3|node_modules/(pg|redis)/' },
    },
    {
      name: 'realtime-is-above-tables',
      comment:
        'src/realtime/ (hub, topics, predicates) uses tables, query, projects and the store ports; ' +
        'no HTTP, no auth flows, no mail, no engine.',
      severity: 'error',
      from: { path: '^src/realtime/' },
      to: { path: '^src/(http|app|cli|auth|email|openapi)/|fastify|better-sqlite3|node_modules/(pg|redis)/' },
    },
    {
      name: 'writers-reach-realtime-only-through-changes',
      comment:
        'Write paths append to the event log in src/changes/; ' +
        'the realtime hub above them is theirs only through the ChangeFeed port.',
      severity: 'error',
      from: { path: '^src/(tables|auth|projects|query|schema|store|email|changes)/' },
      to: { path: '^src/realtime/' },
    },
    {
      name: 'changes-sit-below-their-writers',
      comment:
        'src/changes/ (the event log) is SQL trees over the store ports: ' +
        'it imports only query, the store ports, schema, lib and errors.',
      severity: 'error',
      from: { path: '^src/changes/' },
      to: {
        path: '^src/|^node_modules/',
        pathNot: '^src/(changes|query|schema|lib|errors)/|^src/store/(types|system-tables)\\.ts$',
      },
    },
    {
      name: 'store-and-query-are-below-changes',
      severity: 'error',
      from: { path: '^src/(store|query|schema|errors|lib)/' },
      to: { path: '^src/changes/' },
    },
    {
      name: 'tables-below-auth',
      severity: 'error',
      from: { path: '^src/(tables|projects)/' },
      to: { path: '^src/(auth|email)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    // Its `paths` maps @rowbase/client to the SDK's sources, as dashboard/tsconfig.json and vite.config.ts do.
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
