// Failed steps and ordering. Job pods here are held off every node (SLIPWAY_JOB_NODE_SELECTOR
// matches none), so the test plays the node and decides when, and how, each one ends.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Operator } from '../../../operator/operator.ts';
import { buildJobName, jobLabels } from '../../../operator/names.ts';
import { bundle, project, inNamespace, spec } from '../../support/builders.ts';
import { kubectl, testKubeConfig, waitFor } from '../../support/cluster.ts';
import {
  environmentReporting,
  bundleInPhase,
  clients,
  conditionOf,
  createEnvironment,
  finishJobPod,
  get,
  heldOperatorNamespace,
  jobsOf,
  readyReason,
  waitForJob,
  type TestNamespace,
  type webDeployment,
  waitForBuildJob,
  finishBuildPod,
  BUILD_NAMESPACE,
} from './support.ts';

let kc: KubeConfig;
let ns: TestNamespace;
let operator: Operator;
const OLD_IMAGE = 'registry.slipway.test:5000/base:old';

const deployBundle = (name: string, env: string, backup = false) =>
  bundle(
    name,
    inNamespace(ns.name),
    spec({ deploy: { environmentRef: { name: env }, backupBeforeDeploy: backup } }),
  );

/** A Job someone else makes, whose pod no node takes. */
const createHeldJob = (namespace: string, name: string, labels: Record<string, string>) =>
  clients(kc).batch.createNamespacedJob({
    namespace,
    body: {
      metadata: { name, labels },
      spec: {
        template: {
          metadata: { labels },
          spec: {
            restartPolicy: 'Never',
            nodeSelector: { 'slipway.dev/test-held': 'true' },
            containers: [{ name: 'x', image: 'registry.slipway.test:5000/x:1' }],
          },
        },
      },
    },
  });

/** A project environment with its own Deployment (so tests do not share a rollout). */
const makeEnvironment = (name: string, deploymentSpec: Parameters<typeof webDeployment>[2] = {}) =>
  createEnvironment(kc, ns.name, name, { deployment: `${name}-web`, engine: 'postgresql', deploymentSpec });

const imageOf = async (deployment: string) =>
  (await get.deployment(kc, ns.name, deployment)).spec?.template.spec?.containers[0]?.image;

/**
 * An environment whose rollouts cannot finish: one pod per node with no room to surge, so the
 * new version's pod can never be scheduled. Resolves once the first version is available.
 */
async function stuckEnvironment(name: string, progressDeadlineSeconds: number): Promise<void> {
  const nodes = (await clients(kc).core.listNode()).items.length;
  await makeEnvironment(name, {
    replicas: nodes,
    progressDeadlineSeconds,
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    template: {
      metadata: { labels: { app: `${name}-web` } },
      spec: {
        containers: [{ name: 'web', image: OLD_IMAGE }],
        affinity: {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              {
                labelSelector: { matchLabels: { app: `${name}-web` } },
                topologyKey: 'kubernetes.io/hostname',
              },
            ],
          },
        },
      },
    },
  });
  await waitFor('the first version to be available', async () => {
    const d = await get.deployment(kc, ns.name, `${name}-web`);
    return d.status?.availableReplicas === nodes;
  });
}

beforeAll(async () => {
  kc = testKubeConfig();
  ({ ns, operator } = await heldOperatorNamespace(kc, 'op-failures'));
});

afterAll(async () => {
  await operator?.stop();
  await ns?.remove();
});

