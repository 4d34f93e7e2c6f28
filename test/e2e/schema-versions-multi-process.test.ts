/**
 * Create-only and versioned table writes across processes (contract §2): two `rowbase serve`
 * processes on one PostgreSQL database send the same conditional write at the same moment.
 * The precondition is checked inside the schema lock, so exactly one of them applies.
 * @engine postgres — the PostgreSQL pass only (SQLite is one process by design).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startProcessPair, type ProcessPair } from '../helpers/process-pair.js';

const project = 'versions';
const ROUNDS = 5;

describe('conditional table writes from two processes on one PostgreSQL database', () => {
  let pair: ProcessPair;
  before(async () => {
    pair = await startProcessPair(project);
  });
  after(() => pair?.stop());

  const send = async (url: string, method: string, table: string, headers: Record<string, string>, body: unknown) => {
    const response = await fetch(`${url}/p/${project}/v1/tables/${table}`, {
      method,
      headers: { ...pair.admin, ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      body: (await response.json()) as { error?: { code: string } },
      etag: response.headers.get('etag'),
    };
  };
  const codes = (answers: { status: number; body: { error?: { code: string } } }[]) =>
    answers.map((a) => a.body.error?.code ?? String(a.status)).sort();

  it('If-None-Match: * sent through both at once creates the table once; the other gets 412 TABLE_EXISTS', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const table = `created_${round}`;
      const answers = await Promise.all([
        send(pair.a.url, 'PUT', table, { 'if-none-match': '*' }, { columns: [{ name: 'from_a', type: 'text' }] }),
        send(pair.b.url, 'PUT', table, { 'if-none-match': '*' }, { columns: [{ name: 'from_b', type: 'text' }] }),
      ]);
      assert.deepEqual(codes(answers), ['201', 'TABLE_EXISTS'], JSON.stringify(answers));
    }
  });

  it('the same If-Match sent through both at once applies once; the other gets 412 SCHEMA_CHANGED', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const table = `matched_${round}`;
      const created = await send(pair.a.url, 'PUT', table, {}, { columns: [{ name: 'title', type: 'text' }] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const etag = created.etag!;
      const answers = await Promise.all([
        send(pair.a.url, 'PATCH', table, { 'if-match': etag }, { rules: { list: '' } }),
        send(
          pair.b.url,
          'PUT',
          table,
          { 'if-match': etag },
          { columns: [{ name: 'title', type: 'text' }], rules: { view: '' } },
        ),
      ]);
      assert.deepEqual(codes(answers), ['200', 'SCHEMA_CHANGED'], JSON.stringify(answers));
      const winner = answers.find((a) => a.status === 200)!;
      const now = await fetch(`${pair.b.url}/p/${project}/v1/tables/${table}`, { headers: pair.admin });
      assert.equal(now.headers.get('etag'), winner.etag, "the table is the winner's version");
    }
  });
});
