/**
 * One feed per project, loaded once, forgotten on failure or
 * when its last stream leaves (src/realtime/feed-registry.ts).
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { FeedRegistry } from '../../../src/realtime/feed-registry.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('feed registry', () => {
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', record);
  });
  afterEach(() => process.off('unhandledRejection', record));

  it('loads a project feed once for every asker', async () => {
    let loads = 0;
    const feeds = new FeedRegistry(async (id) => ({ id, n: ++loads }), { warn: () => undefined });
    const [a, b] = await Promise.all([feeds.get('p'), feeds.get('p')]);
    assert.equal(a, b);
    assert.equal(loads, 1);
    assert.deepEqual(feeds.projects(), ['p']);
  });

  it('a failed load rejects the asker only, is logged once, leaves nothing unhandled, is retried', async () => {
    const warnings: string[] = [];
    let fail = true;
    const feeds = new FeedRegistry(
      async (id) => {
        await tick();
        if (fail) throw new Error('database unreachable');
        return { id };
      },
      { warn: (_object, message) => warnings.push(message) },
    );
    const asked = feeds.get('p');
    let used = 0;
    feeds.withFeed('p', () => used++);
    feeds.release('p', () => true);
    await assert.rejects(asked, /unreachable/);
    await tick();
    assert.deepEqual(unhandled, []);
    assert.equal(used, 0);
    assert.deepEqual(warnings, ['realtime: loading the project feed failed']);
    assert.deepEqual(feeds.projects(), [], 'forgotten');
    fail = false;
    assert.deepEqual(await feeds.get('p'), { id: 'p' });
  });

  it('a failing step is logged and leaves nothing unhandled', async () => {
    const warnings: string[] = [];
    const feeds = new FeedRegistry(async (id) => ({ id }), { warn: (_object, message) => warnings.push(message) });
    await feeds.get('p');
    feeds.withFeed('p', () => {
      throw new Error('boom');
    });
    await tick();
    assert.deepEqual(unhandled, []);
    assert.deepEqual(warnings, ['realtime: a step of the project feed failed']);
  });

  it('withFeed never loads a feed', async () => {
    const feeds = new FeedRegistry(async () => assert.fail('no load'), { warn: () => undefined });
    feeds.withFeed('p', () => assert.fail('no feed'));
    await tick();
    assert.deepEqual(feeds.projects(), []);
  });

  it('forgets a feed when its last stream leaves, not before; the next stream loads a new one', async () => {
    let loads = 0;
    const feeds = new FeedRegistry(async () => ({ n: ++loads, streams: 2 }), { warn: () => undefined });
    const first = await feeds.get('p');
    feeds.release('p', (feed) => --feed.streams === 0);
    await tick();
    assert.deepEqual(feeds.projects(), ['p'], 'one stream is left');
    feeds.release('p', (feed) => --feed.streams === 0);
    await tick();
    assert.deepEqual(feeds.projects(), []);
    assert.notEqual(await feeds.get('p'), first);
    assert.equal(loads, 2);
  });
});
