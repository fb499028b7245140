// Argo CD's health check of every Slipway kind (deploy/argocd/argocd-cm-health.yaml), run by
// gopher-lua's Lua 5.1 as Argo CD runs it, against real objects the operator wrote on a real
// API server: Healthy, Progressing, Degraded and Suspended as Argo CD defines them. Build pods are
// held off every node here, so the test decides when a build ends.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import { kinds, type Condition } from '../../../crds/index.ts';
import { slipwayApi, type KindName } from '../../../lib/kube.ts';
import type { Operator } from '../../../operator/operator.ts';
import { argoHealth, healthScripts, type ArgoHealth } from '../../support/argocd-health.ts';
import * as build from '../../support/builders.ts';
import { controllerKubeConfig, testKubeConfig, waitFor } from '../../support/cluster.ts';
import {
  clients,
  createEnvironment,
  finishBuildPod,
  heldOperatorNamespace,
  waitForBuildJob,
  type TestNamespace,
} from './support.ts';

let kc: KubeConfig;
let ns: TestNamespace;
let operator: Operator;
const { inNamespace, spec } = build;
const at = () => inNamespace(ns.name);
const create = (kind: KindName, object: { metadata: { name: string } }) =>
  clients(kc).slipway.create(kind, object);
/** As Slipway (the gateway makes Previews). */
const asSlipway = () => slipwayApi(controllerKubeConfig());

interface Written {
  apiVersion: string;
  kind: string;
  metadata: { generation?: number };
  status?: { observedGeneration?: number; phase?: string; conditions?: Condition[] };
}

/**
 * Waits until the operator has written Ready with `reason` for this generation, then asks the
 * health check: Argo CD's verdict on what a user sees, with Slipway's own message.
 */
async function healthAt(
  kind: KindName,
  name: string,
  reason: string,
): Promise<ArgoHealth & { ready: Condition }> {
  const object = await waitFor(`${kind} ${name} to say ${reason}`, async () => {
    const o = await clients(kc).slipway.get<Written>(kind, ns.name, name);
    const ready = o.status?.conditions?.find((c) => c.type === 'Ready');
    const current =
      o.status?.observedGeneration === undefined || o.status.observedGeneration === o.metadata.generation;
    if (ready?.reason === reason && current) return o;
    // What it says instead, for the timeout's message.
    throw new Error(`Ready is ${ready?.status}/${ready?.reason}: ${ready?.message}`);
  });
  const ready = object.status!.conditions!.find((c) => c.type === 'Ready')!;
  return { ...argoHealth(object), ready };
}

beforeAll(async () => {
  kc = testKubeConfig();
  ({ ns, operator } = await heldOperatorNamespace(kc, 'op-argocd', {}));
  await clients(kc).slipway.patch('Project', ns.name, 'shop', {
    spec: { previews: { environmentRef: { name: 'staging' }, host: 'pr-{number}.test', maxPreviews: 1 } },
  });
  await createEnvironment(kc, ns.name, 'staging', { deployment: 'shop-web', engine: 'mysql' });
});

afterAll(async () => {
  await operator?.stop();
  await ns?.remove();
});

