/**
 * What each project setting is called on the settings page: a label a person reads (with its
 * unit), a line of help, and an example for the free-text ones. The server's key stays the
 * field's name (and tooltip), so the page still maps one to one onto PATCH /v1/settings.
 */

/** How one setting is presented. */
export interface SettingLabel {
  label: string;
  help?: string;
  /** An example value, shown as an "e.g." hint in an empty field. */
  example?: string;
}

/** In the order the page shows them: where users may go, tokens and sessions, then mail and limits. */
const LABELS: Record<string, SettingLabel> = {
  allowed_redirect_origins: {
    label: 'Allowed redirect origins',
    help: 'Origins that password-reset links may point to, one per line.',
    example: 'https://app.example.com',
  },
  cors_origins: {
    label: 'Browser origins allowed to call the API (CORS)',
    help: 'Origins whose pages may call the data and auth API, one per line; * allows any.',
    example: 'https://app.example.com',
  },
  access_token_ttl: {
    label: 'Access token lifetime (seconds)',
    help:
      'How long a signed-in user’s access token lasts before ' +
      'the app refreshes it. 60 to 86400; default 3600 (1 hour).',
  },
  refresh_token_ttl: {
    label: 'Refresh token lifetime (seconds)',
    help: 'How long a session lasts. Default 2592000 (30 days).',
  },
  refresh_token_rotation: {
    label: 'Rotate refresh tokens',
    help: 'Each refresh returns a new refresh token; a replayed old one ends the session.',
  },
  revoke_sessions_on_password_change: {
    label: 'End sessions on password change',
    help: 'A password change or reset ends the user’s other sessions.',
  },
  require_verified_email: {
    label: 'Require a verified email to log in',
    help: 'Users must open the verification link before they can log in.',
  },
  min_password_length: {
    label: 'Minimum password length (characters)',
    help: 'Shortest password accepted at sign-up and reset.',
  },
  app_name: { label: 'App name', help: 'Shown in this project’s emails.', example: 'Acme Notes' },
  email_from: {
    label: 'Sender of emails',
    help: 'The From address of this project’s emails; empty: the server’s.',
    example: 'Acme <no-reply@acme.example>',
  },
  verify_redirect_url: {
    label: 'Page after email verification',
    help:
      'Where a browser opening a verification link is sent (its ' +
      'origin must be allowed above); empty: the built-in page.',
    example: 'https://app.example.com/verified',
  },
  rate_limits: { label: 'Auth rate limits', help: 'Past a limit, the auth endpoints answer 429 RATE_LIMITED.' },
  'rate_limits.failed_logins_per_email': { label: 'Failed logins per email (per 15 minutes)' },
  'rate_limits.mails_per_email_per_hour': { label: 'Reset and verification mails per email (per hour)' },
  'rate_limits.per_address_per_minute': { label: 'Requests per client address (per minute)' },
  data_rate_limits: {
    label: 'Data API rate limits',
    help:
      'Reads and writes a minute; past a limit, the data API answers 429 ' +
      'RATE_LIMITED. The admin key is never limited.',
  },
};

/**
 * The presentation of `key` (a setting, or `setting.field` inside an
 * object one); a setting this list does not know reads as its words.
 */
export function settingLabel(key: string): SettingLabel {
  const known = LABELS[key];
  if (known) return known;
  const words = (key.split('.').pop() ?? key).replace(/_/g, ' ');
  return { label: words.charAt(0).toUpperCase() + words.slice(1) };
}

/** Orders settings as LABELS lists them; unknown ones last, by name. */
export function compareSettings(a: string, b: string): number {
  const known = Object.keys(LABELS);
  const rank = (key: string) => (known.includes(key) ? known.indexOf(key) : known.length);
  return rank(a) - rank(b) || a.localeCompare(b);
}