describe('operator: failed steps', () => {
  it('a failed build gives BuildFailed and deploys nothing', async () => {
    await makeEnvironment('env-build');
    await clients(kc).slipway.create('Bundle', deployBundle('bad-build', 'env-build'));
    await waitForBuildJob(kc, ns.name, 'bad-build');
    await finishBuildPod(kc, ns.name, 'bad-build', 'Failed');
    const b = await bundleInPhase(kc, ns.name, 'bad-build', 'Failed');
    expect(readyReason(b)).toBe('False/BuildFailed');
    expect(conditionOf(b, 'Built')).toBe('False/BuildFailed');
    expect(conditionOf(b, 'Deployed')).toBeUndefined();
    // kstatus: a failed bundle is Stalled, no longer Reconciling.
    expect(conditionOf(b, 'Stalled')).toBe('True/BuildFailed');
    expect(conditionOf(b, 'Reconciling')).toBeUndefined();
    expect(await imageOf('env-build-web')).toBe(OLD_IMAGE);
    expect((await get.environment(kc, ns.name, 'env-build')).status?.lastDeployment).toBeUndefined();
  });

  it("a Job with the bundle's build name that is not its build is never taken for it: JobNotOwned, the Job left alone", async () => {
    // Someone who may create Jobs in the build namespace (tenants may not) makes one with the
    // name and labels the build would have, but for a bundle of another uid.
    const labels = {
      ...jobLabels('shop', 'squat', 'build'),
      'slipway.dev/bundle-namespace': ns.name,
      'slipway.dev/bundle-uid': 'another-bundle',
      'slipway.dev/test': 'squatter',
    };
    await createHeldJob(BUILD_NAMESPACE, buildJobName(ns.name, 'squat'), labels);
    await clients(kc).slipway.create('Bundle', bundle('squat', inNamespace(ns.name)));
    const b = await bundleInPhase(kc, ns.name, 'squat', 'Failed');
    expect(readyReason(b)).toBe('False/JobNotOwned');
    expect(conditionOf(b, 'Built')).toBe('False/JobNotOwned');
    expect(b.status?.conditions?.find((c) => c.type === 'Ready')?.message).toMatch(
      /^Job [0-9a-f]{16}-squat-build exists but is not this bundle's \(it builds the bundle with uid another-bundle\)/,
    );
    // Still there, as its owner made it: not stopped, not adopted, not labelled finished.
    const job = await clients(kc).batch.readNamespacedJob({
      name: buildJobName(ns.name, 'squat'),
      namespace: BUILD_NAMESPACE,
    });
    expect(job.metadata?.labels).toEqual(labels);
    await clients(kc).batch.deleteNamespacedJob({
      name: buildJobName(ns.name, 'squat'),
      namespace: BUILD_NAMESPACE,
    });
  });

  it("a tenant's Job under the build's old name in the bundle's namespace is nothing to the build", async () => {
    const labels = { ...jobLabels('shop', 'decoy', 'build'), 'slipway.dev/bundle-uid': 'x' };
    await createHeldJob(ns.name, 'decoy-build', labels);
    await clients(kc).slipway.create('Bundle', bundle('decoy', inNamespace(ns.name)));
    await waitForBuildJob(kc, ns.name, 'decoy');
    await finishBuildPod(kc, ns.name, 'decoy', 'Succeeded');
    const b = await bundleInPhase(kc, ns.name, 'decoy', 'Built');
    expect(b.status?.build?.namespace).toBe(BUILD_NAMESPACE);
  });

  it('a failed backup gives BackupFailed and leaves the Deployment alone', async () => {
    await makeEnvironment('env-backup');
    await clients(kc).slipway.create('Bundle', deployBundle('bad-backup', 'env-backup', true));
    await waitForBuildJob(kc, ns.name, 'bad-backup');
    await finishBuildPod(kc, ns.name, 'bad-backup', 'Succeeded');
    await waitForJob(kc, ns.name, 'bad-backup-backup');
    // While the backup runs, the Deployment is untouched.
    const backingUp = await bundleInPhase(kc, ns.name, 'bad-backup', 'BackingUp');
    expect(conditionOf(backingUp, 'Built')).toBe('True/Succeeded');
    expect(await imageOf('env-backup-web')).toBe(OLD_IMAGE);
    // The backup Job retries once (backoffLimit 1): both attempts fail.
    await finishJobPod(kc, ns.name, 'bad-backup-backup', 'Failed');
    await finishJobPod(kc, ns.name, 'bad-backup-backup', 'Failed');
    const b = await bundleInPhase(kc, ns.name, 'bad-backup', 'Failed');
    expect(readyReason(b)).toBe('False/BackupFailed');
    expect(conditionOf(b, 'BackedUp')).toBe('False/BackupFailed');
    expect(await imageOf('env-backup-web')).toBe(OLD_IMAGE);
  });

  it('a rollout that does not progress within its deadline gives RolloutFailed', async () => {
    await stuckEnvironment('env-stuck', 3);
    await clients(kc).slipway.create('Bundle', deployBundle('stuck', 'env-stuck'));
    await waitForBuildJob(kc, ns.name, 'stuck');
    await finishBuildPod(kc, ns.name, 'stuck', 'Succeeded');
    const b = await bundleInPhase(kc, ns.name, 'stuck', 'Failed', 90_000);
    expect(readyReason(b)).toBe('False/RolloutFailed');
    expect(conditionOf(b, 'Deployed')).toBe('False/RolloutFailed');
    const env = await environmentReporting(kc, ns.name, 'env-stuck', 'stuck', 'Failed');
    expect(env.status?.lastDeployment).toMatchObject({ bundle: 'stuck', result: 'Failed' });
    expect(env.status?.currentBundle).toBeUndefined();
  });

  it('kubectl rollout undo during a rollout wins: the bundle fails as RolloutReplaced, the old image stays', async () => {
    // A long deadline: a person steps in first.
    await stuckEnvironment('env-undo', 600);
    await clients(kc).slipway.create('Bundle', deployBundle('undone', 'env-undo'));
    await waitForBuildJob(kc, ns.name, 'undone');
    await finishBuildPod(kc, ns.name, 'undone', 'Succeeded');
    await bundleInPhase(kc, ns.name, 'undone', 'Deploying');
    await waitFor('the rollout to be recorded', async () => {
      const d = await get.deployment(kc, ns.name, 'env-undo-web');
      return (d.metadata?.generation ?? 0) > 1 && d.status?.observedGeneration === d.metadata?.generation;
    });
    await kubectl(['rollout', 'undo', 'deployment/env-undo-web', '-n', ns.name]);
    const b = await bundleInPhase(kc, ns.name, 'undone', 'Failed');
    expect(readyReason(b)).toBe('False/RolloutReplaced');
    expect(b.status?.conditions?.find((c) => c.type === 'Ready')?.message).toMatch(
      /^Deployment env-undo-web was changed to another pod template while this bundle rolled out/,
    );
    expect(await imageOf('env-undo-web')).toBe(OLD_IMAGE);
    const env = await environmentReporting(kc, ns.name, 'env-undo', 'undone', 'Failed');
    expect(env.status?.currentBundle).toBeUndefined();
  });
});