describe("Argo CD's health of each kind", () => {
  it('the argocd-cm patch gives every kind the one script', () => {
    const scripts = healthScripts();
    expect(Object.keys(scripts).sort()).toEqual(
      kinds.map((k) => `resource.customizations.health.slipway.dev_${k.kind}`).sort(),
    );
    expect(new Set(Object.values(scripts)).size).toBe(1);
  });

  it('Project: Healthy when its webhook is ready, Suspended while frozen, Degraded without its Secret', async () => {
    expect(await healthAt('Project', 'shop', 'WebhookReady')).toMatchObject({ status: 'Healthy' });
    await clients(kc).slipway.patch('Project', ns.name, 'shop', { spec: { suspend: true } });
    expect(argoHealth(await clients(kc).slipway.get('Project', ns.name, 'shop'))).toEqual({
      status: 'Suspended',
      message: 'Project shop is suspended (spec.suspend)',
    });
    await clients(kc).slipway.patch('Project', ns.name, 'shop', { spec: { suspend: false } });
    await create(
      'Project',
      build.project(
        'blog',
        at(),
        spec({ slug: `blog-${ns.name}`, webhookSecretRef: { name: 'no-such-secret', key: 'token' } }),
      ),
    );
    const blog = await healthAt('Project', 'blog', 'SecretNotFound');
    expect(blog).toMatchObject({ status: 'Degraded', message: blog.ready.message });
    expect(blog.message).toContain('no-such-secret');
  });

  it('Environment and Webhook: Healthy when valid, Degraded when what they name is missing, Suspended while frozen', async () => {
    expect(await healthAt('Environment', 'staging', 'Valid')).toMatchObject({ status: 'Healthy' });
    await create(
      'Environment',
      build.environment(
        'lost',
        at(),
        spec({
          deploymentRef: { name: 'no-such-deployment' },
          database: { engine: 'mysql', secretRef: { name: 'db' } },
        }),
      ),
    );
    expect(await healthAt('Environment', 'lost', 'DeploymentNotFound')).toMatchObject({ status: 'Degraded' });
    await createEnvironment(kc, ns.name, 'production', { deployment: 'shop-prod', engine: 'mysql' });
    await clients(kc).slipway.patch('Environment', ns.name, 'production', { spec: { suspend: true } });
    expect(argoHealth(await clients(kc).slipway.get('Environment', ns.name, 'production'))).toMatchObject({
      status: 'Suspended',
    });
    await create('Webhook', build.webhook('main', at(), spec({ environmentRef: { name: 'staging' } })));
    expect(await healthAt('Webhook', 'main', 'Valid')).toMatchObject({ status: 'Healthy' });
    await create('Webhook', build.webhook('astray', at(), spec({ environmentRef: { name: 'nowhere' } })));
    expect(await healthAt('Webhook', 'astray', 'EnvironmentNotFound')).toMatchObject({ status: 'Degraded' });
  });

  it('Bundle: Healthy once built, Suspended for a frozen environment, Degraded when refused or stuck, Progressing while queued', async () => {
    await create('Bundle', build.bundle('built', at()));
    await waitForBuildJob(kc, ns.name, 'built');
    await finishBuildPod(kc, ns.name, 'built', 'Succeeded');
    expect(await healthAt('Bundle', 'built', 'Succeeded')).toMatchObject({ status: 'Healthy' });

    const source = { git: { commit: 'e'.repeat(40), branch: 'main' } };
    await create(
      'Bundle',
      build.bundle('frozen', at(), spec({ source, deploy: build.deployTo('production') })),
    );
    await waitForBuildJob(kc, ns.name, 'frozen');
    await finishBuildPod(kc, ns.name, 'frozen', 'Succeeded');
    const frozen = await healthAt('Bundle', 'frozen', 'Suspended');
    expect(frozen).toMatchObject({ status: 'Suspended', message: frozen.ready.message });

    await create('Bundle', build.rollbackBundle('back-to-nothing', 'no-such-bundle', 'staging', at()));
    expect(await healthAt('Bundle', 'back-to-nothing', 'SourceBundleNotFound')).toMatchObject({
      status: 'Degraded',
    });

    // A build no node takes is Degraded (it needs someone); one waiting its turn is Progressing.
    await clients(kc).slipway.patch('Project', ns.name, 'shop', {
      metadata: { annotations: { 'slipway.dev/build-concurrency': '1' } },
    });
    const commit = (c: string) => ({ source: { git: { commit: c.repeat(40), branch: 'main' } } });
    await create('Bundle', build.bundle('unschedulable', at(), spec(commit('f'))));
    const stuck = await healthAt('Bundle', 'unschedulable', 'Unschedulable');
    expect(stuck).toMatchObject({ status: 'Degraded', message: stuck.ready.message });
    expect(stuck.message).toContain('cannot be scheduled');
    await create('Bundle', build.bundle('queued', at(), spec(commit('9'))));
    expect(await healthAt('Bundle', 'queued', 'Queued')).toMatchObject({ status: 'Progressing' });
  });

  it('Preview: Progressing while it builds, Suspended while it waits for a free slot', async () => {
    await asSlipway().create('Preview', build.preview('shop-pr-1', at(), spec({ number: 1 })));
    expect(await healthAt('Preview', 'shop-pr-1', 'Building')).toMatchObject({ status: 'Progressing' });
    await asSlipway().create('Preview', build.preview('shop-pr-2', at(), spec({ number: 2 })));
    const waiting = await healthAt('Preview', 'shop-pr-2', 'MaxPreviewsReached');
    expect(waiting).toMatchObject({ status: 'Suspended', message: waiting.ready.message });
  });

  it('Promotion: Degraded when the bundle it names does not exist (one waiting on its gates is Suspended: promotions.test.ts)', async () => {
    await asSlipway().create(
      'Promotion',
      build.promotion('of-nothing', at(), spec({ bundleRef: { name: 'nope' } })),
    );
    const failed = await healthAt('Promotion', 'of-nothing', 'BundleNotFound');
    expect(failed).toMatchObject({ status: 'Degraded', message: 'bundle nope does not exist' });
  });

  it('StatusPage, StatusComponent, StatusNotice: Healthy once published, Degraded when their references are wrong', async () => {
    await create('StatusPage', build.statusPage('status', at()));
    expect(await healthAt('StatusPage', 'status', 'Published')).toMatchObject({ status: 'Healthy' });
    await create('StatusPage', build.statusPage('status-copy', at()));
    expect(await healthAt('StatusPage', 'status-copy', 'DuplicateStatusPage')).toMatchObject({
      status: 'Degraded',
    });

    await create('StatusComponent', build.statusComponent('api', at()));
    expect(await healthAt('StatusComponent', 'api', 'Published')).toMatchObject({ status: 'Healthy' });
    await create(
      'StatusComponent',
      build.statusComponent('orphan', at(), spec({ parentRef: { name: 'nowhere' } })),
    );
    expect(await healthAt('StatusComponent', 'orphan', 'ParentNotFound')).toMatchObject({
      status: 'Degraded',
    });

    await create(
      'StatusNotice',
      build.statusNotice('outage', at(), spec({ componentRefs: [{ name: 'api' }] })),
    );
    expect(await healthAt('StatusNotice', 'outage', 'Published')).toMatchObject({ status: 'Healthy' });
    await create(
      'StatusNotice',
      build.statusNotice('astray', at(), spec({ componentRefs: [{ name: 'nowhere' }] })),
    );
    expect(await healthAt('StatusNotice', 'astray', 'ComponentNotFound')).toMatchObject({
      status: 'Degraded',
    });
  });
});
