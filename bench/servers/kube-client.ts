// Child process: API calls through the Kubernetes client as Slipway's processes make them
// (lib/kube.ts: one shared pool and credentials), or as client-node comes, for comparison. A
// fresh process per run, so its RSS and open file descriptors are the run's own.
import { readdirSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { kubeClients } from '../../lib/kube.ts';
import { failToParent, serveParent } from '../lib/child.ts';
import { settledMemory } from '../lib/memory.ts';
import { kubeConfigFromFile } from '../../lib/kube.ts';
import { summarise } from '../lib/stats.ts';

const openFds = () => {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return NaN;
  }
};

async function run(arg: unknown) {
  const { calls, concurrency, shared } = arg as { calls: number; concurrency: number; shared: boolean };
  const path = process.env.KUBECONFIG!;
  let kc: KubeConfig;
  if (shared) kc = kubeConfigFromFile(path);
  else {
    kc = new KubeConfig();
    kc.loadFromFile(path);
  }
  const { core } = kubeClients(kc);
  await core.readNamespace({ name: 'default' });
  const before = settledMemory();
  const cpu = process.cpuUsage();
  const latencies = new Float64Array(calls);
  let next = 0;
  let peakFds = openFds();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) {
        const i = next++;
        const t0 = performance.now();
        await core.readNamespace({ name: 'default' });
        latencies[i] = performance.now() - t0;
        if (i % 50 === 0) peakFds = Math.max(peakFds, openFds());
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    calls,
    concurrency,
    callsPerSecond: calls / seconds,
    latencyMs: summarise(latencies),
    cpuMsPerCall: (used.user + used.system) / 1000 / calls,
    rssBeforeMiB: before.rssMiB,
    rssAfterMiB: process.memoryUsage().rss / 1048576,
    peakOpenFds: Math.max(peakFds, openFds()),
  };
}

try {
  serveParent({ run }, { pid: process.pid });
} catch (error) {
  failToParent(error);
}
