/**
 * The admin dashboard (contract §12): the built Preact app from dist/dashboard/, served at
 * /_/ with the page security headers on every answer (HTML, assets and errors alike). When the
 * build is missing, /_/ answers 503 DASHBOARD_NOT_BUILT instead of failing.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import { PAGE_SECURITY_HEADERS } from '../page-headers.js';

/** Where `npm run build` puts the dashboard: dist/dashboard/ at the package root (same from src/ and dist/). */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../../dist/dashboard/', import.meta.url));

/** The path prefix the dashboard is served under. */
export const DASHBOARD_PREFIX = '/_/';

/**
 * Registers GET /_/ and its assets. `root` is the built dashboard (tests point it elsewhere);
 * without its index.html every /_/ path answers 503 DASHBOARD_NOT_BUILT.
 */
export async function registerDashboardRoutes(app: FastifyInstance, options: { root?: string } = {}): Promise<void> {
  const root = options.root ?? DASHBOARD_DIR;
  // Set before anything else runs, so error answers under /_/ (404, 503) carry the headers too.
  app.addHook('onRequest', async (request, reply) => {
    if (request.url === '/_' || request.url.startsWith('/_/') || request.url.startsWith('/_?'))
      reply.headers(PAGE_SECURITY_HEADERS);
  });
  if (!existsSync(path.join(root, 'index.html'))) {
    const notBuilt = async () => {
      throw new AppError('DASHBOARD_NOT_BUILT');
    };
    // The app ignores trailing slashes: '/_' answers '/_/' too.
    app.get('/_', notBuilt);
    app.get('/_/*', notBuilt);
    return;
  }
  // The page itself at /_ and /_/ (the static plugin serves the hashed assets). Read per request
  // (it is tiny), so a rebuild while the server runs never serves a page naming deleted assets.
  const sendPage = async (_request: unknown, reply: FastifyReply) => {
    const page = await readFile(path.join(root, 'index.html')).catch(() => {
      throw new AppError('DASHBOARD_NOT_BUILT'); // removed since the server started (a build in progress)
    });
    return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(page);
  };
  app.get('/_', sendPage);
  app.get('/_/index.html', sendPage);
  await app.register(fastifyStatic, {
    root,
    prefix: DASHBOARD_PREFIX,
    decorateReply: false,
    index: false,
    dotfiles: 'deny',
    cacheControl: false,
    setHeaders: (reply, file) => {
      // Asset names carry a content hash: cache them for good; the page itself is always revalidated.
      const immutable = file.includes(`${path.sep}assets${path.sep}`);
      reply.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
}
