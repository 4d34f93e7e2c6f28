/**
 * Key and secret rotation (contract §3): POST rotate-keys, POST rotate-jwt-secret, GET keys.
 * Authorised by X-Admin-Key. New keys appear in full only in the rotate-keys answer.
 */
import { Ajv } from 'ajv';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../lib/clock.js';
import type { AuthService } from '../../auth/auth-service.js';
import type { ProjectRegistry } from '../../projects/project-registry.js';
import { AppError } from '../../errors/app-error.js';
import { lazyValidator } from '../../lib/lazy-validator.js';
import type { KeyType } from '../../projects/keys.js';
import { requireAdminKey, requireCurrentAdminKey } from '../credentials.js';

type ProjectRoute = { Params: { id: string } };

/** The longest grace period an old key may keep working after rotate-keys. */
export const MAX_GRACE_SECONDS = 86_400;

const ajv = new Ajv({ allErrors: false, strict: true });
const validateRotateKeys = lazyValidator<{ type?: KeyType; grace_seconds?: number }>(ajv, {
  type: 'object',
  additionalProperties: false,
  properties: {
    type: { enum: ['sk', 'pk'] },
    grace_seconds: { type: 'integer', minimum: 0, maximum: MAX_GRACE_SECONDS },
  },
});
const validateRotateJwt = lazyValidator<{ revoke_sessions?: boolean }>(ajv, {
  type: 'object',
  additionalProperties: false,
  properties: { revoke_sessions: { type: 'boolean' } },
});

/** An absent body is an empty one: both endpoints take optional bodies. */
function optionalBody(body: unknown): unknown {
  return body === undefined || body === null ? {} : body;
}

/** What the admin key routes use: only these services. */
export interface AdminKeyRouteDeps {
  /** The projects, their keys and settings. */
  readonly registry: ProjectRegistry;
  /** The auth flows and their rate limits. */
  readonly auth: AuthService;
  /** The clock (tests replace it). */
  readonly clock: Clock;
}

/**
 * Registers POST rotate-keys, POST rotate-jwt-secret (current admin key only) and GET keys
 * (admin key, grace keys too). Errors: PROJECT_NOT_FOUND, AUTH_REQUIRED, AUTH_INVALID_KEY, VALIDATION_FAILED.
 */
export function registerAdminKeyRoutes(app: FastifyInstance, services: AdminKeyRouteDeps): void {
  const { registry, auth, clock } = services;
  const admin = async (request: FastifyRequest) => {
    const { id } = request.params as { id: string };
    requireAdminKey(request, await registry.get(id), registry);
  };
  // Rotations take the current admin key only: a key in its grace period cannot replace the keys or the secret.
  const currentAdmin = async (request: FastifyRequest) => {
    const { id } = request.params as { id: string };
    requireCurrentAdminKey(request, await registry.get(id), registry);
  };

  app.post<ProjectRoute>('/p/:id/v1/rotate-keys', { onRequest: currentAdmin }, async (request) => {
    const body = optionalBody(request.body);
    if (!validateRotateKeys(body)) {
      throw new AppError('VALIDATION_FAILED', {
        message: `rotate-keys: ${describe(validateRotateKeys.errors?.[0])}.`,
        suggestion:
          'Send nothing (rotates both keys), or {"type": ' + `"sk" | "pk", "grace_seconds": 0..${MAX_GRACE_SECONDS}}.`,
      });
    }
    const types: KeyType[] = body.type ? [body.type] : ['sk', 'pk'];
    const fresh = await registry.rotateKeys(request.params.id, types, body.grace_seconds ?? 0);
    return {
      data: {
        ...(fresh.sk !== undefined && { admin_key: fresh.sk }),
        ...(fresh.pk !== undefined && { publishable_key: fresh.pk }),
      },
    };
  });

  app.post<ProjectRoute>('/p/:id/v1/rotate-jwt-secret', { onRequest: currentAdmin }, async (request) => {
    const body = optionalBody(request.body);
    if (!validateRotateJwt(body)) {
      throw new AppError('VALIDATION_FAILED', {
        message: `rotate-jwt-secret: ${describe(validateRotateJwt.errors?.[0])}.`,
        suggestion: 'Send nothing, or {"revoke_sessions": true} to also end every refresh token.',
      });
    }
    const rotatedAt = await registry.rotateJwtSecret(request.params.id);
    if (body.revoke_sessions === true) await auth.revokeAllSessions(request.params.id);
    return { data: { rotated_at: rotatedAt } };
  });

  app.get<ProjectRoute>('/p/:id/v1/keys', { onRequest: admin }, async (request) => {
    // The cached state may hold an old last_used_at: read the keys afresh.
    registry.invalidate(request.params.id);
    const { keys } = await registry.get(request.params.id);
    const now = new Date(clock.now()).toISOString();
    const live = keys.filter((key) => key.expires_at === null || key.expires_at > now);
    live.sort((a, b) => a.type.localeCompare(b.type) || a.created_at.localeCompare(b.created_at));
    return {
      data: live.map((key) => ({
        type: key.type,
        prefix: key.prefix,
        created_at: key.created_at,
        last_used_at: key.last_used_at,
        expires_at: key.expires_at,
      })),
    };
  });
}

function describe(
  error: { instancePath: string; keyword: string; message?: string; params: Record<string, unknown> } | undefined,
): string {
  if (!error) return 'the body is invalid';
  if (error.keyword === 'additionalProperties')
    return `${String(error.params.additionalProperty)} is not a field of this request`;
  if (error.instancePath === '') return 'the body must be a JSON object';
  return `${error.instancePath.slice(1)} ${error.message ?? 'is invalid'}`;
}
