// Operator memory: 5,000 finished bundles and their build Jobs, created with bounded concurrency
// in a fresh namespace; the operator's RSS and heap when it starts on them (it lists and looks
// at every one), against the same process on the empty namespace.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchV1Api, type V1Job } from '@kubernetes/client-node';
import { pino } from 'pino';
import { LABEL_FINISHED } from '../../crds/labels.ts';
import { Informer } from '../../lib/informer.ts';
import type { BundleObject, ProjectObject } from '../../crds/index.ts';
import { slipwayApi } from '../../lib/kube.ts';
import { buildJob } from '../../operator/jobs/build-job.ts';
import { loadConfig } from '../../operator/config.ts';
import { bundleImage } from '../../operator/names.ts';
import * as build from '../../test/support/builders.ts';
import { boundedAll, until, type BenchCluster } from '../lib/cluster.ts';
import { OperatorProcess } from '../lib/operator-process.ts';
import { kubeConfigFromFile } from '../../lib/kube.ts';
import { pad, sleep } from './operator-latency.ts';
import type { SuiteOptions } from './suite.ts';

export interface MemoryReading {
  rssMiB: number;
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
}

export interface MemoryPhase {
  bundles: number;
  projects: number;
  createSeconds: number;
  /** Each start, in order: from spawning the process to /readyz answering 200 (every informer listed), V8's compile cache warm. */
  warmStarts: number[];
  /** The same with an empty compile cache: a new pod's first start. */
  coldStarts: number[];
  empty: MemoryReading;
  ready: MemoryReading;
  settled: MemoryReading;
  peakRssMiB: number;
}

const REGISTRY = 'registry.bench.test:5000';
const PER_PROJECT = 100;
export const SETTLE_MS = 15_000;
/** Starts measured of each kind (new pod, restarted container). */
const START_PAIRS = 3;

const BUILT_AT = '2026-03-01T10:00:00.000Z';

/** A bundle's status as the operator leaves it after a successful build (and rollout, with deploy). */
function finishedStatus(name: string, image: string, deploy: boolean) {
  const condition = (type: string, message: string) => ({
    type,
    status: 'True',
    reason: 'Succeeded',
    message,
    lastTransitionTime: BUILT_AT,
    observedGeneration: 1,
  });
  const conditions = [condition('Built', `built image ${image}`)];
  if (deploy) conditions.push(condition('Deployed', `environment production runs image ${image}`));
  conditions.push(
    condition('Ready', deploy ? `environment production runs image ${image}` : `built image ${image}`),
  );
  return {
    observedGeneration: 1,
    phase: deploy ? 'Ready' : 'Built',
    conditions,
    image,
    buildJob: `${name}-build`,
    startedAt: BUILT_AT,
    finishedAt: BUILT_AT,
  };
}

/**
 * `total` finished bundles over projects of 100, each with the build Job the operator made for
 * it, as the operator leaves it once the bundle has finished: labelled slipway.dev/finished
 * (operator/bundle/retire.ts), so on the cluster but outside the operator's watches. The Jobs
 * are created suspended, so the cluster runs no pods for them: the objects are the real ones,
 * only the Job's status differs. Four in five are webhook bundles that deployed, one in five a
 * manual build.
 */
export async function createFinishedBundles(
  kubeconfig: string,
  ns: string,
  total: number,
  log: (m: string) => void,
) {
  const kc = kubeConfigFromFile(kubeconfig);
  const api = slipwayApi(kc);
  const batch = kc.makeApiClient(BatchV1Api);
  const config = loadConfig({ SLIPWAY_REGISTRY: REGISTRY });
  const projects = Array.from({ length: Math.ceil(total / PER_PROJECT) }, (_, p) => `site-${pad(p, 2)}`);
  const projectObjects = new Map<string, ProjectObject>();
  for (const p of projects) {
    const project = build.project(
      p,
      build.inNamespace(ns),
      build.spec({
        repository: { url: `https://git.example.com/${p}.git` },
        bundleHistoryLimit: 1000,
      }),
    );
    projectObjects.set(p, await api.create('Project', project as ProjectObject & Record<string, unknown>));
  }
  const items = Array.from({ length: total }, (_, i) => ({
    project: projects[Math.floor(i / PER_PROJECT)]!,
    j: i % PER_PROJECT,
  }));
  let done = 0;
  await boundedAll(items, 32, async ({ project, j }) => {
    const name = `${project}-${pad(j, 4)}`;
    const deploy = j % 5 !== 0;
    const spec = build.bundle(
      name,
      build.inNamespace(ns),
      build.spec({
        projectRef: { name: project },
        source: { git: { commit: randomBytes(20).toString('hex'), branch: 'main' } },
        comment: `Push ${j} to ${project}: update the templates and the web assets`,
        ...(deploy
          ? {
              trigger: {
                type: 'Webhook',
                provider: 'github',
                webhookRef: { name: 'main-to-production' },
                deliveryId: randomUUID(),
              },
              deploy: { environmentRef: { name: 'production' }, backupBeforeDeploy: false },
            }
          : {}),
      }),
    );
    const bundle = await api.create('Bundle', spec as BundleObject & Record<string, unknown>);
    const image = bundleImage(REGISTRY, ns, project, name);
    await api.patchStatus('Bundle', ns, name, finishedStatus(name, image, deploy));
    const job = buildJob(bundle, projectObjects.get(project)!, image, config);
    const metadata = { ...job.metadata, labels: { ...job.metadata?.labels, [LABEL_FINISHED]: 'true' } };
    await batch.createNamespacedJob({
      namespace: job.metadata!.namespace!,
      body: { ...job, metadata, spec: { ...job.spec!, suspend: true } },
    });
    if (++done % 1000 === 0) log(`memory: ${done}/${total} finished bundles and their Jobs created`);
  });
  return projects.length;
}

