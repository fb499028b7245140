// Status API: requests/s and latency of three typical requests against a page with 2,000
// components and 10,000 notices, at concurrency 1 and 32, plus the server's memory at that size.
// Its ceiling is measured in the same run: a bare node:http server (servers/bytes.ts) answering
// the identical bytes and headers, in interleaved rounds (API, ceiling, API, ceiling), so the
// ratio holds on a noisy machine where the absolute numbers drift.
import { ChildServer } from '../lib/child.ts';
import { runLoad, type LoadResult } from '../lib/load.ts';
import type { MemoryReading } from '../lib/memory.ts';
import type { SuiteResult } from '../lib/report.ts';
import { round, roundAll } from '../lib/stats.ts';
import type { SuiteOptions } from './suite.ts';

interface Ready {
  port: number;
  components: number;
  notices: number;
  loadMs: number;
  snapshotMs: number;
  memory: { empty: MemoryReading; loaded: MemoryReading };
}

export const ENDPOINTS = [
  { name: 'status', path: '/api/v1/status' },
  { name: 'components page 3', path: '/api/v1/components?page=3' },
  {
    name: 'notices unplanned past_recent p2',
    path: '/api/v1/notices?filter[type_eq]=unplanned&filter[timeline_state_eq]=past_recent&page=2',
  },
] as const;

const CONCURRENCIES = [1, 32];
/** Rounds per side: A/B/A/B. */
const ROUNDS = 2;

