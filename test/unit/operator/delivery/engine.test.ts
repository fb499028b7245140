// The delivery engine (operator/delivery/engine.ts) on a fake clock, posting to real receivers
// on a real port: a receiver that asks to be called again later holds no worker, a round that
// keeps failing backs off and shows why, and receipts are written once, in a batch.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { logger } from '../../../../lib/log.ts';
import { FakeClock } from '../../../support/fake-clock.ts';
import { DeliveryEngine } from '../../../../operator/delivery/engine.ts';
import type { Receipt, ReceiptBook, RoundOutcome, Sink } from '../../../../operator/delivery/sink.ts';
import type { NotificationFacts } from '../../../../operator/notify/facts.ts';
import { notificationRequest } from '../../../../operator/notify/types/index.ts';

/** Resolves once the engine has set a timer to fire at `at` (its wait is booked). */
async function timerAt(at: number): Promise<void> {
  while (!clock.firesAt(at)) await new Promise<void>((resolve) => setImmediate(resolve));
}

interface Hit {
  path: string;
  at: number;
  body: NotificationFacts;
}

let server: Server;
let base: string;
const hits: Hit[] = [];
/** Answers per path, in turn; then 200. A held answer waits until the test releases it. */
const answers = new Map<
  string,
  Array<{ status: number; headers?: Record<string, string>; held?: boolean }>
>();
const held: Array<() => void> = [];
const waiters: Array<() => void> = [];
let clock: FakeClock;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      hits.push({ path, at: clock.now(), body: JSON.parse(Buffer.concat(chunks).toString()) });
      const answer = answers.get(path)?.shift() ?? { status: 200 };
      const reply = () => {
        res.writeHead(answer.status, answer.headers ?? {});
        res.end();
      };
      if (answer.held) held.push(reply);
      else reply();
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

/** A sink owing each lane (`<namespace>[/<more>]`) one notification, to `<base>/<lane>`. */
function notificationsTo(lanes: string[], attemptsPerRound = 3) {
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
      for (const lane of lanes) owe(lane);
    },
    async next(lane) {
      if (receipts(lane).has('hook')) return undefined;
      return {
        request: notificationRequest({ type: 'generic', url: `${base}/${lane}` }, facts(lane.split('/')[0]!)),
        secrets: [],
        receipt: { book: 'memory', subject: lane, id: 'hook', value: 'Deployed' },
        refusal: `receiver hook did not take Deployed of ${lane}`,
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

/** An engine on the fake clock, posting with the real fetch. */
const engineOn = (sink: Sink, workers?: number) =>
  new DeliveryEngine([sink], {
    log: quiet,
    now: () => new Date(clock.now()),
    fetch,
    timers: clock,
    ...(workers ? { workers } : {}),
  });

describe('the delivery engine', () => {
  it("delivers namespace B's notification at once while A's receiver answers 429 Retry-After: 900, on one worker", async () => {
    clock = new FakeClock();
    answers.set('/team-a', [{ status: 429, headers: { 'retry-after': '900' } }]);
    const { sink, writes, outcomes } = notificationsTo(['team-a', 'team-b']);
    const engine = engineOn(sink, 1);
    engine.resume();
    const [b] = await hitsAt('/team-b', 1);
    // A was asked first, and asked for 900 s; B went through on the only worker meanwhile.
    expect(hits.filter((h) => h.path === '/team-a')).toHaveLength(1);
    expect(b!.at).toBe(0);
    expect(b!.body.namespace).toBe('team-b');
    await timerAt(900_000);
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

  it("gives one namespace at most half the workers: B's notification goes while A's receivers hang", async () => {
    clock = new FakeClock();
    answers.set('/team-h/1', [{ status: 200, held: true }]);
    answers.set('/team-h/2', [{ status: 200, held: true }]);
    const { sink, outcomes } = notificationsTo(['team-h/1', 'team-h/2', 'team-i']);
    const engine = engineOn(sink, 2);
    engine.resume();
    await hitsAt('/team-h/1', 1);
    await hitsAt('/team-i', 1);
    await waitForOutcomes(outcomes, 1);
    expect(outcomes[0]).toEqual(['team-i', expect.objectContaining({ ok: true })]);
    // A's second lane waits for its namespace's worker, not for B.
    expect(hits.filter((h) => h.path === '/team-h/2')).toHaveLength(0);
    for (const reply of held.splice(0)) reply();
    await waitForOutcomes(outcomes, 2);
    clock.advance(100);
    await hitsAt('/team-h/2', 1);
    for (const reply of held.splice(0)) reply();
    await waitForOutcomes(outcomes, 3);
    expect(outcomes.map(([lane]) => lane).sort()).toEqual(['team-h/1', 'team-h/2', 'team-i']);
    await engine.stop();
  });

  it('starts a new term only after every earlier one has ended: a lane in flight is not sent twice', async () => {
    clock = new FakeClock();
    answers.set('/team-s', [{ status: 200, held: true }]);
    const { sink, writes } = notificationsTo(['team-s']);
    const engine = engineOn(sink);
    engine.resume();
    await hitsAt('/team-s', 1);
    // Leadership lost and won twice while the POST is in flight.
    void engine.stop();
    engine.resume();
    void engine.stop();
    engine.resume();
    for (const reply of held.splice(0)) reply();
    await engine.idle();
    expect(hits.filter((h) => h.path === '/team-s')).toHaveLength(1);
    // Its receipt was written when the first term ended.
    expect(writes).toEqual([['team-s', ['hook']]]);
    await engine.stop();
  });

  it('fails a round after its tries, says why, backs off a minute, and tries at once when told to', async () => {
    clock = new FakeClock();
    answers.set('/team-c', [{ status: 503 }, { status: 503 }, { status: 404 }]);
    const { sink, outcomes, owe } = notificationsTo(['team-c'], 2);
    const engine = engineOn(sink);
    engine.resume();
    await hitsAt('/team-c', 1);
    await timerAt(1000); // the second try, 1 s later (back-off)
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
    await timerAt(61_000);
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
    await timerAt(180_000);
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
