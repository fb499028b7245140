// Helpers for the operator's integration tests: run the operator in-process against the test
// API server, make the objects a project needs, and play the node for Job pods that a test
// wants to finish one way or the other.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  EventsV1Api,
  PatchStrategy,
  setHeaderOptions,
  KubeConfig,
  type V1Deployment,
  type V1Job,
  type V1Container,
  type V1Pod,
} from '@kubernetes/client-node';
import type { BundleObject, EnvironmentObject, ProjectObject } from '../../../crds/index.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import { logger } from '../../../lib/log.ts';
import { loadConfig } from '../../../operator/config.ts';
import { DEFAULT_BUILD_NAMESPACE } from '../../../rules/build-namespace.ts';
import { buildJobName } from '../../../operator/names.ts';
import { shareConnections } from '../../../lib/kube.ts';
import { Operator, type OperatorOptions } from '../../../operator/operator.ts';
import { asLocalController } from '../../../scripts/cluster/writers.ts';
import { bundle, environment, project, inNamespace, spec } from '../../support/builders.ts';
import { controllerKubeConfig, createNamespace, testState, waitFor } from '../../support/cluster.ts';

export const GATEWAY = 'https://hooks.slipway.test';
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** Job pods with this node selector are never scheduled, so kwok leaves them to the test. */
export const HELD = 'slipway.dev/test-held=true';

export const quietLog = logger.child(
  { test: 'operator' },
  { level: process.env.SLIPWAY_TEST_LOG_LEVEL ?? 'silent' },
);

/** Where the tests' receivers and providers listen (the operator may call it: an exact /32). */
export const TEST_RECEIVERS = '127.0.0.1/32';

export function clients(kc: KubeConfig) {
  return {
    core: kc.makeApiClient(CoreV1Api),
    apps: kc.makeApiClient(AppsV1Api),
    batch: kc.makeApiClient(BatchV1Api),
    slipway: slipwayApi(kc),
  };
}

export async function startOperator(
  kc: KubeConfig,
  namespace: string,
  env: Record<string, string> = {},
  options: OperatorOptions = {},
): Promise<Operator> {
  const config = loadConfig({
    SLIPWAY_GATEWAY_BASE_URL: GATEWAY,
    SLIPWAY_REGISTRY: 'registry.slipway.test:5000',
    // No registry answers here: builds need no credentials of it.
    SLIPWAY_REGISTRY_AUTH: 'anonymous',
    // The tests' receivers and providers listen here: that address alone, so the refusal of
    // every other inside address stays what the operator does.
    SLIPWAY_OUTBOUND_ALLOW: TEST_RECEIVERS,
    SLIPWAY_LEADER_ELECTION: 'false',
    SLIPWAY_WATCH_NAMESPACE: namespace,
    POD_NAMESPACE: namespace,
    POD_NAME: `operator-${namespace}`,
    ...env,
  });
  // As Slipway's identity: the admin's kubeconfig acts as the local controller; one that acts as
  // a ServiceAccount already (the least-privilege tests) stays that account.
  const own = kc.getCurrentUser()?.impersonateUser ? shareConnections(copyOf(kc)) : asLocalController(kc);
  const operator = new Operator(own, config, quietLog, options);
  await operator.start();
  return operator;
}

/** A Deployment of `replicas` pods that kwok makes Ready. */
export function webDeployment(
  namespace: string,
  name: string,
  extra: Partial<V1Deployment['spec']> = {},
): V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'web', image: 'registry.slipway.test:5000/base:old' }] },
      },
      ...extra,
    },
  };
}

export const get = {
  bundle: (kc: KubeConfig, ns: string, name: string) =>
    clients(kc).slipway.get<BundleObject>('Bundle', ns, name),
  project: (kc: KubeConfig, ns: string, name: string) =>
    clients(kc).slipway.get<ProjectObject>('Project', ns, name),
  environment: (kc: KubeConfig, ns: string, name: string) =>
    clients(kc).slipway.get<EnvironmentObject>('Environment', ns, name),
  deployment: (kc: KubeConfig, ns: string, name: string) =>
    clients(kc).apps.readNamespacedDeployment({ name, namespace: ns }),
};

