/**
 * Project settings: their defaults, the JSON schema a PATCH is checked against, and origin
 * normalisation for the redirect allow-list.
 */
import { Ajv } from 'ajv';
import { AppError } from '../errors/app-error.js';
import { lazyValidator } from '../lib/lazy-validator.js';
import { findUnpairedSurrogate, UNPAIRED_SURROGATE_SUGGESTION } from '../lib/unpaired-surrogate.js';
import { checkVerifyRedirectUrl } from './verify-redirect-url.js';

export interface RateLimitSettings {
  /** Requests per minute per client address on each rate-limited auth endpoint. */
  readonly per_address_per_minute: number;
  /** Failed logins per email per 15 minutes. */
  readonly failed_logins_per_email: number;
  /** Reset or verification mails per email per hour. */
  readonly mails_per_email_per_hour: number;
}

/**
 * Limits on the data API (contract §18): requests per minute, counted per client address or
 * per caller (the user, else the publishable key, else the address). A null limit: none.
 */
export interface DataRateLimitSettings {
  readonly reads_per_minute: number | null;
  readonly writes_per_minute: number | null;
  readonly per: 'address' | 'caller';
}

export interface ProjectSettings {
  readonly allowed_redirect_origins: readonly string[];
  /** `["*"]`, origins allowed to call the data, auth and realtime paths from a page, or `[]` (docs/browser-apps.md). */
  readonly cors_origins: readonly string[];
  readonly access_token_ttl: number;
  readonly refresh_token_ttl: number;
  readonly refresh_token_rotation: boolean;
  readonly revoke_sessions_on_password_change: boolean;
  readonly require_verified_email: boolean;
  readonly app_name: string | null;
  readonly email_from: string | null;
  readonly min_password_length: number;
  readonly rate_limits: RateLimitSettings;
  /** Limits on the data API (data-rate-limits.ts in auth/); null: none (the default). */
  readonly data_rate_limits: DataRateLimitSettings | null;
  /** Where a browser goes after opening a verification link (verify-redirect-url.ts); null: a page of our own. */
  readonly verify_redirect_url: string | null;
}

export const DEFAULT_SETTINGS: ProjectSettings = Object.freeze({
  allowed_redirect_origins: [],
  cors_origins: Object.freeze(['*']),
  access_token_ttl: 3600,
  refresh_token_ttl: 2_592_000,
  refresh_token_rotation: false,
  revoke_sessions_on_password_change: false,
  require_verified_email: false,
  app_name: null,
  email_from: null,
  min_password_length: 8,
  rate_limits: Object.freeze({ per_address_per_minute: 30, failed_logins_per_email: 10, mails_per_email_per_hour: 5 }),
  data_rate_limits: null,
  verify_redirect_url: null,
});

const positive = (max: number) => ({ type: 'integer', minimum: 1, maximum: max });
const patchSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    allowed_redirect_origins: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 300 } },
    cors_origins: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 300 } },
    access_token_ttl: { type: 'integer', minimum: 60, maximum: 86_400 },
    refresh_token_ttl: { type: 'integer', minimum: 300, maximum: 31_536_000 },
    refresh_token_rotation: { type: 'boolean' },
    revoke_sessions_on_password_change: { type: 'boolean' },
    require_verified_email: { type: 'boolean' },
    // Used in mail subjects: one line only.
    app_name: { anyOf: [{ type: 'null' }, { type: 'string', maxLength: 100, pattern: '^[^\\r\\n]*$' }] },
    // One line: `addr@host` or `Name <addr@host>`; a line break would let a value inject mail headers.
    email_from: {
      anyOf: [
        { type: 'null' },
        { type: 'string', maxLength: 254, pattern: '^(?:[^\\r\\n<>@]*<[^\\s<>@]+@[^\\s<>@]+>|[^\\s<>@]+@[^\\s<>@]+)$' },
      ],
    },
    min_password_length: { type: 'integer', minimum: 8, maximum: 256 },
    verify_redirect_url: { anyOf: [{ type: 'null' }, { type: 'string' }] },
    rate_limits: {
      type: 'object',
      additionalProperties: false,
      properties: {
        per_address_per_minute: positive(100_000),
        failed_logins_per_email: positive(100_000),
        mails_per_email_per_hour: positive(100_000),
      },
    },
    // Replaced whole, never merged: null clears it; a limit left out or null is no limit.
    data_rate_limits: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          properties: {
            reads_per_minute: { anyOf: [{ type: 'null' }, positive(1_000_000_000)] },
            writes_per_minute: { anyOf: [{ type: 'null' }, positive(1_000_000_000)] },
            per: { enum: ['address', 'caller'] },
          },
        },
      ],
    },
  },
} as const;

