/**
 * The truthfulness check of the OpenAPI document (contract §9): every answer the HTTP test
 * suite gets on a documented path (/p/{id}/api/..., /p/{id}/auth/..., /p/{id}/realtime) must validate
 * against the schema the project's document gives for that path, method and status. The
 * document is built in-process from the server's own services (cached per schema version,
 * so no key is needed); validators are compiled once per document and response.
 *
 * The same document object is what GET /v1/openapi.json serves as JSON and what client
 * generators turn into types, so an answer that validates here also fits those types, with one
 * exception this helper also guards, once per document: openapi-typescript makes a property
 * with a `default` in a component schema required, which JSON Schema does not. A component
 * carrying `default` fails the check (test/scenarios/admin-openapi-typescript.test.ts compiles
 * real answers against the generated types).
 * `ROWBASE_OPENAPI_CHECK=off` turns the check off (for debugging only).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Services } from '../../src/app/services.js';
import type { OpenApiDocument } from '../../src/openapi/openapi-document.js';

// ajv-formats is CommonJS: its default export is the plugin function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020, options?: { mode?: 'fast' | 'full' }) => Ajv2020;

const METHODS = new Set(['get', 'post', 'patch', 'put', 'delete']);

/** A response as test-server.ts `request()` returns it. */
export interface CheckedResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  readonly text: string;
}

/** Thrown when an answer contradicts the document. */
export class OpenApiMismatch extends Error {
  override readonly name = 'OpenApiMismatch';
}

interface Compiled {
  readonly ajv: Ajv2020;
  readonly validators: Map<string, ValidateFunction>;
}
const compiled = new WeakMap<OpenApiDocument, Compiled>();

/** JSON pointers of `default` keywords under `components` (where generators read them as "always present"). */
export function defaultsInComponents(document: OpenApiDocument): string[] {
  const found: string[] = [];
  const walk = (value: unknown, pointer: string): void => {
    if (value === null || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      const at = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      // A property named "default" is a column, not the keyword.
      if (key === 'default' && !pointer.endsWith('/properties')) found.push(at);
      walk(child, at);
    }
  };
  walk(document.components, '#/components');
  return found;
}

function compiledFor(document: OpenApiDocument): Compiled {
  let entry = compiled.get(document);
  if (!entry) {
    const defaults = defaultsInComponents(document);
    if (defaults.length > 0) {
      throw new OpenApiMismatch(
        'OpenAPI: generated types would make these defaulted properties required, ' +
          `unlike the server's answers: ${defaults.slice(0, 5).join(', ')}`,
      );
    }
    // Fast formats: the email check is the same WHATWG rule the server applies.
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateFormats: true }), { mode: 'fast' });
    entry = { ajv, validators: new Map() };
    compiled.set(document, entry);
  }
  return entry;
}

type Operation = { responses?: Record<string, { content?: Record<string, { schema?: object }> }> };

/** The documented path template matching `path` (concrete paths first), with its item. */
function matchPath(
  document: OpenApiDocument,
  path: string,
  method: string,
): { template: string; operation: Operation } | undefined {
  const paths = document.paths as Record<string, Record<string, unknown>>;
  const segments = path.split('/');
  const candidates = Object.keys(paths).filter((template) => {
    const parts = template.split('/');
    return parts.length === segments.length && parts.every((part, i) => part.startsWith('{') || part === segments[i]);
  });
  // A concrete path wins over a template (OpenAPI's rule), but only if it has this method.
  candidates.sort((a, b) => (a.includes('{') ? 1 : 0) - (b.includes('{') ? 1 : 0));
  for (const template of candidates) {
    const operation = paths[template]![method] as Operation | undefined;
    if (operation) return { template, operation };
  }
  return undefined;
}

/**
 * Checks one answer; resolves when it is truthful or not on a documented path, throws
 * OpenApiMismatch otherwise. Answers without a documented JSON body are checked for status only.
 */
export async function checkAnswer(
  services: Services,
  method: string,
  route: string,
  response: CheckedResponse,
): Promise<void> {
  if (process.env.ROWBASE_OPENAPI_CHECK === 'off') return;
  const lower = method.toLowerCase();
  if (!METHODS.has(lower)) return;
  const match = /^\/p\/([^/?#]+)(\/(?:api|auth)(?:\/[^?#]*)?|\/realtime\/?)(?:[?#].*)?$/.exec(route);
  if (!match) return;
  let projectId: string;
  let path: string;
  try {
    projectId = decodeURIComponent(match[1]!);
    path = match[2]!
      .split('/')
      .map((s) => decodeURIComponent(s))
      .join('/')
      .replace(/\/+$/, '');
  } catch {
    return; // not a path the router would match either
  }
  // Only projects that exist have a document; it comes from the current schema. A project
  // whose storage fails (outage and fault tests) has nothing to check against, but a failure
  // of the generator itself (with the schema loaded) must surface.
  try {
    if (!(await services.registry.find(projectId))) return;
    await services.schemas.schema(projectId);
  } catch {
    return;
  }
  const document = (await services.openapi.artefacts(projectId)).document;
  const found = matchPath(document, path, lower);
  if (!found) return;
  const where = `${method} ${route} (documented as ${lower.toUpperCase()} ${found.template})`;
  const responses = found.operation.responses ?? {};
  const documented = responses[String(response.status)];
  if (!documented) {
    throw new OpenApiMismatch(
      `OpenAPI: ${where} answered ${response.status}, a status the document does not ` +
        `list (${Object.keys(responses).join(', ')}): ${response.text.slice(0, 300)}`,
    );
  }
  const media = documented.content?.['application/json'];
  if (!media?.schema) return;
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('application/json')) {
    // Another media type (the verification page's HTML) is checked for its status only, if documented.
    const media = type.split(';')[0]!.trim();
    if (documented.content && !documented.content[media])
      throw new OpenApiMismatch(
        `OpenAPI: ${where} answered ${response.status} with content-type "${type}", which the document does not list.`,
      );
    return;
  }
  if (response.body === undefined)
    throw new OpenApiMismatch(
      `OpenAPI: ${where} answered ${response.status} without a JSON body: ${response.text.slice(0, 300)}`,
    );
  const { ajv, validators } = compiledFor(document);
  const key = `${found.template} ${lower} ${response.status}`;
  let validate = validators.get(key);
  if (!validate) {
    // The response schema with the document's components beside it, so `#/components/...` resolves.
    validate = ajv.compile({ ...media.schema, components: document.components });
    validators.set(key, validate);
  }
  if (!validate(response.body)) {
    const errors = (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
      .join('; ');
    throw new OpenApiMismatch(
      `OpenAPI: ${where} answered ${response.status} with a body the document's ` +
        `schema refuses: ${errors}\nbody: ${response.text.slice(0, 500)}`,
    );
  }
}
