// The Kubernetes client as the three processes use it: calls/s, CPU per call, memory and open
// sockets for a simple GET, through lib/kube.ts as wired (one connection pool, credentials
// computed once per 10 s), and through client-node as it comes (each call reads the kubeconfig's
// files and opens its own TLS connection).
import type { SuiteResult } from '../lib/report.ts';
import { ChildServer } from '../lib/child.ts';
import { round, roundAll, type LatencySummary } from '../lib/stats.ts';
import type { SuiteOptions } from './suite.ts';

interface Run {
  calls: number;
  concurrency: number;
  callsPerSecond: number;
  latencyMs: LatencySummary;
  cpuMsPerCall: number;
  rssBeforeMiB: number;
  rssAfterMiB: number;
  peakOpenFds: number;
}

export async function kubeClientSuite(options: SuiteOptions): Promise<SuiteResult> {
  const bench = await options.cluster();
  const calls = options.quick ? 300 : 1_000;
  const runs: Array<Run & { wiring: string }> = [];
  for (const shared of [false, true]) {
    for (const concurrency of [1, 16]) {
      const child = await ChildServer.start('servers/kube-client.ts', { KUBECONFIG: bench.kubeconfig });
      try {
        const run = await child.call<Run>('run', { calls, concurrency, shared });
        const wiring = shared ? 'lib/kube.ts as wired' : 'client-node as it comes';
        runs.push({ ...run, wiring });
        options.log(
          `${wiring} c=${concurrency}: ${run.callsPerSecond.toFixed(0)} calls/s, ${run.peakOpenFds} fds`,
        );
      } finally {
        await child.stop();
      }
    }
  }
  return {
    tables: [
      {
        title: `${calls} × GET /api/v1/namespaces/default (latency in ms, memory in MiB)`,
        columns: [
          'client',
          'conc',
          'calls/s',
          'p50',
          'p99',
          'CPU ms/call',
          'RSS before',
          'RSS after',
          'open fds',
        ],
        rows: runs.map((r) => [
          r.wiring,
          r.concurrency,
          r.callsPerSecond,
          r.latencyMs.p50,
          r.latencyMs.p99,
          r.cpuMsPerCall,
          r.rssBeforeMiB,
          round(r.rssAfterMiB, 1),
          r.peakOpenFds,
        ]),
      },
    ],
    notes: [
      '@kubernetes/client-node 2.0.1 makes a new undici Agent per call (createDispatcher is not cached), so every call opens a TLS connection that stays open until idle',
    ],
    data: {
      calls,
      runs: runs.map((r) => ({
        client: r.wiring,
        concurrency: r.concurrency,
        callsPerSecond: round(r.callsPerSecond, 1),
        latencyMs: roundAll(r.latencyMs),
        cpuMsPerCall: round(r.cpuMsPerCall),
        rssBeforeMiB: r.rssBeforeMiB,
        rssAfterMiB: round(r.rssAfterMiB, 1),
        peakOpenFds: r.peakOpenFds,
      })),
    },
  };
}
