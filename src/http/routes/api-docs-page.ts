/**
 * The page of GET /p/{id}/docs: an HTML shell, its script and its style. The script reads a
 * key from a form field (never a URL): the admin key (sent in X-Admin-Key: the whole API) or
 * the publishable key (sent in X-Api-Key: the API as an anonymous client sees it, so the page
 * can be shared with front-end developers). It fetches the OpenAPI document with that header
 * and hands it to Swagger UI. No inline script: the page's CSP allows scripts from this
 * server only.
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
<label for="rb-key">Publishable or admin key</label>
<input id="rb-key" type="password" placeholder="pk_... or sk_..." required spellcheck="false" autocomplete="off">
<button type="submit">Show the reference</button>
</form>
<p id="rb-key-status" role="status"></p>
<p class="rb-note">With the publishable key (pk_) the reference shows the API as an anonymous client sees it: only \
the tables and operations whose rules are not null. Share this page and that key with front-end developers. \
The admin key (sk_) shows every table and operation; keep it to yourself.</p>
<p class="rb-note">The key is sent in a header (X-Api-Key or X-Admin-Key) to read this project's OpenAPI document, \
never in a URL, and is kept only in this page's memory.</p>
<p id="rb-audience" class="rb-audience"></p>
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
  var input = document.getElementById('rb-key');
  var status = document.getElementById('rb-key-status');
  var audience = document.getElementById('rb-audience');
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var key = input.value.trim();
    if (!key) return;
    // The prefix says which key it is; the server checks it all the same.
    var publishable = key.indexOf('pk_') === 0;
    var headers = publishable ? { 'X-Api-Key': key } : { 'X-Admin-Key': key };
    status.textContent = 'Loading the document...';
    audience.textContent = '';
    fetch('/p/' + encodeURIComponent(project) + '/v1/openapi.json', { headers: headers, cache: 'no-store' })
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
        audience.textContent = publishable
          ? 'Showing the API as the publishable key sees it: only the tables and operations its rules allow.'
          : 'Showing the whole API, as the admin key sees it.';
        var ui = SwaggerUIBundle({ spec: result.body, dom_id: '#swagger-ui', validatorUrl: null, \
deepLinking: false, persistAuthorization: false });
        ui.preauthorizeApiKey(publishable ? 'ApiKey' : 'AdminKey', key);
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
#rb-key-status:empty, #rb-audience:empty { display: none; }
.rb-audience { margin: 8px 0 0; font-weight: 600; }
#rb-key-status { color: #b00020; }
`;
