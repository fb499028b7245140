// One Prometheus registry per process, with the default Node.js process metrics under their
// standard names (process_cpu_seconds_total, nodejs_heap_size_used_bytes, …), so stock
// dashboards and alerts find them.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { SLIPWAY_VERSION } from './version.ts';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** slipway_build_info{version, node_version} 1: which release (and Node.js) each process runs. */
new Gauge({
  name: 'slipway_build_info',
  help: 'The Slipway version and Node.js version this process runs; always 1.',
  labelNames: ['version', 'node_version'] as const,
  registers: [registry],
}).set({ version: SLIPWAY_VERSION, node_version: process.version }, 1);

export function counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []) {
  return new Counter<L>({ name, help, labelNames, registers: [registry] });
}

export function gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = []) {
  return new Gauge<L>({ name, help, labelNames, registers: [registry] });
}

/** Requests and reconciles: 5 ms to 10 min. */
export const REQUEST_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600,
];
/** Builds, backups and rollouts: 1 s to a day, the longest timeout the operator accepts. */
export const STEP_BUCKETS = [1, 5, 10, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14_400, 43_200, 86_400];

/** Durations in seconds. */
export function histogram<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[] = [],
  buckets: readonly number[] = REQUEST_BUCKETS,
) {
  return new Histogram<L>({ name, help, labelNames, buckets: [...buckets], registers: [registry] });
}
