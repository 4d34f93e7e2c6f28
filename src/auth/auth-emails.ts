/**
 * The mails the auth flows send: verification and password reset, each as plain text and
 * HTML naming the project's app. Every interpolated value is HTML-escaped in the HTML body.
 */

/** A rendered mail body. */
export interface RenderedMail {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!,
  );
}

function layout(appName: string, paragraphs: readonly string[], link: string, button: string, footer: string): string {
  const app = escapeHtml(appName);
  const href = escapeHtml(link);
  return [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${app}</title></head>`,
    '<body style="font-family: sans-serif; line-height: 1.5; color: #222;">',
    `<h2>${app}</h2>`,
    ...paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    `<p><a href="${href}" style="display: inline-block; padding: 10px 16px; background: #2563eb; ` +
      `color: #fff; text-decoration: none; border-radius: 4px;">${escapeHtml(button)}</a></p>`,
    `<p>If the button does not work, copy this address into your browser:<br><a href="${href}">${href}</a></p>`,
    `<p style="color: #666; font-size: 0.9em;">${escapeHtml(footer)}</p>`,
    '</body></html>',
  ].join('\n');
}

/** The app name for a Subject header: control characters (header injection) become spaces. */
function subjectName(appName: string): string {
  return appName.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

/** The verification mail for `appName` with its link (valid 24 hours). */
export function verificationMail(appName: string, link: string): RenderedMail {
  const intro = `Please confirm your email address for ${appName}.`;
  const footer = 'The link works once and expires in 24 hours. If you did not sign up, ignore this email.';
  return {
    subject: `Verify your email for ${subjectName(appName)}`,
    text: `${intro}\n\nOpen this link to confirm it:\n${link}\n\n${footer}\n`,
    html: layout(appName, [intro], link, 'Verify email', footer),
  };
}

/** The password-reset mail for `appName` with its link (valid 1 hour). */
export function resetMail(appName: string, link: string): RenderedMail {
  const intro = `Someone asked to reset the password of your ${appName} account.`;
  const footer =
    'The link works once and expires in 1 hour. If you did not ask ' +
    'for it, ignore this email: your password stays as it is.';
  return {
    subject: `Reset your ${subjectName(appName)} password`,
    text: `${intro}\n\nOpen this link to choose a new password:\n${link}\n\n${footer}\n`,
    html: layout(appName, [intro], link, 'Choose a new password', footer),
  };
}
