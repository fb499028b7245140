// Status API: requests/s and latency of three typical requests against a page with 2,000
// components and 10,000 notices, at concurrency 1 and 32, plus the server's memory at that size.
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

export async function statusApiSuite(options: SuiteOptions): Promise<SuiteResult> {
  const server = await ChildServer.start<Ready>('servers/status-api.ts');
  try {
    const origin = `http://127.0.0.1:${server.ready.port}`;
    // What each request returns, so the numbers can be read against the work done.
    const shapes: Record<string, unknown> = {};
    for (const e of ENDPOINTS) {
      const res = await fetch(origin + e.path);
      const body = (await res.json()) as { meta?: { count: number; total_count: number } };
      const bytes = Buffer.byteLength(JSON.stringify(body));
      if (res.status !== 200) throw new Error(`${e.path} answered ${res.status}`);
      shapes[e.name] = {
        bytes,
        ...(body.meta ? { count: body.meta.count, total: body.meta.total_count } : {}),
      };
    }

    const runs: Array<{ endpoint: string; path: string; result: LoadResult }> = [];
    for (const e of ENDPOINTS) {
      for (const concurrency of CONCURRENCIES) {
        const result = await runLoad({
          origin,
          concurrency,
          maxRequests: options.quick ? 5_000 : 100_000,
          maxDurationMs: options.quick ? 2_000 : 6_000,
          warmupRequests: 500,
          request: () => ({ path: e.path }),
        });
        if (result.errors > 0)
          throw new Error(`${e.path}: ${result.errors} errors: ${result.failures.join('; ')}`);
        runs.push({ endpoint: e.name, path: e.path, result });
        options.log(
          `${e.name} c=${concurrency}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.latencyMs.p99.toFixed(2)} ms`,
        );
      }
    }
    const afterLoad = await server.call<MemoryReading>('memory');
    const { memory } = server.ready;

    return {
      tables: [
        {
          title: `Requests (${server.ready.components} components, ${server.ready.notices} notices; latency in ms)`,
          columns: ['endpoint', 'conc', 'requests', 'req/s', 'p50', 'p90', 'p99', 'max', 'bytes'],
          rows: runs.map(({ endpoint, result }) => [
            endpoint,
            result.concurrency,
            result.requests,
            result.requestsPerSecond,
            result.latencyMs.p50,
            result.latencyMs.p90,
            result.latencyMs.p99,
            result.latencyMs.max,
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
      ],
      data: {
        components: server.ready.components,
        notices: server.ready.notices,
        loadMs: round(server.ready.loadMs),
        snapshotMs: round(server.ready.snapshotMs),
        responses: shapes,
        runs: runs.map(({ endpoint, path, result }) => ({
          endpoint,
          path,
          concurrency: result.concurrency,
          requests: result.requests,
          durationMs: round(result.durationMs),
          requestsPerSecond: round(result.requestsPerSecond, 1),
          latencyMs: roundAll(result.latencyMs),
        })),
        memoryMiB: { empty: memory.empty, loaded: memory.loaded, afterLoad },
      },
    };
  } finally {
    await server.stop();
  }
}

function memRow(m: MemoryReading): number[] {
  return [m.rssMiB, m.heapUsedMiB, m.heapTotalMiB, m.externalMiB];
}
