/**
 * A real browser for tests: Debian's Chromium driven by playwright-core (no browser download).
 * Without Chromium the caller's tests are skipped with a visible SKIPPED line; with
 * ROWBASE_REQUIRE_BROWSER=1 (set by .ci/run) a missing browser fails the run instead.
 */
import { existsSync } from 'node:fs';
import { after } from 'node:test';
import { chromium, type Browser } from 'playwright-core';

/** Where Debian's `chromium` package installs the browser; CHROMIUM_PATH overrides it. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Returns a `skip` option for `describe`/`test`: false when Chromium is there, otherwise the
 * reason (printed as a SKIPPED line). Throws when ROWBASE_REQUIRE_BROWSER=1 and it is missing.
 */
export function browserSkipReason(suite: string): string | false {
  if (existsSync(CHROMIUM_PATH)) return false;
  const line = `SKIPPED: ${suite} (no Chromium at ${CHROMIUM_PATH}; apt-get install -y chromium chromium-driver)`;
  if (process.env.ROWBASE_REQUIRE_BROWSER === '1') {
    throw new Error(`${line}; ROWBASE_REQUIRE_BROWSER=1 makes a missing browser a failure`);
  }
  console.log(`\n${'='.repeat(72)}\n${line}\n${'='.repeat(72)}`);
  return line;
}

let shared: Promise<Browser> | undefined;

// Registered when a test file imports this module, so it belongs to the file's root and runs
// once all its tests end (an `after` made inside a `before` hook would run at once).
after(async () => {
  const browser = await shared?.catch(() => undefined);
  await browser?.close();
});

/**
 * Launches headless Chromium once per test file (from a test,
 * hook or suite body); it is closed when the file's tests end.
 */
export function launchBrowser(): Promise<Browser> {
  shared ??= chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS, headless: true });
  return shared;
}
