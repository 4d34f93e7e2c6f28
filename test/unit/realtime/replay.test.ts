/** Resuming from `since` (src/realtime/replay.ts) over an in-memory log. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LoggedEvent } from '../../../src/changes/event-log.js';
import { replayRange, resumePoint, type EventPages } from '../../../src/realtime/replay.js';

/** A log holding these numbers, counting the pages read. */
function memoryPages(seqs: number[]): EventPages & { reads: number } {
  const events = seqs.map((seq) => ({ seq, kind: 'row' }) as unknown as LoggedEvent);
  const read = Object.assign(
    async (after: number, limit: number) => {
      read.reads++;
      return events.filter((event) => event.seq > after).slice(0, limit);
    },
    { reads: 0 },
  );
  return read;
}

describe('resume point', () => {
  const log = { lastSeq: 40, trimmedThrough: 10 };
  it('resumes from a number the kept log still reaches back to', () => {
    assert.equal(resumePoint('10', log), 10);
    assert.equal(resumePoint('40', log), 40);
  });
  it('asks for a reset when since is trimmed away, past the head, or malformed', () => {
    for (const since of ['9', '41', '', '-1', '01', '1.5', 'abc', '12345678901234567'])
      assert.equal(resumePoint(since, log), undefined, since);
  });
});

describe('replay range', () => {
  it('delivers every entry after since up to until, in order, across pages and gaps, and no further', async () => {
    const read = memoryPages([1, 2, 3, 5, 6, 7, 8, 9]);
    const seen: number[] = [];
    const finished = await replayRange(
      read,
      2,
      8,
      async (event) => void seen.push(event.seq),
      () => true,
      2,
    );
    assert.equal(finished, true);
    assert.deepEqual(seen, [3, 5, 6, 7, 8]);
  });

  it('stops at once when a later subscription call takes over', async () => {
    const read = memoryPages([1, 2, 3, 4, 5]);
    const seen: number[] = [];
    let current = true;
    const finished = await replayRange(
      read,
      0,
      5,
      async (event) => {
        seen.push(event.seq);
        if (event.seq === 2) current = false;
      },
      () => current,
      2,
    );
    assert.equal(finished, false);
    assert.deepEqual(seen, [1, 2]);
  });

  it('reads nothing when the client is already at until', async () => {
    const read = memoryPages([1, 2, 3]);
    assert.equal(
      await replayRange(
        read,
        3,
        3,
        async () => assert.fail('nothing to deliver'),
        () => true,
      ),
      true,
    );
    assert.equal(read.reads, 0);
  });

  it('ends at the end of the log when until is beyond it', async () => {
    const read = memoryPages([1, 2]);
    const seen: number[] = [];
    assert.equal(
      await replayRange(
        read,
        0,
        9,
        async (event) => void seen.push(event.seq),
        () => true,
        5,
      ),
      true,
    );
    assert.deepEqual(seen, [1, 2]);
  });
});
