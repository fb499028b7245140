// The operator run under exactly the permissions operator/rbac.ts lists (the ones the Helm
// chart grants its service account), by impersonating that service account: every step of
// the job still works, so the list is enough.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EventsV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Operator } from '../../../operator/operator.ts';
import { buildNamespaceRules, leaderElectionRules, operatorRules } from '../../../operator/rbac.ts';
import { bundle, webhook, inNamespace, spec } from '../../support/builders.ts';
import { controllerKubeConfig, testKubeConfig, waitFor } from '../../support/cluster.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import { serviceAccountWith, type ServiceAccountIdentity } from '../../support/rbac.ts';
import {
  environmentReporting,
  HELD,
  bundleInPhase,
  clients,
  createEnvironment,
  finishJobPod,
  get,
  jobsOf,
  projectNamespace,
  readyReason,
  startOperator,
  waitForJob,
  type TestNamespace,
  waitForBuildJob,
  finishBuildPod,
  BUILD_NAMESPACE,
} from './support.ts';

let admin: KubeConfig;
let ns: TestNamespace;
let operator: Operator;
let account: ServiceAccountIdentity | undefined;

beforeAll(async () => {
  admin = testKubeConfig();
  ns = await projectNamespace(admin, 'op-rbac', { bundleHistoryLimit: 1 });
  // As the chart binds them with watchNamespace set: Roles in the watched namespace.
  account = await serviceAccountWith(
    admin,
    ns.name,
    'slipway-operator',
    [
      { rules: operatorRules, namespace: ns.name },
      { rules: leaderElectionRules, namespace: ns.name, suffix: '-leader-election' },
      { rules: buildNamespaceRules, namespace: BUILD_NAMESPACE, suffix: '-builds' },
    ],
    { writer: true },
  );
  await createEnvironment(admin, ns.name, 'staging', { deployment: 'shop-web', engine: 'postgresql' });
  await clients(admin).slipway.create(
    'Webhook',
    webhook(
      'main',
      inNamespace(ns.name),
      spec({ environmentRef: { name: 'staging' }, backupBeforeDeploy: true }),
    ),
  );

  operator = await startOperator(account.kubeConfig, ns.name, {
    SLIPWAY_LEADER_ELECTION: 'true',
    SLIPWAY_LEASE_DURATION_SECONDS: '3',
    SLIPWAY_JOB_NODE_SELECTOR: HELD,
  });
});

afterAll(async () => {
  await operator?.stop();
  await account?.remove();
  await ns?.remove();
});

describe('operator under its service account', () => {
  it('does the whole job with only the listed permissions', async () => {
    const { slipway } = clients(admin);
    const kc = admin;
    // Project: generated Secret and URL; environment and webhook checked.
    await waitFor(
      'project Ready',
      async () => readyReason(await get.project(kc, ns.name, 'shop')) === 'True/WebhookReady',
    );
    await waitFor(
      'environment Ready',
      async () => readyReason(await get.environment(kc, ns.name, 'staging')) === 'True/Valid',
    );
    await waitFor(
      'webhook Ready',
      async () => readyReason(await slipway.get('Webhook', ns.name, 'main')) === 'True/Valid',
    );

    // A manual build.
    await slipway.create('Bundle', bundle('m1', inNamespace(ns.name)));
    await waitForBuildJob(kc, ns.name, 'm1');
    await finishBuildPod(kc, ns.name, 'm1', 'Succeeded');
    await bundleInPhase(kc, ns.name, 'm1', 'Built');

    // Two deploy bundles: the older is superseded and its running build Job deleted.
    const deploy = { environmentRef: { name: 'staging' }, backupBeforeDeploy: true };
    const fromWebhook = (name: string) =>
      bundle(
        name,
        inNamespace(ns.name),
        spec({
          deploy,
          trigger: { type: 'Webhook', provider: 'gitlab', webhookRef: { name: 'main' } },
        }),
      );
    await slipwayApi(controllerKubeConfig()).create('Bundle', fromWebhook('d1'));
    await waitForBuildJob(kc, ns.name, 'd1');
    await slipwayApi(controllerKubeConfig()).create('Bundle', fromWebhook('d2'));
    await bundleInPhase(kc, ns.name, 'd1', 'Superseded');
    await waitFor('d1 build Job deleted', async () => (await jobsOf(kc, ns.name, 'd1')).length === 0);

    // Build, backup, rollout.
    await waitForBuildJob(kc, ns.name, 'd2');
    await finishBuildPod(kc, ns.name, 'd2', 'Succeeded');
    await waitForJob(kc, ns.name, 'd2-backup');
    await finishJobPod(kc, ns.name, 'd2-backup', 'Succeeded');
    const d2 = await bundleInPhase(kc, ns.name, 'd2', 'Ready');
    const d = await get.deployment(kc, ns.name, 'shop-web');
    expect(d.spec?.template.spec?.containers[0]?.image).toBe(d2.status?.image);
    expect(
      (await environmentReporting(kc, ns.name, 'staging', 'd2', 'Succeeded')).status?.currentBundle,
    ).toBe('d2');

    // History limit 1: d1 is pruned; d2 (deployed) and m1 (the newest manual bundle) stay.
    let names: string[] = [];
    await waitFor('pruning', async () => {
      names = (await slipway.list<{ metadata: { name: string } }>('Bundle', ns.name))
        .map((b) => b.metadata.name)
        .sort();
      return names.join() === 'd2,m1';
    }).catch((err: Error) => {
      throw new Error(`${err.message}; bundles left: ${names.join()}`);
    });

    // Events were written (the recorder drops failures silently, so check they exist).
    const events = await admin.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns.name });
    const reasons = events.items
      .filter((e) => e.reportingController === 'slipway.dev/operator')
      .map((e) => e.reason);
    expect(reasons).toEqual(
      expect.arrayContaining(['BuildStarted', 'BackupStarted', 'RolloutStarted', 'Deployed', 'Superseded']),
    );

    // Leader election ran under the same identity.
    expect(operator.isLeader()).toBe(true);
  });
});
