/**
 * The PostgreSQL timeouts in the Config (docs/deploy.md, "When PostgreSQL or Redis is down"):
 * defaults, environment variable, the matching `rowbase serve` flag winning over it, and
 * refusals that name the variable.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, SETTINGS } from '../../../src/config/config.js';

describe('PG_STATEMENT_TIMEOUT_MS and PG_POOL_TIMEOUT_MS', () => {
  const scenarios: {
    name: string;
    env?: Record<string, string>;
    flags?: Record<string, string>;
    statement?: number;
    pool?: number;
    refused?: RegExp;
  }[] = [
    { name: 'unset → 30 s per statement, 5 s to get a connection', statement: 30_000, pool: 5_000 },
    {
      name: 'environment variables in milliseconds',
      env: { PG_STATEMENT_TIMEOUT_MS: '1500', PG_POOL_TIMEOUT_MS: '250' },
      statement: 1500,
      pool: 250,
    },
    {
      name: 'the flag wins over the variable',
      env: { PG_STATEMENT_TIMEOUT_MS: '1500' },
      flags: { 'pg-statement-timeout-ms': '9000', 'pg-pool-timeout-ms': '700' },
      statement: 9000,
      pool: 700,
    },
    { name: 'statement timeout 0 → no limit', env: { PG_STATEMENT_TIMEOUT_MS: '0' }, statement: 0, pool: 5_000 },
    {
      name: 'a unit in the value → refused, naming the variable',
      env: { PG_STATEMENT_TIMEOUT_MS: '30s' },
      refused: /PG_STATEMENT_TIMEOUT_MS must be a whole number/,
    },
    {
      name: 'a pool timeout under 100 ms → refused',
      env: { PG_POOL_TIMEOUT_MS: '10' },
      refused: /PG_POOL_TIMEOUT_MS must be a whole number from 100/,
    },
  ];
  for (const scenario of scenarios) {
    it(scenario.name, () => {
      const load = () => loadConfig(scenario.env ?? {}, scenario.flags ?? {});
      if (scenario.refused) {
        assert.throws(load, (error: unknown) => error instanceof ConfigError && scenario.refused!.test(error.message));
        return;
      }
      const config = load();
      assert.equal(config.pgStatementTimeoutMs, scenario.statement);
      assert.equal(config.pgPoolTimeoutMs, scenario.pool);
    });
  }

  it('both are declared settings, so `rowbase serve` knows their flags', () => {
    const flags = SETTINGS.map((setting) => setting.flag);
    assert.ok(flags.includes('--pg-statement-timeout-ms') && flags.includes('--pg-pool-timeout-ms'));
  });
});
