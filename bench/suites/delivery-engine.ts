// The operator's delivery engine (operator/delivery/engine.ts), in-process, posting to a receiver
// on a real port: deliveries per second through the engine (a lane per delivery, receipts kept
// and written in batches to a book in memory) against the ceiling of the same POSTs sent by a
// plain loop of fetch at the same concurrency; and the time to deliver namespace B's lanes while
// namespace A's receiver answers 429 Retry-After: 900, against the same without A (B's lanes alone
// get at most half the workers, as any namespace does).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { logger } from '../../lib/log.ts';
import { DeliveryEngine } from '../../operator/delivery/engine.ts';
import type { Receipt, ReceiptBook, Sink } from '../../operator/delivery/sink.ts';
import { notificationRequest } from '../../operator/notify/types/index.ts';
import type { NotificationFacts } from '../../operator/notify/facts.ts';
import type { SuiteResult } from '../lib/report.ts';
import { round } from '../lib/stats.ts';
import type { SuiteOptions } from './suite.ts';

const WORKERS = 8;
const quiet = logger.child({ bench: 'delivery-engine' }, { level: 'silent' });

const facts = (namespace: string): NotificationFacts => ({
  event: 'Deployed',
  severity: 'info',
  project: 'shop',
  namespace,
  bundle: 'shop-1',
  commit: 'c'.repeat(40),
  branch: 'main',
  environment: 'production',
  message: 'deployed to production',
  time: new Date(0).toISOString(),
  url: null,
});

/** A receiver that answers 200, except 429 Retry-After: 900 under /limited/. */
async function receiver(): Promise<{ server: Server; base: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits += 1;
      if (req.url?.startsWith('/limited/')) res.writeHead(429, { 'retry-after': '900' });
      else res.writeHead(200);
      res.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

/** A sink owing each lane one POST to `<base>/<path of the lane>`; resolves `done` when `expect` lanes took theirs. */
function sinkOf(base: string, lanes: string[], path: (lane: string) => string, expect: number) {
  const shown = new Map<string, Map<string, Receipt>>();
  const book: ReceiptBook = {
    name: 'bench',
    read: (subject) => shown.get(subject) ?? new Map(),
    async write(subject, receipts) {
      shown.set(subject, new Map(receipts));
    },
  };
  let taken = 0;
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let engine: Parameters<Sink['attach']>[0];
  const sink: Sink = {
    name: 'bench',
    failedReason: 'Failed',
    books: [book],
    attach: (handle) => void (engine = handle),
    resume: () => lanes.forEach((lane) => engine.owe(lane)),
    async next(lane) {
      if (engine.receipts('bench', lane).has('r')) return undefined;
      return {
        request: notificationRequest(
          { type: 'generic', url: `${base}${path(lane)}` },
          facts(lane.split('/')[0]!),
        ),
        secrets: [],
        receipt: { book: 'bench', subject: lane, id: 'r', value: 'Deployed' },
        refusal: `lane ${lane}`,
        labels: {},
      };
    },
    async settled(lane, outcome) {
      if (outcome.ok && outcome.sent.length > 0 && !lane.startsWith('a/') && ++taken === expect) finish();
    },
    count: () => undefined,
  };
  return { sink, done };
}

/** Seconds the engine takes for `lanes` (those of namespace `a` go to the rate-limited path). */
async function throughEngine(base: string, lanes: string[], expect: number): Promise<number> {
  const { sink, done } = sinkOf(
    base,
    lanes,
    (lane) => (lane.startsWith('a/') ? `/limited/${lane}` : `/ok/${lane}`),
    expect,
  );
  const engine = new DeliveryEngine([sink], { log: quiet, now: () => new Date(), fetch, workers: WORKERS });
  const started = performance.now();
  engine.resume();
  await done;
  const seconds = (performance.now() - started) / 1000;
  await engine.stop();
  return seconds;
}

/** Seconds a plain loop of fetch takes for `count` POSTs at the engine's concurrency: the ceiling. */
async function plainLoop(base: string, count: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (next < count) {
        const lane = `b/${next++}`;
        const request = notificationRequest({ type: 'generic', url: `${base}/ok/${lane}` }, facts('b'));
        const res = await fetch(request.url, {
          method: 'POST',
          headers: request.headers,
          body: request.body as string,
        });
        await res.text();
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

export async function deliveryEngineSuite(options: SuiteOptions): Promise<SuiteResult> {
  const count = options.quick ? 300 : 3000;
  const { server, base, hits } = await receiver();
  try {
    const lanesOf = (namespace: string, n: number) =>
      Array.from({ length: n }, (_, i) => `${namespace}/${i}`);
    // Warm-up: connections and JIT for both paths.
    await plainLoop(base, 200);
    await throughEngine(base, lanesOf('b', 200), 200);
    const ceiling = await plainLoop(base, count);
    const engine = await throughEngine(base, lanesOf('b', count), count);
    options.log(`plain fetch ${Math.round(count / ceiling)}/s, engine ${Math.round(count / engine)}/s`);
    const fair = Math.min(count, 500);
    const alone = await throughEngine(base, lanesOf('b', fair), fair);
    const before = hits();
    const besideLimited = await throughEngine(base, [...lanesOf('a', 200), ...lanesOf('b', fair)], fair);
    const limitedTries = hits() - before - fair;
    options.log(`B alone ${alone.toFixed(2)} s, beside A's 429s ${besideLimited.toFixed(2)} s`);
    const ratio = count / engine / (count / ceiling);
    return {
      tables: [
        {
          title: `${count} deliveries, ${WORKERS} workers, one receiver on a real port`,
          columns: ['path', 'deliveries/s', 'ratio to ceiling'],
          rows: [
            ['plain fetch loop (ceiling)', Math.round(count / ceiling), 1],
            ['delivery engine (lanes, receipts, batches)', Math.round(count / engine), round(ratio)],
          ],
        },
        {
          title: `namespace B's ${fair} deliveries while namespace A's 200 lanes get 429 Retry-After: 900`,
          columns: ['run', 'seconds', 'ratio to B alone'],
          rows: [
            ['B alone', round(alone), 1],
            ['B beside A', round(besideLimited), round(besideLimited / alone)],
          ],
        },
      ],
      targets: [
        { name: 'engine deliveries/s ÷ plain fetch ceiling', value: round(ratio), atLeast: 0.5 },
        { name: "B's time beside A's 429s ÷ B alone", value: round(besideLimited / alone), atMost: 2 },
      ],
      data: {
        count,
        workers: WORKERS,
        ceilingSeconds: ceiling,
        engineSeconds: engine,
        alone,
        besideLimited,
        limitedTries,
      },
      notes: [
        `A's lanes were tried ${limitedTries} times in all: each 429 put its lane back on the queue for 900 s instead of holding a worker.`,
      ],
    };
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
