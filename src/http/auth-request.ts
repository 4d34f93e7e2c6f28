/**
 * Request helpers shared by the auth route files: the bearer token of a request and the
 * per-address rate limit of an endpoint.
 */
import type { FastifyRequest } from 'fastify';
import type { AuthService } from '../auth/auth-service.js';
import type { LimitedEndpoint } from '../auth/auth-rate-limits.js';
import { AppError } from '../errors/app-error.js';
import type { ProjectRegistry, ProjectState } from '../projects/project-registry.js';

/**
 * The access token of `Authorization: Bearer <token>`, or undefined when the header is
 * absent (the flow then answers AUTH_REQUIRED). Throws AUTH_INVALID_TOKEN for another scheme.
 */
export function bearerTokenOf(request: FastifyRequest): string | undefined {
  const raw = request.headers.authorization;
  if (raw === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(raw);
  if (!match) {
    throw new AppError('AUTH_INVALID_TOKEN', {
      message: 'The Authorization header is not "Bearer <token>".',
      suggestion: 'Send Authorization: Bearer <access token from signup, login or refresh>.',
    });
  }
  return match[1]!;
}

/**
 * Resolves the project of `/p/:id/auth/...` and, for a rate-limited endpoint, counts the
 * request against the client address (the socket peer, or X-Forwarded-For from a
 * TRUST_PROXY proxy: Fastify's `request.ip`). Throws PROJECT_NOT_FOUND, RATE_LIMITED.
 */
export async function authProject(
  request: FastifyRequest,
  registry: ProjectRegistry,
  auth: AuthService,
  endpoint?: LimitedEndpoint,
): Promise<ProjectState> {
  const { id } = request.params as { id: string };
  const state = await registry.get(id);
  if (endpoint) await auth.limits.checkAddress(state, endpoint, request.ip);
  return state;
}