describe('operator: ordering', () => {
  it('two bundles for one environment: the newest wins, the older is Superseded', async () => {
    await makeEnvironment('env-order');
    const { slipway } = clients(kc);
    await slipway.create('Bundle', deployBundle('order-1', 'env-order'));
    await waitForBuildJob(kc, ns.name, 'order-1');
    // Same-second creations are ordered by name, so order-2 is newer either way.
    await slipway.create('Bundle', deployBundle('order-2', 'env-order'));
    const older = await bundleInPhase(kc, ns.name, 'order-1', 'Superseded');
    expect(conditionOf(older, 'Deployed')).toBe('False/Superseded');
    // Its unfinished build was stopped.
    await waitFor(
      'the superseded build Job to go',
      async () => (await jobsOf(kc, ns.name, 'order-1')).length === 0,
    );
    await waitForBuildJob(kc, ns.name, 'order-2');
    await finishBuildPod(kc, ns.name, 'order-2', 'Succeeded');
    const newer = await bundleInPhase(kc, ns.name, 'order-2', 'Ready');
    expect(await imageOf('env-order-web')).toBe(newer.status?.image);
    expect(
      (await environmentReporting(kc, ns.name, 'env-order', 'order-2', 'Succeeded')).status?.currentBundle,
    ).toBe('order-2');
  });

  it('builds of one project beyond its concurrency wait as Queued', async () => {
    const { slipway } = clients(kc);
    await slipway.create(
      'Project',
      project(
        'solo',
        inNamespace(ns.name),
        spec({ repository: { url: 'https://git.example.com/solo.git' } }),
      ),
    );
    const solo = (name: string) => bundle(name, inNamespace(ns.name), spec({ projectRef: { name: 'solo' } }));
    // The operator default here is 4; the annotation limits this project to one build at a time.
    await slipway.patch('Project', ns.name, 'solo', {
      metadata: { annotations: { 'slipway.dev/build-concurrency': '1' } },
    });
    await slipway.create('Bundle', solo('solo-1'));
    await waitForBuildJob(kc, ns.name, 'solo-1');
    await slipway.create('Bundle', solo('solo-2'));
    const queued = await bundleInPhase(kc, ns.name, 'solo-2', 'Queued');
    expect(readyReason(queued)).toBe('Unknown/Queued');
    expect(conditionOf(queued, 'Reconciling')).toBe('True/Queued');
    expect(await jobsOf(kc, ns.name, 'solo-2')).toEqual([]);
    await finishBuildPod(kc, ns.name, 'solo-1', 'Succeeded');
    await bundleInPhase(kc, ns.name, 'solo-1', 'Built');
    await waitForBuildJob(kc, ns.name, 'solo-2');
    await finishBuildPod(kc, ns.name, 'solo-2', 'Succeeded');
    const built = await bundleInPhase(kc, ns.name, 'solo-2', 'Built');
    expect(built.status?.conditions?.map((c) => c.type)).toEqual(['Built', 'Ready']);
  });
});

describe('operator: build slots per namespace', () => {
  it("queues a bundle while its namespace's projects run the most builds they may, and starts it once one ends", async () => {
    const { ns: crowded, operator: capped } = await heldOperatorNamespace(kc, 'op-crowded', {
      SLIPWAY_MAX_NAMESPACE_BUILDS: '1',
    });
    try {
      const { slipway } = clients(kc);
      // A second project of the namespace, with build slots of its own to spare.
      await slipway.create(
        'Project',
        project(
          'other',
          inNamespace(crowded.name),
          spec({ repository: { url: 'https://git.example.com/other.git' } }),
        ),
      );
      await slipway.create('Bundle', bundle('shop-1', inNamespace(crowded.name), spec({})));
      await waitForBuildJob(kc, crowded.name, 'shop-1');
      await slipway.create(
        'Bundle',
        bundle('other-1', inNamespace(crowded.name), spec({ projectRef: { name: 'other' } })),
      );
      const queued = await bundleInPhase(kc, crowded.name, 'other-1', 'Queued');
      expect(queued.status?.conditions?.find((c) => c.type === 'Built')?.message).toBe(
        `waiting for a build slot: namespace ${crowded.name} runs at most 1 build at a time (all its projects)`,
      );
      expect(await jobsOf(kc, crowded.name, 'other-1')).toEqual([]);
      await finishBuildPod(kc, crowded.name, 'shop-1', 'Succeeded');
      await bundleInPhase(kc, crowded.name, 'shop-1', 'Built');
      await waitForBuildJob(kc, crowded.name, 'other-1');
    } finally {
      await capped.stop();
      await crowded.remove();
    }
  });
});
