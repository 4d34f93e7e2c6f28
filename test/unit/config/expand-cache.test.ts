/** EXPAND_CACHE_MB in the Config (docs/api.md, "Expanded rows between requests"): default, variable, flag, refusals. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, SETTINGS } from '../../../src/config/config.js';

describe('EXPAND_CACHE_MB', () => {
  it('unset → 32 MiB', () => assert.equal(loadConfig({}).expandCacheMb, 32));
  it('0 → nothing kept', () => assert.equal(loadConfig({ EXPAND_CACHE_MB: '0' }).expandCacheMb, 0));
  it('the flag wins over the variable', () =>
    assert.equal(loadConfig({ EXPAND_CACHE_MB: '8' }, { 'expand-cache-mb': '128' }).expandCacheMb, 128));
  for (const value of ['-1', '1.5', '32MB']) {
    it(`"${value}" → refused, naming the variable`, () => {
      assert.throws(
        () => loadConfig({ EXPAND_CACHE_MB: value }),
        (error: unknown) =>
          error instanceof ConfigError && /EXPAND_CACHE_MB must be a whole number from 0/.test(error.message),
      );
    });
  }
  it('is a declared setting, so `rowbase serve` knows --expand-cache-mb', () => {
    assert.ok(SETTINGS.some((setting) => setting.flag === '--expand-cache-mb' && setting.env === 'EXPAND_CACHE_MB'));
  });
});
