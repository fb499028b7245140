// Operator latency: webhook bundles that deploy, in lanes (one environment and Deployment per
// lane; each lane creates its next bundle when the previous one is Ready, since a newer bundle
// for the same environment supersedes an older one). Per bundle, from watch events: bundle
// created → build Job created, and build Job complete → Deployment patched with the bundle.
import { randomBytes } from 'node:crypto';
import { AppsV1Api } from '@kubernetes/client-node';
import { API_VERSION } from '../../crds/index.ts';
import { slipwayApi } from '../../lib/kube.ts';
import * as build from '../../test/support/builders.ts';
import { webDeployment } from '../../test/integration/operator/support.ts';
import { ChainWatch, type ChainTimes } from '../lib/chain-watch.ts';
import { until, type BenchCluster } from '../lib/cluster.ts';
import { OperatorProcess } from '../lib/operator-process.ts';
import { summarise, type LatencySummary } from '../lib/stats.ts';
import type { SuiteOptions } from './suite.ts';

const BUNDLE_TIMEOUT_MS = 120_000;

export interface LatencyPhase {
  bundles: number;
  lanes: number;
  seconds: number;
  phases: Record<string, number>;
  createdToJob: LatencySummary;
  jobCompleteToPatched: LatencySummary;
  createdToFinished: LatencySummary;
  rss: { ready: number; peak: number; end: number };
}

export const pad = (n: number, width: number) => String(n).padStart(width, '0');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** With shards, the lanes' projects: the default shard's, then shard `a`'s (every other lane). */
const SHARDED_PROJECTS = [
  { name: 'shop', shard: undefined, selector: '!slipway.dev/shard' },
  { name: 'blog', shard: 'a', selector: 'slipway.dev/shard in (a)' },
] as const;

/** A bundle as the gateway makes it for a push to the lane's branch (with its project's shard label). */
function laneBundle(namespace: string, name: string, lane: string, project = 'shop', shard?: string) {
  return {
    apiVersion: API_VERSION,
    kind: 'Bundle',
    metadata: {
      name,
      namespace,
      labels: {
        'slipway.dev/project': project,
        'slipway.dev/trigger': 'Webhook',
        'slipway.dev/webhook': `hook-${lane}`,
        ...(shard ? { 'slipway.dev/shard': shard } : {}),
      },
    },
    spec: {
      projectRef: { name: project },
      source: { git: { commit: randomBytes(20).toString('hex'), branch: `lane-${lane}` } },
      comment: `Benchmark push ${name}`,
      baseSoftware: { image: 'php:8.3-fpm' },
      directoryMap: { web: 'web', config: 'config', templates: 'templates' },
      trigger: {
        type: 'Webhook',
        provider: 'github',
        webhookRef: { name: `hook-${lane}` },
        deliveryId: name,
      },
      deploy: { environmentRef: { name: `env-${lane}` }, backupBeforeDeploy: false },
    },
  };
}

export async function latencyPhase(
  bench: BenchCluster,
  options: SuiteOptions,
  total: number,
  lanes: number,
  /** Two operator shards (docs/helm.md#sharding), each with one project and every other lane. */
  sharded = false,
): Promise<LatencyPhase> {
  const ns = await bench.namespace('bench-operator');
  const api = slipwayApi(bench.kc);
  const apps = bench.kc.makeApiClient(AppsV1Api);
  const laneIds = Array.from({ length: lanes }, (_, k) => pad(k, 2));
  const projects = sharded ? SHARDED_PROJECTS : [SHARDED_PROJECTS[0]];
  const projectOf = (k: number) => projects[k % projects.length]!;

  for (const project of projects)
    await api.create('Project', {
      ...build.project(
        project.name,
        build.inNamespace(ns),
        build.spec({
          slug: `${project.name}-${ns}`,
          repository: { url: `https://git.example.com/${project.name}.git` },
        }),
      ),
      metadata: {
        name: project.name,
        namespace: ns,
        annotations: { 'slipway.dev/build-concurrency': String(lanes) },
        ...(project.shard ? { labels: { 'slipway.dev/shard': project.shard } } : {}),
      },
    });
  for (const [k, lane] of laneIds.entries()) {
    await apps.createNamespacedDeployment({ namespace: ns, body: webDeployment(ns, `web-${lane}`) });
    await api.create(
      'Environment',
      build.environment(
        `env-${lane}`,
        build.inNamespace(ns),
        build.spec({ projectRef: { name: projectOf(k).name }, deploymentRef: { name: `web-${lane}` } }),
      ),
    );
    await api.create(
      'Webhook',
      build.webhook(
        `hook-${lane}`,
        build.inNamespace(ns),
        build.spec({
          projectRef: { name: projectOf(k).name },
          branch: `lane-${lane}`,
          environmentRef: { name: `env-${lane}` },
        }),
      ),
    );
  }
  await until(
    'the lane Deployments to be available',
    async () => {
      const list = await apps.listNamespacedDeployment({ namespace: ns });
      return list.items.filter((d) => (d.status?.availableReplicas ?? 0) >= 1).length === lanes;
    },
    120_000,
    200,
  );

  const watch = new ChainWatch(bench.kc, ns);
  await watch.start();
  const operators = await Promise.all(
    projects.map((project) =>
      OperatorProcess.start({
        kubeconfig: bench.kubeconfig,
        namespace: ns,
        name: `operator-latency-${lanes}${sharded ? `-${project.shard ?? 'default'}` : ''}`,
        env: sharded ? { SLIPWAY_WATCH_LABEL_SELECTOR: project.selector } : {},
      }),
    ),
  );
  const operator = operators[0]!;
  try {
    await sleep(1_000);
    const readyRss = operator.rss();
    for (const o of operators) o.sample(250);
    const started = performance.now();
    let done = 0;
    await Promise.all(
      laneIds.map(async (lane, k) => {
        const count = Math.floor(total / lanes) + (k < total % lanes ? 1 : 0);
        // Zero-padded: bundles made within one second are ordered by name.
        for (let j = 0; j < count; j++) {
          const name = `b-${lane}-${pad(j, 3)}`;
          const project = projectOf(k);
          await api.create('Bundle', laneBundle(ns, name, lane, project.name, project.shard));
          await watch.finished(name, BUNDLE_TIMEOUT_MS);
          if (++done % 50 === 0) options.log(`latency: ${done}/${total} bundles deployed`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const chains = [...watch.times.values()].filter((t) => t.created !== undefined);
    const phases: Record<string, number> = {};
    for (const t of chains) phases[t.phase ?? 'unfinished'] = (phases[t.phase ?? 'unfinished'] ?? 0) + 1;
    const between = (from: keyof ChainTimes, to: keyof ChainTimes) =>
      summarise(
        chains
          .filter((t) => typeof t[from] === 'number' && typeof t[to] === 'number')
          .map((t) => (t[to] as number) - (t[from] as number)),
      );
    return {
      bundles: chains.length,
      lanes,
      seconds,
      phases,
      createdToJob: between('created', 'jobCreated'),
      jobCompleteToPatched: between('jobComplete', 'deploymentPatched'),
      createdToFinished: between('created', 'finished'),
      rss: { ready: readyRss, peak: operator.peakRss(), end: operator.rss() },
    };
  } finally {
    for (const o of operators) await o.stop();
    await watch.stop();
  }
}