const isSuspended = (job: V1Job) =>
  job.status?.conditions?.some((c) => c.type === 'Suspended' && c.status === 'True') === true;

/**
 * The Job controller marks each new suspended Job Suspended: `total` status writes, a minute of
 * the API server's time after a bulk create, which would be measured as the operator's start.
 * Waits for the last of them, as an operator restarting on a settled cluster finds it.
 */
async function jobControllerCaughtUp(kubeconfig: string, ns: string, total: number): Promise<void> {
  const jobs = new Informer<V1Job>(
    kubeConfigFromFile(kubeconfig),
    `/apis/batch/v1/namespaces/${ns}/jobs`,
    pino({ level: 'silent' }),
    { transform: (j) => ({ metadata: j.metadata, status: j.status }) },
  );
  await jobs.start();
  try {
    await until(
      'the Job controller to mark every Job Suspended',
      () => jobs.list().filter(isSuspended).length >= total,
      600_000,
      500,
    );
  } finally {
    await jobs.stop();
  }
}

export async function memoryPhase(
  bench: BenchCluster,
  options: SuiteOptions,
  total: number,
): Promise<MemoryPhase> {
  const ns = await bench.namespace('bench-operator-rss');
  const reading = async (operator: OperatorProcess) => ({
    rssMiB: operator.rss(),
    ...(await operator.memoryMetrics()),
  });

  // The same process on the same namespace, empty: the baseline.
  let operator = await OperatorProcess.start({
    kubeconfig: bench.kubeconfig,
    namespace: ns,
    name: 'operator-memory-empty',
  });
  await sleep(3_000);
  const empty = await reading(operator);
  await operator.stop();

  const started = performance.now();
  const projects = await createFinishedBundles(bench.kubeconfig, ns, total, options.log);
  const createSeconds = (performance.now() - started) / 1000;
  await jobControllerCaughtUp(bench.kubeconfig, ns, total);

  // A new pod's first start compiles every module; a restarted container finds V8's code in its
  // /tmp (operator/main.ts). Both, each a new process, the first with an empty cache folder that
  // its exit fills. Three pairs, the median of each kind: the first start after the bulk create
  // ran 2.5-3.5 s where the next ones ran 1.6-1.9 s, while the control plane was still busy.
  const caches: string[] = [];
  const removeCaches = () => caches.forEach((c) => rmSync(c, { recursive: true, force: true }));
  const spawnToReady = async (name: string, compileCache: string) => {
    const startedAt = performance.now();
    const process = await OperatorProcess.start({
      kubeconfig: bench.kubeconfig,
      namespace: ns,
      name,
      env: { NODE_COMPILE_CACHE: compileCache },
    });
    return { process, seconds: (performance.now() - startedAt) / 1000 };
  };
  const coldStarts: number[] = [];
  const warmStarts: number[] = [];
  try {
    for (let i = 1; i <= START_PAIRS; i++) {
      const cache = mkdtempSync(join(tmpdir(), 'slipway-bench-compile-cache-'));
      caches.push(cache);
      const cold = await spawnToReady(`operator-memory-cold-${i}`, cache);
      coldStarts.push(cold.seconds);
      await cold.process.stop();
      const warm = await spawnToReady(`operator-memory-${i}`, cache);
      warmStarts.push(warm.seconds);
      // The last one stays for the memory readings.
      if (i < START_PAIRS) await warm.process.stop();
      else operator = warm.process;
    }
  } catch (err) {
    removeCaches();
    throw err;
  }
  try {
    operator.sample(100);
    const ready = await reading(operator);
    // Every cached bundle gets one look after the start; then the operator is idle.
    await sleep(SETTLE_MS);
    const settled = await reading(operator);
    return {
      bundles: total,
      projects,
      createSeconds,
      warmStarts,
      coldStarts,
      empty,
      ready,
      settled,
      peakRssMiB: operator.peakRss(),
    };
  } finally {
    await operator.stop();
    removeCaches();
  }
}
