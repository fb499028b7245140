// One Prometheus registry per process, with the default Node.js process metrics.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'slipway_' });

export function counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []) {
  return new Counter<L>({ name, help, labelNames, registers: [registry] });
}

export function gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = []) {
  return new Gauge<L>({ name, help, labelNames, registers: [registry] });
}

/** Durations in seconds, with buckets from 5 ms to 10 min: fits both HTTP requests and builds. */
export function histogram<L extends string>(name: string, help: string, labelNames: readonly L[] = []) {
  return new Histogram<L>({
    name,
    help,
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers: [registry],
  });
}
