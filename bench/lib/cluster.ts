// The benchmarks' own control plane, 'slipway-bench', started on first use and shared by the
// suites of one run. It is stopped at the end only when this run started it.
import { randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { installCrds } from '../../scripts/cluster/install-crds.ts';
import { installBuildNamespace } from '../../scripts/cluster/build-namespace.ts';
import { clusterDown, clusterUp, type Cluster } from '../../scripts/cluster/control-plane.ts';

export const BENCH_CLUSTER = 'slipway-bench';

export interface BenchCluster {
  cluster: Cluster;
  kubeconfig: string;
  kc: KubeConfig;
  /** A fresh namespace; every one made is removed by releaseCluster(). */
  namespace(prefix: string): Promise<string>;
}

let pending: Promise<BenchCluster> | undefined;
const namespaces: string[] = [];

export function benchCluster(): Promise<BenchCluster> {
  pending ??= start();
  return pending;
}

async function start(): Promise<BenchCluster> {
  const cluster = await clusterUp(BENCH_CLUSTER);
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfig);
  await installCrds(kc);
  await installBuildNamespace(kc);
  const core = kc.makeApiClient(CoreV1Api);
  return {
    cluster,
    kubeconfig: cluster.kubeconfig,
    kc,
    async namespace(prefix) {
      const name = `${prefix}-${randomBytes(3).toString('hex')}`;
      await core.createNamespace({ body: { metadata: { name, labels: { 'slipway.dev/bench': 'true' } } } });
      namespaces.push(name);
      return name;
    },
  };
}

/** Removes the run's namespaces, and stops the cluster if this run started it (unless `keep`). */
export async function releaseCluster(keep: boolean): Promise<void> {
  if (!pending) return;
  const bench = await pending.catch(() => undefined);
  pending = undefined;
  if (!bench) return;
  if (bench.cluster.created && !keep) {
    await clusterDown(BENCH_CLUSTER);
    return;
  }
  const core = bench.kc.makeApiClient(CoreV1Api);
  // Deletion finishes in the background; the next run uses new names.
  await Promise.all(namespaces.map((name) => core.deleteNamespace({ name }).catch(() => undefined)));
  namespaces.length = 0;
}

/** Runs `task` over `items` with at most `limit` at a time. */
export async function boundedAll<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await task(items[i]!, i);
      }
    }),
  );
  return results;
}

export { waitFor as until } from '../../lib/wait.ts';
