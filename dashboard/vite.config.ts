/**
 * Builds the admin dashboard (Preact) into dist/dashboard/, served by the server at /_/.
 * `npm run build` (and so `npm install`, through `prepare`) runs it; the output is not committed.
 */
import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/_/',
  plugins: [preact({ devToolsEnabled: false, prefreshEnabled: false })],
  // The SDK's sources in this checkout (its request core, SSE parser and error type), not a
  // built copy: the dashboard and the SDK always read the server the same way.
  resolve: { alias: { '@rowbase/client': fileURLToPath(new URL('../packages/client/src/index.ts', import.meta.url)) } },
  build: {
    outDir: fileURLToPath(new URL('../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    // The page's CSP is default-src 'self': no inline script, no data: URLs for assets.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    target: 'es2020',
    reportCompressedSize: false,
  },
});