export async function statusApiSuite(options: SuiteOptions): Promise<SuiteResult> {
  const server = await ChildServer.start<Ready>('servers/status-api.ts');
  const ceiling = await ChildServer.start<{ port: number }>('servers/bytes.ts');
  try {
    const ceilingOrigin = `http://127.0.0.1:${ceiling.ready.port}`;
    const origin = `http://127.0.0.1:${server.ready.port}`;
    // What each request returns, so the numbers can be read against the work done.
    const shapes: Record<string, unknown> = {};
    for (const e of ENDPOINTS) {
      const res = await fetch(origin + e.path);
      const raw = Buffer.from(await res.arrayBuffer());
      const body = JSON.parse(raw.toString()) as { meta?: { count: number; total_count: number } };
      const bytes = raw.length;
      if (res.status !== 200) throw new Error(`${e.path} answered ${res.status}`);
      // Every header the API sends, but those of the connection and the length (set per answer).
      const headers: Record<string, string> = {};
      const perConnection = new Set([
        'date',
        'connection',
        'keep-alive',
        'content-length',
        'transfer-encoding',
      ]);
      res.headers.forEach((value, name) => {
        if (!perConnection.has(name)) headers[name] = value;
      });
      await ceiling.call('set', { path: e.path, body: raw.toString('base64'), headers });
      shapes[e.name] = {
        bytes,
        ...(body.meta ? { count: body.meta.count, total: body.meta.total_count } : {}),
      };
    }

    const load = async (target: string, path: string, concurrency: number) => {
      const result = await runLoad({
        origin: target,
        concurrency,
        maxRequests: options.quick ? 5_000 : 60_000,
        maxDurationMs: options.quick ? 1_000 : 3_000,
        warmupRequests: 500,
        request: () => ({ path }),
      });
      if (result.errors > 0)
        throw new Error(`${path}: ${result.errors} errors: ${result.failures.join('; ')}`);
      return result;
    };
    const runs: Array<{ endpoint: string; path: string; result: LoadResult; ceiling: LoadResult }> = [];
    for (const e of ENDPOINTS) {
      for (const concurrency of CONCURRENCIES) {
        const api: LoadResult[] = [];
        const bare: LoadResult[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          api.push(await load(origin, e.path, concurrency));
          bare.push(await load(ceilingOrigin, e.path, concurrency));
        }
        const result = merged(api);
        const ceilingResult = merged(bare);
        runs.push({ endpoint: e.name, path: e.path, result, ceiling: ceilingResult });
        options.log(
          `${e.name} c=${concurrency}: ${result.requestsPerSecond.toFixed(0)} req/s (node:http ceiling ${ceilingResult.requestsPerSecond.toFixed(0)}, ratio ${(result.requestsPerSecond / ceilingResult.requestsPerSecond).toFixed(2)}), p99 ${result.latencyMs.p99.toFixed(2)} ms (ceiling ${ceilingResult.latencyMs.p99.toFixed(2)})`,
        );
      }
    }
    const afterLoad = await server.call<MemoryReading>('memory');
    const { memory } = server.ready;

    return {
      tables: [
        {
          title: `Requests (${server.ready.components} components, ${server.ready.notices} notices; latency in ms)`,
          columns: [
            'endpoint',
            'conc',
            'requests',
            'req/s',
            'ceiling req/s',
            'ratio',
            'p50',
            'p99',
            'ceiling p99',
            'p99 ratio',
            'bytes',
          ],
          rows: runs.map(({ endpoint, result, ceiling: c }) => [
            endpoint,
            result.concurrency,
            result.requests,
            result.requestsPerSecond,
            c.requestsPerSecond,
            round(result.requestsPerSecond / c.requestsPerSecond, 2),
            result.latencyMs.p50,
            result.latencyMs.p99,
            c.latencyMs.p99,
            round(result.latencyMs.p99 / c.latencyMs.p99, 2),
            (shapes[endpoint] as { bytes: number }).bytes,
          ]),
        },
        {
          title: 'Server memory (MiB; heap after a full GC)',
          columns: ['when', 'rss', 'heap used', 'heap total', 'external'],
          rows: [
            ['empty store', ...memRow(memory.empty)],
            ['loaded + indexed', ...memRow(memory.loaded)],
            ['after the load runs', ...memRow(afterLoad)],
          ],
        },
      ],
      notes: [
        `store filled in ${server.ready.loadMs.toFixed(0)} ms, of which the first snapshot (indexes) took ${server.ready.snapshotMs.toFixed(0)} ms`,
        'server and load generator are separate processes on the same machine; they share its CPUs',
        `ceiling: a bare node:http server answering the identical bytes and headers; ${ROUNDS} interleaved rounds per side (API, ceiling, ...), requests summed, latencies of the worst round; ratio = API req/s ÷ ceiling req/s, p99 ratio = API p99 ÷ ceiling p99`,
      ],
      data: {
        components: server.ready.components,
        notices: server.ready.notices,
        loadMs: round(server.ready.loadMs),
        snapshotMs: round(server.ready.snapshotMs),
        responses: shapes,
        runs: runs.map(({ endpoint, path, result, ceiling: c }) => ({
          endpoint,
          path,
          concurrency: result.concurrency,
          requests: result.requests,
          durationMs: round(result.durationMs),
          requestsPerSecond: round(result.requestsPerSecond, 1),
          latencyMs: roundAll(result.latencyMs),
          ceilingRequestsPerSecond: round(c.requestsPerSecond, 1),
          ceilingLatencyMs: roundAll(c.latencyMs),
          ratioToCeiling: round(result.requestsPerSecond / c.requestsPerSecond, 2),
          p99RatioToCeiling: round(result.latencyMs.p99 / c.latencyMs.p99, 2),
        })),
        memoryMiB: { empty: memory.empty, loaded: memory.loaded, afterLoad },
      },
    };
  } finally {
    await Promise.all([server.stop(), ceiling.stop()]);
  }
}

/** Rounds as one: requests, time and statuses summed; p50-p99 of the worst round (conservative), the largest max. */
function merged(rounds: LoadResult[]): LoadResult {
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
    requestsPerSecond: (requests / durationMs) * 1000,
    latencyMs: { ...worst.latencyMs, max: Math.max(...rounds.map((r) => r.latencyMs.max)) },
  };
}

function memRow(m: MemoryReading): number[] {
  return [m.rssMiB, m.heapUsedMiB, m.heapTotalMiB, m.externalMiB];
}
