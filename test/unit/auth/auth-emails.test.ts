import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeHtml, resetMail, verificationMail } from '../../../src/auth/auth-emails.js';

describe('auth mails', () => {
  const hostile = `<img src=x onerror="alert('x')"> & Co`;
  for (const [name, render] of [
    ['verification', verificationMail],
    ['reset', resetMail],
  ] as const) {
    it(`${name}: names the app in subject, text and HTML; escapes it and the link in HTML`, () => {
      const link = 'https://app.example.com/reset?a=1&token="><script>';
      const mail = render(hostile, link);
      assert.ok(mail.subject.includes(hostile));
      assert.ok(mail.text.includes(hostile) && mail.text.includes(link));
      assert.ok(!mail.html.includes('<img') && !mail.html.includes('<script>'));
      assert.ok(mail.html.includes(escapeHtml(hostile)));
      assert.ok(mail.html.includes(`href="${escapeHtml(link)}"`));
    });
  }

  it('control characters in the app name never reach the Subject header', () => {
    const mail = verificationMail('Acme\r\nBcc: victim@example.com', 'https://x.example/');
    assert.ok(!/[\r\n]/.test(mail.subject), mail.subject);
  });

  it('escapeHtml covers the five special characters', () => {
    assert.equal(escapeHtml(`&<>"'`), '&amp;&lt;&gt;&quot;&#39;');
  });
});