/** Waits until the environment reports `bundle`'s rollout with `result` (its controller follows the bundle's). */
export function environmentReporting(
  kc: KubeConfig,
  namespace: string,
  name: string,
  bundle: string,
  result: 'InProgress' | 'Succeeded' | 'Failed',
): Promise<EnvironmentObject> {
  return waitFor(`environment ${name} to report ${bundle} ${result}`, async () => {
    const env = await get.environment(kc, namespace, name);
    const last = env.status?.lastDeployment;
    return last?.bundle === bundle && last.result === result ? env : undefined;
  });
}

const cond = (
  o: { status?: { conditions?: Array<{ type: string; status: string; reason: string }> } },
  type: string,
) => o.status?.conditions?.find((c) => c.type === type);

/** Waits until the bundle reaches `phase` and returns it. */
export async function bundleInPhase(
  kc: KubeConfig,
  namespace: string,
  name: string,
  phase: string,
  timeoutMs = 60_000,
): Promise<BundleObject> {
  let last: BundleObject | undefined;
  try {
    return await waitFor(
      `bundle ${name} in phase ${phase}`,
      async () => {
        last = await get.bundle(kc, namespace, name);
        return last.status?.phase === phase ? last : undefined;
      },
      timeoutMs,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; last status: ${JSON.stringify(last?.status)}`);
  }
}

export function readyReason(o: {
  status?: { conditions?: Array<{ type: string; status: string; reason: string }> };
}) {
  const c = cond(o, 'Ready');
  return c ? `${c.status}/${c.reason}` : undefined;
}

export function conditionOf(
  o: { status?: { conditions?: Array<{ type: string; status: string; reason: string }> } },
  type: string,
) {
  const c = cond(o, type);
  return c ? `${c.status}/${c.reason}` : undefined;
}

/**
 * The Jobs the operator made for a bundle, as the API server has them: its build Job in the build
 * namespace (by its labels), then the Jobs it owns in its own namespace (its backup).
 */
export async function jobsOf(kc: KubeConfig, namespace: string, bundle: string): Promise<V1Job[]> {
  const { batch } = clients(kc);
  const builds = await batch.listNamespacedJob({
    namespace: BUILD_NAMESPACE,
    labelSelector: `slipway.dev/bundle-namespace=${namespace},slipway.dev/bundle=${bundle}`,
  });
  const own = await batch.listNamespacedJob({ namespace });
  return [
    ...builds.items,
    ...own.items.filter((j) =>
      j.metadata?.ownerReferences?.some((o) => o.kind === 'Bundle' && o.name === bundle),
    ),
  ];
}

const statusPatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/**
 * Plays the kubelet for the (held, unscheduled) pod of `jobName`: marks it Succeeded or
 * Failed, which the real Job controller then turns into the Job's outcome.
 */
/** The digest a build of `bundle` reports pushing in these tests: fixed per bundle image tag. */
export function pushedDigest(image: string): string {
  return `sha256:${createHash('sha256').update(image).digest('hex')}`;
}

function pushedReference(push: V1Container): string {
  // crane [--insecure] push <layout> <tag> …
  const args = push.command ?? [];
  const tag = args[args.indexOf('push') + 2] ?? '';
  return `${tag.replace(/:[^/:]+$/, '')}@${pushedDigest(tag)}`;
}

export async function finishJobPod(
  kc: KubeConfig,
  namespace: string,
  jobName: string,
  outcome: 'Succeeded' | 'Failed',
): Promise<void> {
  const { core } = clients(kc);
  const pod = await waitFor<V1Pod>(`a running pod of Job ${jobName}`, async () => {
    const pods = await core.listNamespacedPod({
      namespace,
      labelSelector: `batch.kubernetes.io/job-name=${jobName}`,
    });
    return pods.items.find((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
  });
  const now = new Date().toISOString();
  const containers = pod.spec?.containers ?? [];
  await core.patchNamespacedPodStatus(
    {
      name: pod.metadata!.name!,
      namespace,
      body: {
        status: {
          phase: outcome,
          containerStatuses: containers.map((c) => ({
            name: c.name,
            image: c.image,
            imageID: '',
            ready: false,
            restartCount: 0,
            state: {
              terminated: {
                exitCode: outcome === 'Succeeded' ? 0 : 1,
                reason: outcome === 'Succeeded' ? 'Completed' : 'Error',
                startedAt: now,
                finishedAt: now,
                // What crane --image-refs leaves in a build's push container (operator/jobs/build-job.ts).
                ...(outcome === 'Succeeded' && c.name === 'push' ? { message: pushedReference(c) } : {}),
              },
            },
          })),
        },
      },
    },
    statusPatch,
  );
}

/** Every build runs in the build namespace (docs/adr/0004), under a name hashed with its bundle's namespace. */
export const BUILD_NAMESPACE = DEFAULT_BUILD_NAMESPACE;

/** The build Job of bundle `namespace/bundle`, once the operator made it. */
export function waitForBuildJob(kc: KubeConfig, namespace: string, bundle: string): Promise<V1Job> {
  return waitForJob(kc, BUILD_NAMESPACE, buildJobName(namespace, bundle));
}

/** finishJobPod for the build of bundle `namespace/bundle`. */
export function finishBuildPod(
  kc: KubeConfig,
  namespace: string,
  bundle: string,
  outcome: 'Succeeded' | 'Failed',
): Promise<void> {
  return finishJobPod(kc, BUILD_NAMESPACE, buildJobName(namespace, bundle), outcome);
}

export async function waitForJob(kc: KubeConfig, namespace: string, name: string): Promise<V1Job> {
  return waitFor(`Job ${name}`, async () => {
    try {
      return await clients(kc).batch.readNamespacedJob({ name, namespace });
    } catch {
      return undefined;
    }
  });
}

/** A claim bound to a static volume, so pods that mount it can be scheduled (there is no provisioner). */
export async function createBackupVolume(kc: KubeConfig, namespace: string, claim: string): Promise<void> {
  const { core } = clients(kc);
  const pv = `${namespace}-${claim}`;
  await core.createPersistentVolume({
    body: {
      metadata: { name: pv, labels: { 'slipway.dev/test': 'true' } },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Delete',
        hostPath: { path: `/tmp/${pv}` },
        claimRef: { namespace, name: claim },
        storageClassName: '',
      },
    },
  });
  await core.createNamespacedPersistentVolumeClaim({
    namespace,
    body: {
      metadata: { name: claim },
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '1Gi' } },
        storageClassName: '',
        volumeName: pv,
      },
    },
  });
}

/**
 * A project namespace (projectNamespace) and an operator for it whose Job pods no node takes
 * (SLIPWAY_JOB_NODE_SELECTOR=HELD): the test plays the node, or watches the pods stay Pending.
 */
/** A fork's pull-request bundle of `project`, created as Slipway makes it (only Slipway may: slipway-writers). */
export async function createForkBundle(namespace: string, name: string, project: string): Promise<void> {
  await slipwayApi(controllerKubeConfig()).create(
    'Bundle',
    bundle(
      name,
      inNamespace(namespace),
      spec({
        projectRef: { name: project },
        trigger: {
          type: 'PullRequest',
          provider: 'github',
          fork: true,
          previewRef: { name: `${project}-pr-1` },
        },
      }),
    ),
  );
}

export async function heldOperatorNamespace(
  kc: KubeConfig,
  prefix: string,
  env: Record<string, string> = {},
): Promise<{ ns: TestNamespace; operator: Operator }> {
  const ns = await projectNamespace(kc, prefix);
  const operator = await startOperator(kc, ns.name, {
    SLIPWAY_JOB_NODE_SELECTOR: HELD,
    SLIPWAY_BUILD_CONCURRENCY: '4',
    ...env,
  });
  return { ns, operator };
}

export interface TestNamespace {
  name: string;
  /** Deletes the namespace and the backup claim's volume. */
  remove: () => Promise<void>;
}

/** Project `shop`: a git repository and a slug unique to the namespace, then `projectSpec`. */
export async function createProject(
  kc: KubeConfig,
  namespace: string,
  projectSpec: Record<string, unknown> = {},
): Promise<void> {
  await clients(kc).slipway.create(
    'Project',
    project(
      'shop',
      inNamespace(namespace),
      spec({
        slug: `shop-${namespace}`,
        repository: { url: 'https://git.example.com/shop.git' },
        ...projectSpec,
      }),
    ),
  );
}

/**
 * A fresh namespace with what a project's builds need: Project `shop` (createProject), the
 * database Secret `db` and the backup claim `backups`.
 */
export async function projectNamespace(
  kc: KubeConfig,
  prefix: string,
  projectSpec: Record<string, unknown> = {},
): Promise<TestNamespace> {
  const ns = await createNamespace(kc, prefix);
  const { core } = clients(kc);
  await createProject(kc, ns.name, projectSpec);
  await core.createNamespacedSecret({
    namespace: ns.name,
    body: {
      metadata: { name: 'db' },
      stringData: { host: 'db', database: 'shop', username: 'u', password: 'p' },
    },
  });
  await createBackupVolume(kc, ns.name, 'backups');
  return {
    name: ns.name,
    remove: async () => {
      await core.deletePersistentVolume({ name: `${ns.name}-backups` }).catch(() => undefined);
      await ns.remove();
    },
  };
}

/**
 * Environment `name` of project `shop` with its own Deployment (made by webDeployment, changed
 * by `deploymentSpec`), the database in Secret `db` and backups on claim `backups`.
 */
export async function createEnvironment(
  kc: KubeConfig,
  namespace: string,
  name: string,
  options: {
    deployment: string;
    engine: 'mysql' | 'postgresql';
    backupPathPrefix?: string;
    deploymentSpec?: Partial<V1Deployment['spec']>;
    /** Server-side apply the Deployment as this field manager (a GitOps tool) instead of creating it. */
    deploymentManager?: string;
  },
): Promise<void> {
  const { slipway, apps } = clients(kc);
  const body = webDeployment(namespace, options.deployment, options.deploymentSpec);
  if (options.deploymentManager) await applyDeployment(kc, body, options.deploymentManager);
  else await apps.createNamespacedDeployment({ namespace, body });
  const backupStorage = {
    persistentVolumeClaim: { claimName: 'backups' },
    ...(options.backupPathPrefix ? { pathPrefix: options.backupPathPrefix } : {}),
  };
  await slipway.create(
    'Environment',
    environment(
      name,
      inNamespace(namespace),
      spec({
        deploymentRef: { name: options.deployment },
        database: { engine: options.engine, secretRef: { name: 'db' } },
        backupStorage,
      }),
    ),
  );
}

/** A Deployment applied by server-side apply as `fieldManager`, as Argo CD or Flux applies one. */
export function applyDeployment(
  kc: KubeConfig,
  body: V1Deployment,
  fieldManager: string,
  force = false,
): Promise<V1Deployment> {
  return clients(kc).apps.patchNamespacedDeployment(
    { name: body.metadata!.name!, namespace: body.metadata!.namespace!, body, fieldManager, force },
    setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
  );
}

/** Reasons of the events.k8s.io Events regarding the object `name` (of any kind), oldest first. */
/** The reasons of an object's Events, oldest first; a reason recorded n times appears n times. */
export async function eventsFor(kc: KubeConfig, namespace: string, name: string): Promise<string[]> {
  const list = await kc.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace });
  return list.items
    .filter((e) => e.regarding?.name === name)
    .sort((x, y) => String(x.eventTime ?? '').localeCompare(String(y.eventTime ?? '')))
    .flatMap((e) => Array<string>(e.series?.count ?? 1).fill(e.reason ?? ''));
}

/** A separate KubeConfig with the same cluster, user and context (so patching it leaves the test's alone). */
function copyOf(kc: KubeConfig): KubeConfig {
  const out = new KubeConfig();
  out.loadFromOptions({
    clusters: kc.clusters,
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  return out;
}

/**
 * The operator as a real process (`node operator/main.ts <args>`) watching `namespace`, with
 * leader election on a short Lease and Job pods no node takes (HELD); its output goes to `keep`.
 */
export function spawnOperator(
  namespace: string,
  identity: string,
  keep: (output: string) => void,
  args: string[] = [],
  env: Record<string, string> = {},
): ChildProcess {
  const child = spawn(process.execPath, [join(ROOT, 'operator', 'main.ts'), ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      KUBECONFIG: testState().controllerKubeconfig,
      SLIPWAY_WATCH_NAMESPACE: namespace,
      POD_NAMESPACE: namespace,
      POD_NAME: identity,
      SLIPWAY_LEADER_ELECTION: 'true',
      SLIPWAY_LEASE_DURATION_SECONDS: '3',
      SLIPWAY_JOB_NODE_SELECTOR: HELD,
      SLIPWAY_ADMIN_PORT: '0',
      SLIPWAY_GATEWAY_BASE_URL: GATEWAY,
      SLIPWAY_REGISTRY_AUTH: 'anonymous',
      SLIPWAY_LOG_LEVEL: 'info',
      SLIPWAY_OUTBOUND_ALLOW: TEST_RECEIVERS,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => keep(d.toString()));
  child.stderr!.on('data', (d: Buffer) => keep(d.toString()));
  return child;
}
