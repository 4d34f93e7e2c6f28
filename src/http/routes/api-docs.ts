/**
 * GET /p/{id}/docs: an interactive reference of the project's OpenAPI document (Swagger UI,
 * served from this server, no CDN). The page is public; it asks for the publishable or the
 * admin key in a form and fetches the document with it in a header, so the key never appears
 * in a URL.
 */
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ProjectRegistry } from '../../projects/project-registry.js';
import { AppError } from '../../errors/app-error.js';
import { PAGE_SECURITY_HEADERS } from '../page-headers.js';
import { DOCS_PAGE_SCRIPT, DOCS_PAGE_STYLE, docsPageHtml } from './api-docs-page.js';

type WithId = { Params: { id: string } };
type WithFile = { Params: { id: string; file: string } };

/**
 * The page policy, plus `data:` images: Swagger UI's stylesheet draws its icons as data: URIs.
 * Script stays 'self' only (no inline script, no eval), as on every page.
 */
export const DOCS_PAGE_CSP = `${PAGE_SECURITY_HEADERS['content-security-policy']}; img-src 'self' data:`;
const DOCS_HEADERS = Object.freeze({ ...PAGE_SECURITY_HEADERS, 'content-security-policy': DOCS_PAGE_CSP });

const SWAGGER_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The files the page loads: Swagger UI's bundle and stylesheet, and the page's own script and style. */
const ASSETS: Readonly<Record<string, { type: string; file?: string; text?: string }>> = Object.freeze({
  'swagger-ui-bundle.js': {
    type: 'text/javascript; charset=utf-8',
    file: path.join(SWAGGER_DIR, 'swagger-ui-bundle.js'),
  },
  'swagger-ui.css': { type: 'text/css; charset=utf-8', file: path.join(SWAGGER_DIR, 'swagger-ui.css') },
  'docs-page.js': { type: 'text/javascript; charset=utf-8', text: DOCS_PAGE_SCRIPT },
  'docs-page.css': { type: 'text/css; charset=utf-8', text: DOCS_PAGE_STYLE },
});

/** What the API docs routes use: only these services. */
export interface ApiDocsRouteDeps {
  /** The projects, their keys and settings. */
  readonly registry: ProjectRegistry;
}

/** Registers GET /p/:id/docs and its assets under /p/:id/docs/assets/. Throws PROJECT_NOT_FOUND, NOT_FOUND. */
export function registerApiDocsRoutes(app: FastifyInstance, services: ApiDocsRouteDeps): void {
  const { registry } = services;
  const send = (reply: FastifyReply, type: string, body: unknown): FastifyReply =>
    reply.headers(DOCS_HEADERS).type(type).send(body);

  app.get<WithId>('/p/:id/docs', async (request, reply) => {
    const state = await registry.get(request.params.id);
    reply.header('cache-control', 'no-store');
    return send(reply, 'text/html; charset=utf-8', docsPageHtml(state.project.id));
  });

  app.get<WithFile>('/p/:id/docs/assets/:file', async (request, reply) => {
    await registry.get(request.params.id);
    const asset = Object.hasOwn(ASSETS, request.params.file) ? ASSETS[request.params.file] : undefined;
    if (!asset) throw new AppError('NOT_FOUND', { message: `The API reference has no file "${request.params.file}".` });
    reply.header('cache-control', 'public, max-age=3600');
    return send(reply, asset.type, asset.file ? createReadStream(asset.file) : asset.text);
  });
}
