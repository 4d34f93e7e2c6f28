/** `rowbase schema apply --project ID FILE.json`: print the plan, then apply it. */
import { readFile } from 'node:fs/promises';
import { buildServices } from '../app/services.js';
import type { Config } from '../config/config.js';
import type { ParsedArgs } from './args.js';
import { HELP } from './help.js';
import type { Output } from './output.js';
import { buildWritingServices } from './write-lock.js';

export async function schemaCommand(config: Config, args: ParsedArgs, out: Output): Promise<number> {
  const [, action, file] = args.positionals;
  const projectId = args.flags.project;
  if (args.switches.has('help') || action !== 'apply' || !file || !projectId) {
    out.text(HELP.schema);
    return args.switches.has('help') ? 0 : 2;
  }
  let tables: Record<string, unknown>;
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { tables?: unknown };
    if (typeof parsed.tables !== 'object' || parsed.tables === null || Array.isArray(parsed.tables))
      throw new Error('the file needs {"tables": {"name": definition, ...}}');
    tables = parsed.tables as Record<string, unknown>;
  } catch (error) {
    out.error(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  // A dry run changes nothing, so it may run beside a server; applying holds a SQLite data folder.
  const services = args.switches.has('dry-run')
    ? await buildServices(config)
    : await buildWritingServices(config, 'schema apply', projectId);
  try {
    await services.registry.get(projectId);
    const allowDestructive = args.switches.has('allow-destructive');
    // Plan the whole file first (applied in one transaction, then rolled back), so later
    // tables may reference earlier ones and nothing changes if any table fails.
    const entries = Object.entries(tables);
    const planned = await services.schemas.putTables(projectId, entries, { allowDestructive: true, dryRun: true });
    const plans = planned.map(({ table, plan }) => ({
      table: table.name,
      steps: plan.steps,
      destructive: plan.destructive,
    }));
    if (!args.switches.has('json')) {
      out.text(`Plan for project ${projectId}:`);
      for (const plan of plans) {
        out.text(`  ${plan.table}: ${plan.steps.length === 0 ? 'no change' : ''}`);
        for (const step of plan.steps) out.text(`    - ${step}`);
        for (const loss of plan.destructive) out.text(`    ! ${loss}`);
      }
    }
    const lossy = plans.filter((p) => p.destructive.length > 0);
    if (lossy.length > 0 && !allowDestructive) {
      out.error(
        `the plan loses data in ${lossy.map((p) => p.table).join(', ')}; nothing was changed.`,
        'SCHEMA_CHANGE_DESTRUCTIVE',
        'Re-run with --allow-destructive if that is intended.',
      );
      return 1;
    }
    if (args.switches.has('dry-run')) {
      out.result({ plan: plans, applied: false }, () => 'Dry run: nothing was changed.');
      return 0;
    }
    await services.schemas.putTables(projectId, entries, { allowDestructive });
    out.result({ plan: plans, applied: true }, () => 'Applied.');
    return 0;
  } finally {
    await services.rateLimiter.close?.(); // a Redis connection (REDIS_URL) would keep the process alive
    await services.storage.close();
  }
}