const validatePatch = lazyValidator<Record<string, unknown>>(new Ajv({ allErrors: false }), patchSchema);

// Plain words for the fields whose JSON Schema errors would read badly.
const FIELD_HINTS: Readonly<Record<string, string>> = {
  email_from: 'must be null or one line: "no-reply@example.com" or "My App <no-reply@example.com>"',
  app_name: 'must be null or one line of at most 100 characters',
  data_rate_limits:
    'must be null or { "reads_per_minute": integer 1..1000000000 or null, ' +
    '"writes_per_minute": integer 1..1000000000 or null, "per": "address" or "caller" }',
};

/**
 * Normalises an origin (`scheme://host[:port]`, http or https): lower-case, default port
 * dropped, an internationalised host in its punycode form. Throws VALIDATION_FAILED, naming
 * `field` (the setting being written), for anything with a path, query, fragment or
 * userinfo, a control character or whitespace (the URL parser would silently drop some), a
 * wildcard (it can never match a real origin), or a host that is neither a DNS name nor an
 * IP literal.
 */
export function normalizeOrigin(input: string, field = 'allowed_redirect_origins'): string {
  if (/[\u0000-\u0020\u007f-\u009f\s]/u.test(input)) {
    throw invalidOrigin(input, field, 'holds a control character or whitespace');
  }
  if (input.includes('*')) {
    throw invalidOrigin(
      input,
      field,
      'holds a wildcard, which never matches a real origin',
      'List every origin in full, e.g. "https://app.example.com" and "https://admin.example.com".',
    );
  }
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw invalidOrigin(input, field);
  }
  const bare = input.replace(/\/$/, '');
  const hasExtras =
    url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '' || url.pathname !== '/';
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    hasExtras ||
    bare.toLowerCase().includes('@') ||
    /[?#]/.test(input)
  ) {
    throw invalidOrigin(input, field);
  }
  if (!isDnsNameOrIp(url.hostname))
    throw invalidOrigin(input, field, 'has a host that is neither a DNS name nor an IP address');
  return url.origin;
}

/**
 * A parsed URL host that is an IP literal (the parser already checked it) or a DNS name of letter-digit-hyphen labels.
 */
function isDnsNameOrIp(hostname: string): boolean {
  if (hostname.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(hostname)) return true;
  return (
    hostname.length <= 253 && hostname.split('.').every((label) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(label))
  );
}

function invalidOrigin(
  input: string,
  field: string,
  reason = 'is not an origin (scheme://host[:port], http or https)',
  suggestion?: string,
): AppError {
  return new AppError('VALIDATION_FAILED', {
    message: `${field}: ${JSON.stringify(input)} ${reason}.`,
    suggestion:
      suggestion ??
      'Send origins only, without path, query or credentials, e.g. ' +
        '"https://app.example.com" or "http://localhost:3000".',
  });
}

/**
 * Normalises `cors_origins`: `["*"]` alone, or origins normalised like
 * `allowed_redirect_origins` (duplicates merged), or `[]`. Throws VALIDATION_FAILED for `"*"`
 * next to origins, or an entry that is not an origin (a wildcard inside one included).
 */
