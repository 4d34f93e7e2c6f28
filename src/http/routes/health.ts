/** GET /health: 200 once storage answers, 503 otherwise. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../app/services.js';
import { AppError } from '../../errors/app-error.js';

export function registerHealthRoutes(app: FastifyInstance, services: Services): void {
  app.get('/health', async () => {
    if (!(await services.storage.ping())) throw new AppError('SERVICE_UNAVAILABLE', { message: 'Storage does not answer.' });
    return { status: 'ok' };
  });
}
