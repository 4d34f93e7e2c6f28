/**
 * Help texts of the rowbase CLI. A command accepts exactly the flags its help text names
 * (plus the settings, --help and --json; see known-flags.ts): document a new flag here.
 */
import { SETTINGS } from '../config/config.js';

const settingLines = SETTINGS.map((s) => `  ${`${s.flag} <value>`.padEnd(28)} ${s.env.padEnd(20)} ${s.help}`).join(
  '\n',
);

export const HELP = {
  main: `rowbase — a backend with a generated REST API and built-in auth

Usage: rowbase <command> [options]

Commands:
  serve                          run the server (SQLite under ./data by default)
  projects create --name NAME    create a project and print its keys
  projects list                  list projects
  projects delete ID             delete a project and all its data
  schema apply --project ID FILE apply a schema file, printing the plan first
  export --project ID FILE       write a project (schema, rows, users, settings) to FILE
  import FILE [--project NEW_ID] read a project from FILE (any engine to any engine)
  openapi --project ID           print the project's OpenAPI 3.1 document
  types --project ID             print TypeScript declarations of the project's tables

Run "rowbase <command> --help" for a command's options.`,
  serve: `Usage: rowbase serve [options]

Starts the HTTP server. Each option can also be set by its environment variable.

${settingLines}`,
  projects: `Usage:
  rowbase projects create --name NAME [--id ID] [--json]
  rowbase projects list [--json]
  rowbase projects delete ID [--json]

Works directly on the storage named by --data-dir / DATA_DIR or --database-url / DATABASE_URL.
Keys are printed once, at creation; only their hashes are stored.
On SQLite, create and delete refuse while a server runs on the data folder (use the
HTTP API, or stop the server first); list runs beside it.`,
  schema: `Usage: rowbase schema apply --project ID FILE.json [--dry-run] [--allow-destructive] [--json]

FILE.json holds {"tables": {"name": <table definition>, ...}} (see docs/schema.md).
Prints the plan for every table, then applies the tables in file order, all or none.
--dry-run prints the plan only. Changes that lose data need --allow-destructive.
Tables in the project but not in the file are left alone.
On SQLite, applying refuses while a server runs on the data folder; --dry-run runs beside it.`,
  transfer: `Usage:
  rowbase export --project ID FILE [--json]
  rowbase import FILE [--project NEW_ID] [--json]

Moves a project between storages (SQLite under --data-dir / DATA_DIR, or PostgreSQL at
--database-url / DATABASE_URL): export from one, import into the other.
FILE holds one JSON record per line: the table definitions, every row (users with their
password hashes), settings, key hashes, the JWT secret, sessions and the outbox. It is
written with owner-only permissions; keep it safe.
Imported under its own id, the project keeps its keys, JWT secret and sessions, so clients
and signed-in users carry on. With --project NEW_ID it is a copy: new keys (printed once),
a new JWT secret, no sessions. An import is all or nothing.
On SQLite, export runs beside a server; import refuses while one runs on the data folder.`,
  openapi: `Usage: rowbase openapi --project ID [--url URL --admin-key KEY]

Prints the project's OpenAPI 3.1 document (the same as GET /p/{id}/v1/openapi.json).
Reads the storage named by --data-dir / DATA_DIR or --database-url / DATABASE_URL, or,
with --url (the server's base URL, as in PUBLIC_URL), asks a running server for it; the
admin key then comes from --admin-key or ROWBASE_ADMIN_KEY. See docs/openapi.md.`,
  types: `Usage: rowbase types --project ID [--url URL --admin-key KEY]

Prints TypeScript declarations of the project's tables: per table the row as read
(<Name>Row), the create body (<Name>Create) and the PATCH body (<Name>Update), and
Database, the map @rowbase/client is typed by. Save it: rowbase types --project ID > db.ts
Reads the storage named by --data-dir / DATA_DIR or --database-url / DATABASE_URL, or,
with --url (the server's base URL), a running server; the admin key then comes from
--admin-key or ROWBASE_ADMIN_KEY. See docs/openapi.md.`,
} as const;

/** The help text of `rowbase <command>` (the main help without a command), or undefined. */
export function helpOf(command: string | undefined): string | undefined {
  if (command === undefined) return HELP.main;
  if (command === 'export' || command === 'import') return HELP.transfer;
  return Object.hasOwn(HELP, command) ? HELP[command as keyof typeof HELP] : undefined;
}
