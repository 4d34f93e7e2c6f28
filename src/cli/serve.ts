/** `rowbase serve`: build the app, listen, and shut down gracefully on SIGTERM/SIGINT. */
import { buildApp } from '../app/build-app.js';
import type { Config } from '../config/config.js';
import { refusalFor } from './write-lock.js';

/** Runs the server until a signal; resolves with the exit code. */
export async function serve(config: Config): Promise<number> {
  // The app takes a SQLite data folder for itself: a second server on it is refused, naming the holder.
  const { app, services } = await buildApp(config).catch((error: unknown) => {
    throw refusalFor(error, 'serve');
  });
  if (services.platformKey.generated) {
    // Printed once, on stdout rather than the log, so it is not kept in log files.
    process.stdout.write(
      `\nGenerated platform key (shown once; only its hash is stored):\n\n  ${services.platformKey.generated}\n\n` +
        `Use it as X-Platform-Key for /v1/projects. To choose your own, set PLATFORM_KEY.\n\n`,
    );
  }
  const address = await app.listen({ host: config.host, port: config.port });
  const storage = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `SQLite files under ${config.dataDir}`;
  process.stdout.write(`Rowbase listening on ${address}; data: ${storage}\n`);

  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      app.log.info({ signal }, 'shutting down: finishing in-flight requests');
      // app.close stops accepting, waits for in-flight requests, then closes storage (onClose hook).
      app.close().then(
        () => resolve(0),
        (error: unknown) => {
          app.log.error({ err: error }, 'shutdown failed');
          resolve(1);
        },
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
}
