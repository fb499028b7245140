// The delivery engine (operator/delivery/engine.ts) on a fake clock, posting to real receivers
// on a real port: a receiver that asks to be called again later holds no worker, a round that
// keeps failing backs off and shows why, and receipts are written once, in a batch.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { logger } from '../../../../lib/log.ts';
import type { QueueTimers } from '../../../../lib/queue.ts';
import { DeliveryEngine } from '../../../../operator/delivery/engine.ts';
import type { Receipt, ReceiptBook, RoundOutcome, Sink } from '../../../../operator/delivery/sink.ts';
import type { NotificationFacts } from '../../../../operator/notify/facts.ts';
import { notificationRequest } from '../../../../operator/notify/types/index.ts';

/** Timers that fire only when the test moves the clock. */
class FakeClock implements QueueTimers {
  at = 0;
  #timers = new Map<number, { at: number; fn: () => void }>();
  #next = 1;
  now = () => this.at;
  setTimeout = (fn: () => void, ms: number) => {
    const id = this.#next++;
    this.#timers.set(id, { at: this.at + ms, fn });
    return id;
  };
  clearTimeout = (handle: unknown) => void this.#timers.delete(handle as number);
  /** Resolves once a timer is set to fire at `at` (the engine set its wait). */
  async timerAt(at: number): Promise<void> {
    while (![...this.#timers.values()].some((t) => t.at === at))
      await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** Moves the clock by `ms`, firing what comes due on the way, in order. */
  advance(ms: number): void {
    const until = this.at + ms;
    for (;;) {
      const due = [...this.#timers].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.#timers.delete(due[0]);
      this.at = Math.max(this.at, due[1].at);
      due[1].fn();
    }
    this.at = until;
  }
}

interface Hit {
  path: string;
  at: number;
  body: NotificationFacts;
}

let server: Server;
let base: string;
const hits: Hit[] = [];
/** Answers per path, in turn; then 200. */
const answers = new Map<string, Array<{ status: number; headers?: Record<string, string> }>>();
const waiters: Array<() => void> = [];
let clock: FakeClock;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      hits.push({ path, at: clock.at, body: JSON.parse(Buffer.concat(chunks).toString()) });
      const answer = answers.get(path)?.shift() ?? { status: 200 };
      res.writeHead(answer.status, answer.headers ?? {});
      res.end();
      for (const wake of waiters.splice(0)) wake();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

/** Resolves once the receivers have been hit `count` times at `path` (the real HTTP is real time). */
async function hitsAt(path: string, count: number): Promise<Hit[]> {
  for (;;) {
    const got = hits.filter((h) => h.path === path);
    if (got.length >= count) return got;
    await new Promise<void>((resolve) => waiters.push(resolve));
  }
}

const facts = (namespace: string): NotificationFacts => ({
  event: 'Deployed',
  severity: 'info',
  project: 'shop',
  namespace,
  bundle: 'shop-1',
  commit: null,
  branch: 'main',
  environment: 'production',
  message: 'deployed',
  time: '2026-11-28T04:00:00Z',
  url: null,
});

/** A book in memory: what a status would hold, and every write made to it. */
function memoryBook() {
  const shown = new Map<string, Map<string, Receipt>>();
  const writes: Array<[string, string[]]> = [];
  const book: ReceiptBook = {
    name: 'memory',
    read: (subject) => shown.get(subject) ?? new Map(),
    async write(subject, receipts) {
      writes.push([subject, [...receipts.keys()].sort()]);
      shown.set(subject, new Map(receipts));
    },
  };
  return { book, writes };
}

/** A sink owing each namespace one notification, to `<base>/<namespace>`. */
function notificationsTo(namespaces: string[], attemptsPerRound = 3) {
  const { book, writes } = memoryBook();
  const outcomes: Array<[string, RoundOutcome]> = [];
  let owe: (lane: string, options?: { now?: boolean }) => void = () => undefined;
  let receipts: (subject: string) => ReadonlyMap<string, Receipt> = () => new Map();
  const sink: Sink = {
    name: 'test-notification',
    attemptsPerRound,
    failedReason: 'NotificationFailed',
    books: [book],
    attach(engine) {
      owe = engine.owe;
      receipts = (subject) => engine.receipts('memory', subject);
    },
    resume() {
      for (const namespace of namespaces) owe(namespace);
    },
    async next(namespace) {
      if (receipts(namespace).has('hook')) return undefined;
      return {
        request: notificationRequest({ type: 'generic', url: `${base}/${namespace}` }, facts(namespace)),
        secrets: [],
        receipt: { book: 'memory', subject: namespace, id: 'hook', value: 'Deployed' },
        refusal: `receiver hook did not take Deployed of ${namespace}`,
        labels: {},
      };
    },
    async settled(lane, outcome) {
      outcomes.push([lane, outcome]);
    },
    count: () => undefined,
  };
  return { sink, writes, outcomes, owe: (lane: string, now?: boolean) => owe(lane, { now: !!now }) };
}

const quiet = logger.child({}, { level: 'silent' });

describe('the delivery engine', () => {
  it("delivers namespace B's notification at once while A's receiver answers 429 Retry-After: 900, on one worker", async () => {
    clock = new FakeClock();
    answers.set('/team-a', [{ status: 429, headers: { 'retry-after': '900' } }]);
    const { sink, writes, outcomes } = notificationsTo(['team-a', 'team-b']);
    const engine = new DeliveryEngine([sink], {
      log: quiet,
      now: () => new Date(clock.at),
      fetch,
      timers: clock,
      workers: 1,
    });
    engine.resume();
    const [b] = await hitsAt('/team-b', 1);
    // A was asked first, and asked for 900 s; B went through on the only worker meanwhile.
    expect(hits.filter((h) => h.path === '/team-a')).toHaveLength(1);
    expect(b!.at).toBe(0);
    expect(b!.body.namespace).toBe('team-b');
    await clock.timerAt(900_000);
    clock.advance(899_000);
    expect(hits.filter((h) => h.path === '/team-a')).toHaveLength(1);
    clock.advance(1000);
    const [, retried] = await hitsAt('/team-a', 2);
    expect(retried!.at).toBe(900_000);
    await waitForOutcomes(outcomes, 2);
    expect(outcomes.map(([lane, o]) => [lane, o.ok])).toEqual([
      ['team-b', true],
      ['team-a', true],
    ]);
    // Each receipt written once, after its batch's 250 ms.
    clock.advance(250);
    await engine.stop();
    expect(writes).toEqual([
      ['team-b', ['hook']],
      ['team-a', ['hook']],
    ]);
  });

  it('fails a round after its tries, says why, backs off a minute, and tries at once when told to', async () => {
    clock = new FakeClock();
    answers.set('/team-c', [{ status: 503 }, { status: 503 }, { status: 404 }]);
    const { sink, outcomes, owe } = notificationsTo(['team-c'], 2);
    const engine = new DeliveryEngine([sink], {
      log: quiet,
      now: () => new Date(clock.at),
      fetch,
      timers: clock,
    });
    engine.resume();
    await hitsAt('/team-c', 1);
    await clock.timerAt(1000); // the second try, 1 s later (back-off)
    clock.advance(1000);
    await waitForOutcomes(outcomes, 1);
    expect(outcomes[0]).toEqual([
      'team-c',
      {
        ok: false,
        problem: {
          reason: 'NotificationFailed',
          message:
            'receiver hook did not take Deployed of team-c: HTTP 503 Service Unavailable (after 2 attempts)',
        },
      },
    ]);
    // A change meanwhile waits for the back-off; an edit that asks for it now does not.
    await clock.timerAt(61_000);
    owe('team-c');
    clock.advance(59_000);
    expect(hits.filter((h) => h.path === '/team-c')).toHaveLength(2);
    owe('team-c', true);
    await waitForOutcomes(outcomes, 2);
    expect(outcomes[1]![1]).toEqual({
      ok: false,
      problem: {
        reason: 'NotificationFailed',
        message: 'receiver hook did not take Deployed of team-c: HTTP 404 Not Found',
      },
    });
    // The second failed round waits 2 min (from 60 s: the turn booked at 61 s books it again).
    clock.advance(1000);
    await clock.timerAt(180_000);
    clock.advance(119_000);
    await waitForOutcomes(outcomes, 3);
    expect(outcomes[2]![1]).toMatchObject({ ok: true });
    await engine.stop();
  });
});

/** Resolves once the sink has seen `count` rounds end. */
async function waitForOutcomes(outcomes: unknown[], count: number): Promise<void> {
  while (outcomes.length < count) await new Promise<void>((resolve) => setImmediate(resolve));
}