export function normalizeCorsOrigins(origins: readonly string[]): readonly string[] {
  if (origins.length > 0 && origins.every((origin) => origin === '*')) return Object.freeze(['*']);
  if (origins.includes('*')) {
    throw new AppError('VALIDATION_FAILED', {
      message: 'cors_origins: "*" allows every origin, so it cannot be listed next to origins.',
      suggestion:
        'Send ["*"] to allow every origin, or only origins, e.g. ["https://app.example.com", "http://localhost:5173"].',
    });
  }
  // Browsers match origins exactly: a pattern would look like it allows subdomains and never would.
  const pattern = origins.find((origin) => origin.includes('*'));
  if (pattern !== undefined) {
    throw new AppError('VALIDATION_FAILED', {
      message: `cors_origins: ${JSON.stringify(pattern)} holds a wildcard; only "*" alone allows several origins.`,
      suggestion:
        'List every origin in full, e.g. ["https://app.example.com", "https://admin.example.com"], or send ["*"].',
    });
  }
  return [...new Set(origins.map((origin) => normalizeOrigin(origin, 'cors_origins')))];
}

/**
 * Applies a PATCH to settings; throws VALIDATION_FAILED naming the first bad field (an unpaired surrogate included).
 */
export function applySettingsPatch(current: ProjectSettings, patch: unknown): ProjectSettings {
  if (!validatePatch(patch)) {
    const error = validatePatch.errors![0]!;
    const field =
      error.params && 'additionalProperty' in error.params
        ? String(error.params.additionalProperty)
        : error.instancePath.replace(/^\//, '').replaceAll('/', '.') || 'body';
    const reason =
      error.keyword === 'additionalProperties'
        ? 'is not a setting'
        : (FIELD_HINTS[field] ?? error.message ?? 'is invalid');
    throw new AppError('VALIDATION_FAILED', {
      message: `settings: ${field} ${reason}.`,
      suggestion: `Settings are: ${Object.keys(DEFAULT_SETTINGS).join(', ')}. See docs/auth.md.`,
    });
  }
  const surrogate = findUnpairedSurrogate(patch);
  if (surrogate !== undefined) {
    // Settings are text mails and headers are built from: they must be what was sent, on every engine.
    throw new AppError('VALIDATION_FAILED', {
      message:
        `settings: ${surrogate.path} holds an unpaired UTF-16 ` +
        `surrogate (${surrogate.escape}), which is not a character.`,
      suggestion: UNPAIRED_SURROGATE_SUGGESTION,
    });
  }
  const body = patch as Partial<ProjectSettings>;
  const next: ProjectSettings = Object.freeze({
    ...current,
    ...body,
    allowed_redirect_origins: body.allowed_redirect_origins
      ? [...new Set(body.allowed_redirect_origins.map((origin) => normalizeOrigin(origin)))]
      : current.allowed_redirect_origins,
    cors_origins: body.cors_origins ? normalizeCorsOrigins(body.cors_origins) : current.cors_origins,
    rate_limits: Object.freeze({ ...current.rate_limits, ...(body.rate_limits ?? {}) }),
    data_rate_limits:
      body.data_rate_limits === undefined ? current.data_rate_limits : normalizeDataRateLimits(body.data_rate_limits),
  });
  // Checked against the allow-list as it is after this PATCH (which may extend it).
  return body.verify_redirect_url === undefined
    ? next
    : Object.freeze({
        ...next,
        verify_redirect_url: checkVerifyRedirectUrl(body.verify_redirect_url, next.allowed_redirect_origins),
      });
}

/** The stored form of a valid `data_rate_limits` value: every field present, `per` defaulting to the address. */
function normalizeDataRateLimits(value: Partial<DataRateLimitSettings> | null): DataRateLimitSettings | null {
  if (value === null) return null;
  return Object.freeze({
    reads_per_minute: value.reads_per_minute ?? null,
    writes_per_minute: value.writes_per_minute ?? null,
    per: value.per ?? 'address',
  });
}

/** Reads stored settings, filling defaults for anything added since they were written. */
export function readSettings(stored: unknown): ProjectSettings {
  const value = (stored ?? {}) as Partial<ProjectSettings>;
  return Object.freeze({
    ...DEFAULT_SETTINGS,
    ...value,
    rate_limits: Object.freeze({ ...DEFAULT_SETTINGS.rate_limits, ...(value.rate_limits ?? {}) }),
  });
}
