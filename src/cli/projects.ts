/** `rowbase projects create|list|delete`, working directly on storage. */
import { buildServices } from '../app/services.js';
import type { Config } from '../config/config.js';
import type { ParsedArgs } from './args.js';
import { HELP } from './help.js';
import type { Output } from './output.js';
import { buildWritingServices } from './write-lock.js';

/** Runs a projects subcommand; resolves with the exit code. */
export async function projectsCommand(config: Config, args: ParsedArgs, out: Output): Promise<number> {
  const [, action, target] = args.positionals;
  if (args.switches.has('help') || !action) {
    out.text(HELP.projects);
    return action || args.switches.has('help') ? 0 : 2;
  }
  // create and delete write: they hold a SQLite data folder, and refuse beside a running server.
  const services =
    action === 'create' || action === 'delete'
      ? await buildWritingServices(config, `projects ${action}`, target)
      : await buildServices(config);
  try {
    switch (action) {
      case 'create': {
        const created = await services.registry.create({
          name: args.flags.name,
          ...(args.flags.id !== undefined && { id: args.flags.id }),
        });
        const data = { ...created.project, admin_key: created.adminKey, publishable_key: created.publishableKey };
        // `{data: ...}` like `projects list --json` and the HTTP API's POST /v1/projects.
        out.result({ data }, () =>
          [
            `Created project "${data.name}" (id ${data.id}).`,
            `  admin key (X-Admin-Key):       ${data.admin_key}`,
            `  publishable key (X-Api-Key):   ${data.publishable_key}`,
            'The keys are shown only now; store them safely.',
          ].join('\n'),
        );
        return 0;
      }
      case 'list': {
        const { items, total } = await services.registry.list(1000, 0);
        out.result({ data: items, meta: { total } }, () =>
          items.length === 0
            ? 'No projects yet. Create one: rowbase projects create --name demo'
            : items.map((p) => `${p.id}\t${p.name}\t${p.created_at}`).join('\n'),
        );
        return 0;
      }
      case 'delete': {
        if (!target) {
          out.error('projects delete needs a project id: rowbase projects delete ID');
          return 2;
        }
        await services.registry.delete(target);
        out.result({ deleted: target }, () => `Deleted project ${target} and all its data.`);
        return 0;
      }
      default:
        out.error(`Unknown projects action "${action}".\n\n${HELP.projects}`);
        return 2;
    }
  } finally {
    await services.rateLimiter.close?.(); // a Redis connection (REDIS_URL) would keep the process alive
    await services.storage.close();
  }
}
