// A small closed-loop HTTP load generator: `concurrency` loops share one undici Pool (one
// connection per loop, kept alive), each sending its next request as soon as the previous
// answer was read to the end. A run stops at `maxRequests` or `maxDurationMs`, whichever comes
// first. Loopback only: the benchmarks measure our servers, never someone else's.
import { Pool, type buildConnector } from 'undici';
import { summarise, type LatencySummary } from './stats.ts';

export interface LoadRequest {
  method?: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

export interface LoadOptions {
  /** `http://127.0.0.1:<port>` (or [::1] / localhost). */
  origin: string;
  concurrency: number;
  maxRequests: number;
  maxDurationMs: number;
  /** Sent first at the same concurrency and not counted (JIT, connection set-up, caches). */
  warmupRequests?: number;
  /** The i-th request; i counts from 0 over warm-up and measured requests alike. */
  request: (i: number) => LoadRequest;
  /** Which statuses count as success; by default 2xx. */
  ok?: (status: number) => boolean;
  /** TLS settings for an https origin (the API server's CA and client certificate). */
  connect?: buildConnector.BuildOptions;
  /** false: HTTP/1.1 only over TLS (undici otherwise negotiates HTTP/2 where the server offers it). */
  allowH2?: boolean;
}

export interface LoadResult {
  concurrency: number;
  requests: number;
  errors: number;
  statuses: Record<string, number>;
  durationMs: number;
  requestsPerSecond: number;
  /** Milliseconds, from sending the request to the last byte of the answer. */
  latencyMs: LatencySummary;
  /** The first few failures, for the report. */
  failures: string[];
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function assertLoopback(origin: string): void {
  const { hostname } = new URL(origin);
  if (!LOOPBACK.has(hostname)) throw new Error(`the load generator only targets loopback, not ${hostname}`);
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  assertLoopback(options.origin);
  const ok = options.ok ?? ((s: number) => s >= 200 && s < 300);
  const pool = new Pool(options.origin, {
    connections: options.concurrency,
    pipelining: 1,
    ...(options.connect ? { connect: options.connect } : {}),
    ...(options.allowH2 === undefined ? {} : { allowH2: options.allowH2 }),
  });
  let next = 0;
  try {
    const warmup = options.warmupRequests ?? 0;
    if (warmup > 0) {
      await loops(options.concurrency, async () => {
        while (next < warmup) await send(pool, options.request(next++));
      });
    }

    const latencies = new Float64Array(options.maxRequests);
    const statuses: Record<string, number> = {};
    const failures: string[] = [];
    let claimed = 0;
    let errors = 0;
    const started = performance.now();
    const deadline = started + options.maxDurationMs;
    await loops(options.concurrency, async () => {
      // Slots are handed out in order, so `latencies` stays dense; every claimed request completes.
      while (claimed < options.maxRequests && performance.now() < deadline) {
        const slot = claimed++;
        const request = options.request(next++);
        const t0 = performance.now();
        try {
          const { status, body } = await send(pool, request);
          latencies[slot] = performance.now() - t0;
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (!ok(status)) {
            errors += 1;
            if (failures.length < 5) failures.push(`${status} ${body.slice(0, 200)}`);
          }
        } catch (error) {
          latencies[slot] = performance.now() - t0;
          errors += 1;
          statuses.error = (statuses.error ?? 0) + 1;
          if (failures.length < 5) failures.push(String(error));
        }
      }
    });
    const durationMs = performance.now() - started;
    return {
      concurrency: options.concurrency,
      requests: claimed,
      errors,
      statuses,
      durationMs,
      requestsPerSecond: (claimed / durationMs) * 1000,
      latencyMs: summarise(latencies, claimed),
      failures,
    };
  } finally {
    await pool.close();
  }
}

/**
 * Runs each side once per round, in order (A, B, A, B, ...), so a drift of the machine's pace
 * falls on every side alike, and returns each side's rounds merged (mergeRounds).
 */
export async function interleavedRounds<Side extends string>(
  rounds: number,
  sides: Record<Side, () => Promise<LoadResult>>,
): Promise<Record<Side, LoadResult>> {
  const names = Object.keys(sides) as Side[];
  const results = new Map<Side, LoadResult[]>(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++)
    for (const name of names) results.get(name)!.push(await sides[name]());
  return Object.fromEntries(names.map((name) => [name, mergeRounds(results.get(name)!)])) as Record<
    Side,
    LoadResult
  >;
}

/**
 * Interleaved rounds of one side as one result: requests and time summed, the worst round's
 * percentiles (a bad round is not averaged away), the largest max, every status.
 */
export function mergeRounds(rounds: LoadResult[]): LoadResult {
  const requests = rounds.reduce((n, r) => n + r.requests, 0);
  const durationMs = rounds.reduce((n, r) => n + r.durationMs, 0);
  const worst = rounds.reduce((a, b) => (b.latencyMs.p99 > a.latencyMs.p99 ? b : a));
  const statuses: Record<string, number> = {};
  for (const r of rounds)
    for (const [status, n] of Object.entries(r.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  return {
    ...worst,
    requests,
    durationMs,
    statuses,
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    requestsPerSecond: (requests / durationMs) * 1000,
    latencyMs: { ...worst.latencyMs, max: Math.max(...rounds.map((r) => r.latencyMs.max)) },
  };
}

async function loops(n: number, body: () => Promise<void>): Promise<void> {
  await Promise.all(Array.from({ length: n }, body));
}

async function send(pool: Pool, request: LoadRequest): Promise<{ status: number; body: string }> {
  const res = await pool.request({
    method: request.method ?? 'GET',
    path: request.path,
    headers: request.headers,
    body: request.body,
  });
  // Read every byte: the answer is not served until the client has it.
  const buffer = Buffer.from(await res.body.arrayBuffer());
  return {
    status: res.statusCode,
    body: res.statusCode >= 300 ? buffer.toString('utf8', 0, 500) : '',
  };
}
