// The bundle chain against a real API server, with kwok completing Job pods and readying
// Deployment pods: build → (backup) → rollout, and what a user sees on the way.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig, V1Job } from '@kubernetes/client-node';
import { LABEL_FINISHED } from '../../../crds/labels.ts';
import { INDEX } from '../../../operator/informers.ts';
import type { Operator } from '../../../operator/operator.ts';
import { controllerKubeConfig, kubectl, testKubeConfig, waitFor } from '../../support/cluster.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import { bundle, webhook, inNamespace, rollbackBundle, spec } from '../../support/builders.ts';
import {
  environmentReporting,
  bundleInPhase,
  clients,
  conditionOf,
  createEnvironment,
  eventsFor,
  get,
  jobsOf,
  projectNamespace,
  readyReason,
  startOperator,
  type TestNamespace,
  BUILD_NAMESPACE,
} from './support.ts';
import { buildJobName } from '../../../operator/names.ts';

let kc: KubeConfig;
let ns: TestNamespace;
let operator: Operator;

const webhookBundle = (namespace: string, name: string, deploy?: object, commit = 'b'.repeat(40)) =>
  bundle(
    name,
    inNamespace(namespace),
    spec({
      source: { git: { commit, branch: 'main' } },
      trigger: { type: 'Webhook', provider: 'github', webhookRef: { name: 'main' }, deliveryId: name },
      ...(deploy ? { deploy } : {}),
    }),
  );

/** A push's bundle is made by Slipway alone (the gateway): the test acts as its identity. */
const asSlipway = () => slipwayApi(controllerKubeConfig());

beforeAll(async () => {
  kc = testKubeConfig();
  ns = await projectNamespace(kc, 'op-bundles');
  await createEnvironment(kc, ns.name, 'staging', {
    deployment: 'shop-web',
    engine: 'mysql',
    backupPathPrefix: 'dumps',
  });
  await clients(kc).slipway.create(
    'Webhook',
    webhook('main', inNamespace(ns.name), spec({ environmentRef: { name: 'staging' } })),
  );
  operator = await startOperator(kc, ns.name);
});

afterAll(async () => {
  await operator?.stop();
  await ns?.remove();
});

