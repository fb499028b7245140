import { describe, expect, it } from '@jest/globals';
import { PermanentError, WorkQueue } from '../../../lib/queue.ts';
import { FakeClock, deferred, flush, type Deferred } from '../../support/fake-clock.ts';

/** A handler whose runs finish only when the test says so. */
function controlledHandler() {
  const runs: string[] = [];
  const pending = new Map<string, Deferred[]>();
  let running = 0;
  let maxRunning = 0;
  const perKeyRunning = new Map<string, number>();
  let overlap = false;
  const handler = async (key: string) => {
    runs.push(key);
    running++;
    maxRunning = Math.max(maxRunning, running);
    perKeyRunning.set(key, (perKeyRunning.get(key) ?? 0) + 1);
    if (perKeyRunning.get(key)! > 1) overlap = true;
    const d = deferred();
    pending.set(key, [...(pending.get(key) ?? []), d]);
    try {
      await d.promise;
    } finally {
      running--;
      perKeyRunning.set(key, perKeyRunning.get(key)! - 1);
    }
  };
  const finish = async (key: string, err?: unknown) => {
    const d = pending.get(key)?.shift();
    if (!d) throw new Error(`${key} is not running`);
    if (err) d.reject(err);
    else d.resolve();
    await flush();
  };
  return {
    handler,
    runs,
    finish,
    get maxRunning() {
      return maxRunning;
    },
    get overlap() {
      return overlap;
    },
  };
}

