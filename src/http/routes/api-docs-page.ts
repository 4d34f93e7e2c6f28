/**
 * The page of GET /p/{id}/docs: an HTML shell, its script and its style. The script reads
 * the admin key from a form field (never a URL), fetches the OpenAPI document with it in
 * X-Admin-Key, and hands the document to Swagger UI. No inline script: the page's CSP
 * allows scripts from this server only.
 */
import { escapeHtml } from '../../auth/auth-emails.js';

/** The HTML of the reference page for a project (the id is escaped like any text). */
export function docsPageHtml(projectId: string): string {
  const id = escapeHtml(projectId);
  const assets = `/p/${escapeHtml(encodeURIComponent(projectId))}/docs/assets`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference: ${id}</title>
<link rel="stylesheet" href="${assets}/swagger-ui.css">
<link rel="stylesheet" href="${assets}/docs-page.css">
</head>
<body data-project="${id}">
<header class="rb-key">
<h1>API reference of project <code>${id}</code></h1>
<form id="rb-key-form" autocomplete="off">
<label for="rb-admin-key">Admin key</label>
<input id="rb-admin-key" type="password" placeholder="sk_..." required spellcheck="false" autocomplete="off">
<button type="submit">Show the reference</button>
</form>
<p id="rb-key-status" role="status"></p>
<p class="rb-note">The key is sent in the X-Admin-Key header to read this project's OpenAPI document and is kept only in this page's memory.</p>
</header>
<main id="swagger-ui"></main>
<script src="${assets}/swagger-ui-bundle.js"></script>
<script src="${assets}/docs-page.js"></script>
</body>
</html>
`;
}

/**
 * The page script. The key input has no `name`, so even without this script the form could
 * never put the key in a URL.
 */
export const DOCS_PAGE_SCRIPT = `'use strict';
(function () {
  var project = document.body.getAttribute('data-project');
  var form = document.getElementById('rb-key-form');
  var input = document.getElementById('rb-admin-key');
  var status = document.getElementById('rb-key-status');
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var key = input.value.trim();
    if (!key) return;
    status.textContent = 'Loading the document...';
    fetch('/p/' + encodeURIComponent(project) + '/v1/openapi.json', { headers: { 'X-Admin-Key': key }, cache: 'no-store' })
      .then(function (response) {
        return response.json().then(function (body) { return { ok: response.ok, body: body }; });
      })
      .then(function (result) {
        if (!result.ok) {
          var error = (result.body && result.body.error) || {};
          status.textContent = (error.code || 'ERROR') + ': ' + (error.message || '') + ' ' + (error.suggestion || '');
          return;
        }
        status.textContent = '';
        var ui = SwaggerUIBundle({ spec: result.body, dom_id: '#swagger-ui', validatorUrl: null, deepLinking: false, persistAuthorization: false });
        ui.preauthorizeApiKey('AdminKey', key);
      })
      .catch(function () {
        status.textContent = 'The document could not be loaded. Check the connection and retry.';
      });
  });
})();
`;

/** The page's own style (the key form above Swagger UI). */
export const DOCS_PAGE_STYLE = `body { margin: 0; font-family: system-ui, sans-serif; }
.rb-key { padding: 16px 24px; border-bottom: 1px solid #ddd; background: #fafafa; }
.rb-key h1 { font-size: 1.25rem; margin: 0 0 12px; }
.rb-key form { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.rb-key input { min-width: 22rem; padding: 6px 8px; font-family: monospace; }
.rb-key button { padding: 6px 12px; }
.rb-note { color: #555; font-size: 0.875rem; margin: 8px 0 0; }
#rb-key-status:empty { display: none; }
#rb-key-status { color: #b00020; }
`;