describe('operator: bundles', () => {
  it('builds a manual bundle: Built, an image, one owned build Job, and Events', async () => {
    await clients(kc).slipway.create('Bundle', bundle('manual-1', inNamespace(ns.name)));
    const b = await bundleInPhase(kc, ns.name, 'manual-1', 'Built');
    expect(readyReason(b)).toBe('True/Succeeded');
    expect(conditionOf(b, 'Built')).toBe('True/Succeeded');
    // By the digest its push container reported (here kwok's simulated one), never by tag alone.
    expect(b.status?.image).toMatch(
      new RegExp(`^registry\\.slipway\\.test:5000/${ns.name}/shop:manual-1@sha256:[a-f0-9]{64}$`),
    );
    const job = buildJobName(ns.name, 'manual-1');
    expect(b.status?.buildJob).toBe(job);
    // It ran in the build namespace, apart from the tenant's: the bundle says where.
    expect(b.status?.build).toEqual({ namespace: BUILD_NAMESPACE, job });
    expect(b.metadata.finalizers).toEqual(['slipway.dev/build']);
    expect(b.status?.observedGeneration).toBe(b.metadata.generation);
    const jobs = await jobsOf(kc, ns.name, 'manual-1');
    expect(jobs.map((j) => j.metadata?.name)).toEqual([job]);
    expect(jobs[0]!.metadata?.labels).toMatchObject({ 'slipway.dev/bundle-uid': b.metadata.uid });
    const reasons = await waitFor('build events', async () => {
      const events = await eventsFor(kc, ns.name, 'manual-1');
      return events.includes('BuildStarted') && events.includes('Built') ? events : undefined;
    });
    expect(reasons).toEqual(expect.arrayContaining(['BuildStarted', 'Built', 'Ready']));
  });

  it("caches what it reads of a Job (metadata, status), not its spec or the API server's bookkeeping; lets go of a finished bundle's Job and its ended pod", async () => {
    const { buildJobs, buildPods, bundles } = operator.context.informers;
    const jobName = buildJobName(ns.name, 'cache-1');
    let cached: V1Job | undefined;
    buildJobs.onEvent((job, type) => {
      if (type !== 'delete' && job.metadata?.name === jobName) cached ??= job;
    });
    await clients(kc).slipway.create('Bundle', bundle('cache-1', inNamespace(ns.name)));
    await bundleInPhase(kc, ns.name, 'cache-1', 'Built');
    const [stored] = await jobsOf(kc, ns.name, 'cache-1');
    expect(stored!.spec?.template).toBeDefined();
    expect(stored!.metadata?.managedFields?.length).toBeGreaterThan(0);
    expect(Object.keys(cached!).sort()).toEqual(['apiVersion', 'kind', 'metadata', 'status']);
    expect(cached!.metadata?.managedFields).toBeUndefined();
    expect(cached!.metadata?.annotations).toEqual({ 'slipway.dev/bundle': 'cache-1' });
    const bundleCached = bundles.get(ns.name, 'cache-1')!;
    expect(bundleCached.status?.phase).toBe('Built');
    expect((bundleCached.metadata as { managedFields?: unknown }).managedFields).toBeUndefined();

    // Finished (a manual build, Ready): its Job stays on the cluster, labelled, and the API server
    // drops it from the operator's watch; its ended pod is not watched either.
    const finished = await waitFor("the finished bundle's Job to be labelled and let go", async () => {
      const [job] = await jobsOf(kc, ns.name, 'cache-1');
      const gone =
        !buildJobs.get(BUILD_NAMESPACE, jobName) &&
        !buildPods.byIndex(INDEX.bundle, `${ns.name}/cache-1`).length;
      return job?.metadata?.labels?.[LABEL_FINISHED] === 'true' && gone ? job : undefined;
    });
    expect(finished.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')).toBe(true);
    const jobPods = await clients(kc).core.listNamespacedPod({
      namespace: BUILD_NAMESPACE,
      labelSelector: `batch.kubernetes.io/job-name=${jobName}`,
    });
    // It left by its phase alone: no patch labelled it.
    expect(jobPods.items.map((p) => [p.status?.phase, p.metadata?.labels?.[LABEL_FINISHED]])).toEqual([
      ['Succeeded', undefined],
    ]);
  });

  it('deploys a webhook bundle: Deployed, the Deployment runs status.image, the environment says so', async () => {
    await asSlipway().create(
      'Bundle',
      webhookBundle(ns.name, 'hook-1', { environmentRef: { name: 'staging' }, backupBeforeDeploy: false }),
    );
    const b = await bundleInPhase(kc, ns.name, 'hook-1', 'Ready');
    expect(conditionOf(b, 'Deployed')).toBe('True/Succeeded');
    expect(readyReason(b)).toBe('True/Succeeded');
    const d = await get.deployment(kc, ns.name, 'shop-web');
    expect(d.spec?.template.spec?.containers[0]?.image).toBe(b.status?.image);
    expect(d.spec?.template.metadata?.annotations?.['slipway.dev/bundle']).toBe('hook-1');
    const env = await environmentReporting(kc, ns.name, 'staging', 'hook-1', 'Succeeded');
    expect(env.status?.currentBundle).toBe('hook-1');
    expect(env.status?.lastDeployment).toMatchObject({ bundle: 'hook-1', result: 'Succeeded' });
    expect(env.status?.lastDeployment?.finishedAt).toBeDefined();
    // Each step is announced once (`kubectl describe` shows no "x2"). Events of one reconcile can
    // share a millisecond, so their order is not asserted.
    const reasons = await waitFor('the Ready event', async () => {
      const r = await eventsFor(kc, ns.name, 'hook-1');
      return r.includes('Ready') ? r : undefined;
    });
    expect([...reasons].sort()).toEqual(['BuildStarted', 'Built', 'Deployed', 'Ready', 'RolloutStarted']);
  });

  it('a bundle for an environment not made yet waits, and deploys as soon as the Environment is made', async () => {
    await asSlipway().create(
      'Bundle',
      webhookBundle(ns.name, 'early-1', { environmentRef: { name: 'preview' }, backupBeforeDeploy: false }),
    );
    await waitFor('the bundle to wait for its environment', async () =>
      conditionOf(await get.bundle(kc, ns.name, 'early-1'), 'Deployed')?.endsWith('/EnvironmentNotFound'),
    );
    await createEnvironment(kc, ns.name, 'preview', { deployment: 'preview-web', engine: 'mysql' });
    // The Environment's event wakes it (the index of unfinished bundles by environment): a
    // waiting bundle's own next look is a minute away (REQUEUE_WAITING_MS).
    const b = await bundleInPhase(kc, ns.name, 'early-1', 'Ready', 20_000);
    expect(conditionOf(b, 'Deployed')).toBe('True/Succeeded');
    const d = await get.deployment(kc, ns.name, 'preview-web');
    expect(d.spec?.template.spec?.containers[0]?.image).toBe(b.status?.image);
  });

  it('with backupBeforeDeploy, the backup Job finishes before the Deployment changes', async () => {
    await asSlipway().create(
      'Bundle',
      webhookBundle(ns.name, 'hook-backup', {
        environmentRef: { name: 'staging' },
        backupBeforeDeploy: true,
      }),
    );
    const b = await bundleInPhase(kc, ns.name, 'hook-backup', 'Ready');
    expect(conditionOf(b, 'BackedUp')).toBe('True/Succeeded');
    expect(b.status?.backup).toEqual({
      job: 'hook-backup-backup',
      location: 'pvc://backups/dumps/staging/hook-backup.sql',
    });
    const backup = await clients(kc).batch.readNamespacedJob({
      name: 'hook-backup-backup',
      namespace: ns.name,
    });
    const d = await get.deployment(kc, ns.name, 'shop-web');
    const rolloutStarted = Date.parse(d.metadata?.annotations?.['slipway.dev/rollout-started-at'] ?? '');
    const backupDone = backup.status?.conditions?.find((c) => c.type === 'Complete' && c.status === 'True');
    expect(backupDone).toBeDefined();
    // Job times have second precision: the backup completed in or before the second the rollout began.
    expect(new Date(backupDone!.lastTransitionTime!).getTime()).toBeLessThanOrEqual(rolloutStarted);
    expect(d.spec?.template.spec?.containers[0]?.image).toBe(b.status?.image);
  });

  it('rolls an earlier bundle back out from a small object: no build, its image, the environment says so', async () => {
    const hook1 = await get.bundle(kc, ns.name, 'hook-1');
    // What a person applies (docs/operations.md shows it): eight lines, no build settings.
    await kubectl(
      ['apply', '-n', ns.name, '-f', '-'],
      [
        'apiVersion: slipway.dev/v1alpha1',
        'kind: Bundle',
        'metadata: { name: back-to-hook-1 }',
        'spec:',
        '  projectRef: { name: shop }',
        '  source: { bundleRef: { name: hook-1 } }',
        '  trigger: { type: Rollback }',
        '  deploy: { environmentRef: { name: staging } }',
      ].join('\n'),
    );
    const b = await bundleInPhase(kc, ns.name, 'back-to-hook-1', 'Ready');
    expect(conditionOf(b, 'Built')).toBe('True/Reused');
    expect(b.status?.image).toBe(hook1.status?.image);
    expect(await jobsOf(kc, ns.name, 'back-to-hook-1')).toEqual([]);
    const d = await get.deployment(kc, ns.name, 'shop-web');
    expect(d.spec?.template.spec?.containers[0]?.image).toBe(hook1.status?.image);
    const env = await environmentReporting(kc, ns.name, 'staging', 'back-to-hook-1', 'Succeeded');
    expect(env.status?.currentBundle).toBe('back-to-hook-1');
  });

  it('refuses a rollback without an environment, and one whose source does not exist', async () => {
    const invalid = await kubectl(
      ['apply', '-n', ns.name, '-f', '-'],
      'apiVersion: slipway.dev/v1alpha1\nkind: Bundle\nmetadata: { name: nowhere }\nspec: { projectRef: { name: shop }, source: { bundleRef: { name: hook-1 } }, trigger: { type: Rollback } }',
    ).catch((e: Error) => e.message);
    expect(invalid).toContain('a bundle that reuses another bundle (source.bundleRef) needs deploy');
    await clients(kc).slipway.create(
      'Bundle',
      rollbackBundle('back-to-nothing', 'no-such-bundle', 'staging', inNamespace(ns.name)),
    );
    const b = await bundleInPhase(kc, ns.name, 'back-to-nothing', 'Failed');
    expect(readyReason(b)).toBe('False/SourceBundleNotFound');
  });

  it('refuses a webhook bundle without build settings, with a reason that says what to do', async () => {
    const bundle = webhookBundle(ns.name, 'no-settings');
    const spec = bundle.spec as Record<string, unknown>;
    delete spec.baseSoftware;
    delete spec.directoryMap;
    await asSlipway().create('Bundle', bundle);
    const b = await bundleInPhase(kc, ns.name, 'no-settings', 'Failed');
    expect(readyReason(b)).toBe('False/MissingBuildSettings');
    expect(b.status?.conditions?.find((c) => c.type === 'Ready')?.message).toContain('manual bundle');
    expect(await jobsOf(kc, ns.name, 'no-settings')).toEqual([]);
  });

  it('publishes the webhook URL on the Webhook once the project has one', async () => {
    const hook = await waitFor('webhook ready', async () => {
      const w = await clients(kc).slipway.get<{ status?: { url?: string; conditions?: [] } }>(
        'Webhook',
        ns.name,
        'main',
      );
      return w.status?.url ? w : undefined;
    });
    const p = await get.project(kc, ns.name, 'shop');
    expect(hook.status?.url).toBe(p.status?.webhook?.url);
  });
});