describe('WorkQueue', () => {
  it('hands each queued key to the handler once, in order', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ timers: clock });
    const seen: string[] = [];
    q.add('a');
    q.add('b');
    q.add('a');
    q.start(async (key) => {
      seen.push(key);
    });
    await flush();
    expect(seen).toEqual(['a', 'b']);
  });

  it('never runs one key on two workers at once, and re-runs it once if added meanwhile', async () => {
    const clock = new FakeClock();
    const h = controlledHandler();
    const q = new WorkQueue({ timers: clock, concurrency: 4 });
    q.start(h.handler);
    q.add('a');
    await flush();
    q.add('a');
    q.add('a');
    q.add('a');
    await flush();
    expect(h.runs).toEqual(['a']);
    await h.finish('a');
    expect(h.runs).toEqual(['a', 'a']);
    await h.finish('a');
    expect(h.runs).toEqual(['a', 'a']);
    expect(h.overlap).toBe(false);
  });

  it('runs different keys in parallel up to the concurrency', async () => {
    const clock = new FakeClock();
    const h = controlledHandler();
    const q = new WorkQueue({ timers: clock, concurrency: 2 });
    q.start(h.handler);
    for (const k of ['a', 'b', 'c', 'd']) q.add(k);
    await flush();
    expect(h.runs).toEqual(['a', 'b']);
    expect(q.depth).toBe(2);
    await h.finish('b');
    expect(h.runs).toEqual(['a', 'b', 'c']);
    await h.finish('a');
    await h.finish('c');
    await h.finish('d');
    expect(h.maxRunning).toBe(2);
    expect(q.depth).toBe(0);
  });

  it("runs at most perGroup keys of one group at once, letting another group's key go first", async () => {
    const clock = new FakeClock();
    const h = controlledHandler();
    const q = new WorkQueue({ timers: clock, concurrency: 3, groupOf: (k) => k.split('/')[0]!, perGroup: 2 });
    q.start(h.handler);
    for (const k of ['a/1', 'a/2', 'a/3', 'a/4', 'b/1']) q.add(k);
    await flush();
    // The third worker skips a/3 and a/4 for b/1.
    expect(h.runs).toEqual(['a/1', 'a/2', 'b/1']);
    await h.finish('b/1');
    expect(h.runs).toEqual(['a/1', 'a/2', 'b/1']);
    await h.finish('a/1');
    expect(h.runs).toEqual(['a/1', 'a/2', 'b/1', 'a/3']);
    await h.finish('a/2');
    await h.finish('a/3');
    await h.finish('a/4');
    expect(h.runs).toEqual(['a/1', 'a/2', 'b/1', 'a/3', 'a/4']);
    expect(q.depth).toBe(0);
  });

  it('runs keys added ahead on workers of their own, in their own order', async () => {
    const clock = new FakeClock();
    const h = controlledHandler();
    const q = new WorkQueue({ timers: clock, concurrency: 1, reservedAhead: 1 });
    q.start(h.handler);
    q.add('busy');
    q.add('a');
    await flush();
    q.addAhead('new-1');
    q.addAhead('new-2');
    q.addAhead('a'); // already queued: moved ahead, not queued twice
    q.addAhead('new-2');
    await flush();
    expect(h.runs).toEqual(['busy', 'new-1']);
    expect(q.depth).toBe(2);
    await h.finish('new-1');
    await h.finish('new-2');
    expect(h.runs).toEqual(['busy', 'new-1', 'new-2', 'a']);
    await h.finish('a');
    await h.finish('busy');
    expect(q.depth).toBe(0);
  });

  it('lets neither kind of key starve the other', async () => {
    const clock = new FakeClock();
    const h = controlledHandler();
    const q = new WorkQueue({ timers: clock, concurrency: 1, reservedAhead: 1 });
    q.start(h.handler);
    q.add('a');
    q.add('b');
    q.addAhead('n1');
    q.addAhead('n2');
    await flush();
    expect(h.runs).toEqual(['a', 'n1']);
    // The shared worker goes to the add()ed key that waits, not to n2.
    await h.finish('a');
    expect(h.runs).toEqual(['a', 'n1', 'b']);
    await h.finish('b');
    // Nothing add()ed waits: n2 takes the idle shared worker.
    expect(h.runs).toEqual(['a', 'n1', 'b', 'n2']);
    await h.finish('n1');
    await h.finish('n2');
    expect(h.maxRunning).toBe(2);
  });

  it('runs keys added ahead on the reserved workers when the others are busy', async () => {
    const clock = new FakeClock();
    const h = controlledHandler();
    const q = new WorkQueue({ timers: clock, concurrency: 2, reservedAhead: 1 });
    q.start(h.handler);
    for (const k of ['a', 'b', 'c']) q.add(k);
    await flush();
    q.addAhead('new-1');
    q.addAhead('new-2');
    await flush();
    // a and b hold the two workers; new-1 takes the reserved one, new-2 waits for any worker.
    expect(h.runs).toEqual(['a', 'b', 'new-1']);
    await h.finish('new-1');
    expect(h.runs).toEqual(['a', 'b', 'new-1', 'new-2']);
    await h.finish('new-2');
    // c waits for one of the two workers it may use: three keys ran at once, never more.
    expect(h.runs).toEqual(['a', 'b', 'new-1', 'new-2']);
    await h.finish('a');
    expect(h.runs).toEqual(['a', 'b', 'new-1', 'new-2', 'c']);
    expect(h.maxRunning).toBe(3);
  });

  it('re-runs a key added ahead while it runs once, after the run', async () => {
    const clock = new FakeClock();
    const h = controlledHandler();
    const q = new WorkQueue({ timers: clock, concurrency: 2 });
    q.start(h.handler);
    q.add('a');
    await flush();
    q.addAhead('a');
    await flush();
    expect(h.runs).toEqual(['a']);
    await h.finish('a');
    expect(h.runs).toEqual(['a', 'a']);
    expect(h.overlap).toBe(false);
  });

  it('retries a failing key with exponential backoff up to the cap, and resets after success', async () => {
    const clock = new FakeClock();
    let failuresLeft = 5;
    const runsAt: number[] = [];
    const q = new WorkQueue({ timers: clock, backoffBaseMs: 100, backoffMaxMs: 500 });
    q.start(async () => {
      runsAt.push(clock.now());
      if (failuresLeft-- > 0) throw new Error('boom');
    });
    q.add('a');
    await flush();
    for (let i = 0; i < 60; i++) {
      clock.advance(50);
      await flush();
    }
    // runs at 0, then +100, +200, +400, +500 (capped), +500
    expect(runsAt).toEqual([0, 100, 300, 700, 1200, 1700]);
    expect(q.failuresOf('a')).toBe(0);
  });

  it('does not retry a permanent error', async () => {
    const clock = new FakeClock();
    let runs = 0;
    const q = new WorkQueue({ timers: clock });
    q.start(async () => {
      runs++;
      throw new PermanentError('needs a human');
    });
    q.add('a');
    await flush();
    clock.advance(60_000);
    await flush();
    expect(runs).toBe(1);
    expect(q.scheduled).toBe(0);
  });

  it('requeues when the handler asks for it', async () => {
    const clock = new FakeClock();
    const runsAt: number[] = [];
    const q = new WorkQueue({ timers: clock });
    q.start(async () => {
      runsAt.push(clock.now());
      return runsAt.length < 3 ? { requeueAfterMs: 1000 } : undefined;
    });
    q.add('a');
    await flush();
    clock.advance(999);
    await flush();
    expect(runsAt).toEqual([0]);
    clock.advance(1);
    await flush();
    clock.advance(5000);
    await flush();
    expect(runsAt).toEqual([0, 1000, 2000]);
  });

  it('keeps the earliest of two scheduled adds of a key', async () => {
    const clock = new FakeClock();
    const runsAt: number[] = [];
    const q = new WorkQueue({ timers: clock });
    q.start(async () => {
      runsAt.push(clock.now());
    });
    q.addAfter('a', 5000);
    q.addAfter('a', 1000);
    q.addAfter('a', 3000);
    clock.advance(10_000);
    await flush();
    expect(runsAt).toEqual([1000]);
  });

  it('reports its depth through the hook', async () => {
    const clock = new FakeClock();
    const depths: number[] = [];
    const q = new WorkQueue({ timers: clock, onDepth: (d) => depths.push(d) });
    q.add('a');
    q.add('b');
    q.add('b');
    expect(depths).toEqual([1, 2]);
    q.start(async () => {});
    await flush();
    expect(depths.at(-1)).toBe(0);
  });

  it('reports the outcome and duration of each run', async () => {
    const clock = new FakeClock();
    const results: Array<[string, string]> = [];
    const q = new WorkQueue({ timers: clock, onResult: (key, outcome) => results.push([key, outcome]) });
    q.start(async (key) => {
      if (key === 'bad') throw new Error('x');
    });
    q.add('good');
    q.add('bad');
    await flush();
    expect(results).toEqual([
      ['good', 'success'],
      ['bad', 'error'],
    ]);
  });

  it('on shutdown waits for running handlers, drops the rest, and takes no new keys', async () => {
    const clock = new FakeClock();
    const h = controlledHandler();
    const q = new WorkQueue({ timers: clock, concurrency: 1 });
    q.start(h.handler);
    q.add('a');
    q.add('b');
    q.addAfter('c', 1000);
    await flush();
    let stopped = false;
    const done = q.shutdown().then(() => {
      stopped = true;
    });
    await flush();
    expect(stopped).toBe(false);
    q.add('d');
    await h.finish('a');
    await done;
    expect(stopped).toBe(true);
    clock.advance(5000);
    await flush();
    expect(h.runs).toEqual(['a']);
    expect(clock.timers).toBe(0);
  });
});
