/** GET /health: 200 once storage answers, 503 otherwise. */
import type { FastifyInstance } from 'fastify';
import type { StorageEngine } from '../../store/types.js';
import { AppError } from '../../errors/app-error.js';
import { RETRY_AFTER_UNAVAILABLE_SECONDS } from '../error-handler.js';

/** What the health route uses: the storage it pings. */
export interface HealthRouteDeps {
  readonly storage: Pick<StorageEngine, 'ping'>;
}

/** Registers GET /health. Errors: SERVICE_UNAVAILABLE (with Retry-After). */
export function registerHealthRoutes(app: FastifyInstance, services: HealthRouteDeps): void {
  app.get('/health', async () => {
    if (!(await services.storage.ping())) {
      throw new AppError('SERVICE_UNAVAILABLE', {
        message: 'Storage does not answer.',
        suggestion:
          'Take this process out of rotation and check again in a few ' +
          'seconds; it reconnects by itself once the database is back.',
        headers: { 'retry-after': String(RETRY_AFTER_UNAVAILABLE_SECONDS) },
      });
    }
    return { status: 'ok' };
  });
}
