/**
 * The import direction of STYLE.md, enforced by test/unit/architecture.test.ts:
 * cli → app → http → {auth, projects, tables, email} → {query, store ports} → {errors, lib}.
 * Type-only imports are allowed upward (routes name the Services type).
 */
const runtime = { dependencyTypesNot: ['type-only'] };

module.exports = {
  forbidden: [
    {
      name: 'dashboard-uses-only-the-http-api',
      comment: 'The dashboard (dashboard/) talks to the server over HTTP only: it imports nothing from src/, and src/ nothing from it.',
      severity: 'error',
      from: { path: '^dashboard/' },
      to: { path: '^(src|packages)/' },
    },
    { name: 'server-does-not-import-the-dashboard', severity: 'error', from: { path: '^src/' }, to: { path: '^dashboard/' } },
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
      from: { path: '^src/(auth|projects|tables|query|store|email|errors|lib)/' },
      to: { path: '^src/(http|app|cli)/|fastify' },
    },
    {
      name: 'http-does-not-build-the-app',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/(app|cli)/', ...runtime },
    },
    {
      name: 'store-knows-only-the-table-model',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/(auth|projects|tables|email|http)/', pathNot: '^src/tables/definition\\.ts$' },
    },
    {
      name: 'openapi-is-a-printer',
      comment: 'src/openapi/ prints documents and types from table definitions: no HTTP, no storage, no driver.',
      severity: 'error',
      from: { path: '^src/openapi/' },
      to: { path: '^src/(http|app|cli|store|auth|projects|email)/|fastify|better-sqlite3|node_modules/(pg|redis)/' },
    },
    {
      name: 'tables-below-auth',
      severity: 'error',
      from: { path: '^src/(tables|projects)/' },
      to: { path: '^src/(auth|email)/', ...runtime },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
