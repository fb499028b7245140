// Beside a GitOps tool: Argo CD or Flux applies the Deployment by server-side apply as its own
// field manager, and Slipway's rollout applies, as field manager `slipway`, only the image and
// the labels and annotations it reads. Each keeps its own fields (docs/gitops.md).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1Deployment,
  type V1ManagedFieldsEntry,
} from '@kubernetes/client-node';
import { LABEL_BUNDLE, LABEL_SHARD } from '../../../crds/labels.ts';
import type { Operator } from '../../../operator/operator.ts';
import { bundle, deployTo, inNamespace, spec } from '../../support/builders.ts';
import { testKubeConfig } from '../../support/cluster.ts';
import {
  applyDeployment,
  bundleInPhase,
  clients,
  createEnvironment,
  get,
  projectNamespace,
  startOperator,
  webDeployment,
  type TestNamespace,
} from './support.ts';

let kc: KubeConfig;
let ns: TestNamespace;
let operator: Operator;
/** The field manager Argo CD applies with (Flux's is kustomize-controller). */
const GITOPS = 'argocd-controller';
const DEPLOYMENT = 'site-web';

const deployment = () => get.deployment(kc, ns.name, DEPLOYMENT);
const imageOf = (d: V1Deployment) => d.spec?.template.spec?.containers[0]?.image;
/** The fields one manager holds, as `kubectl get -o yaml --show-managed-fields` shows them. */
const fieldsOf = (d: V1Deployment, manager: string): V1ManagedFieldsEntry | undefined =>
  d.metadata?.managedFields?.find((f) => f.manager === manager && f.operation === 'Apply');
const WEB = 'k:{"name":"web"}';
type Fields = Record<string, Record<string, unknown>>;
const containerFields = (entry: V1ManagedFieldsEntry | undefined) =>
  ((entry?.fieldsV1 as Fields | undefined)?.['f:spec']?.['f:template'] as Fields | undefined)?.['f:spec']?.[
    'f:containers'
  ] as Record<string, Record<string, unknown>> | undefined;

/** The manifest in git: the Deployment with everything but the image, which Slipway sets. */
const manifestWithoutImage = (replicas: number): V1Deployment => {
  const m = webDeployment(ns.name, DEPLOYMENT, { replicas });
  const container = m.spec!.template.spec!.containers[0]!;
  container.env = [{ name: 'FEATURE', value: 'on' }];
  delete (container as { image?: string }).image;
  return m;
};

/** A release of a commit of its own (so never a reuse of the last image). */
const release = async (name: string, commit: string, environment = 'production') => {
  const source = { git: { commit: commit.repeat(40), branch: 'main' } };
  await clients(kc).slipway.create(
    'Bundle',
    bundle(name, inNamespace(ns.name), spec({ source, deploy: deployTo(environment) })),
  );
  return bundleInPhase(kc, ns.name, name, 'Ready');
};

beforeAll(async () => {
  kc = testKubeConfig();
  ns = await projectNamespace(kc, 'op-gitops');
  await createEnvironment(kc, ns.name, 'production', {
    deployment: DEPLOYMENT,
    engine: 'postgresql',
    deploymentManager: GITOPS,
  });
  operator = await startOperator(kc, ns.name);
});

afterAll(async () => {
  await operator?.stop();
  await ns?.remove();
});

describe('beside a GitOps tool', () => {
  it('the rollout applies only the image and its own labels and annotations, as field manager slipway', async () => {
    const b = await release('release-1', 'c');
    const d = await deployment();
    expect(imageOf(d)).toBe(b.status?.image);
    const slipway = fieldsOf(d, 'slipway');
    expect(containerFields(slipway)?.[WEB]).toEqual({ '.': {}, 'f:image': {}, 'f:name': {} });
    const slipwaySpec = (slipway?.fieldsV1 as Fields)['f:spec']!;
    expect(Object.keys(slipwaySpec)).toEqual(['f:template']);
    // The tool keeps all it applied but the image: replicas, selector, the container's name.
    const gitops = fieldsOf(d, GITOPS);
    expect(containerFields(gitops)?.[WEB]).not.toHaveProperty('f:image');
    expect((gitops?.fieldsV1 as Fields)['f:spec']).toHaveProperty('f:replicas');
    expect((gitops?.fieldsV1 as Fields)['f:spec']).toHaveProperty('f:selector');
  });

  it("a GitOps tool applying the Deployment without the image leaves Slipway's image in place", async () => {
    const before = imageOf(await deployment());
    const applied = await applyDeployment(kc, manifestWithoutImage(2), GITOPS);
    expect(imageOf(applied)).toBe(before);
    expect(applied.spec?.replicas).toBe(2);
    expect(applied.spec?.template.spec?.containers[0]?.env).toEqual([{ name: 'FEATURE', value: 'on' }]);
    // The next rollout changes the image alone: the tool's replicas and variables stay.
    const next = await release('release-2', 'd');
    const after = await deployment();
    expect(imageOf(after)).toBe(next.status?.image);
    expect(imageOf(after)).not.toBe(before);
    expect(after.spec?.replicas).toBe(2);
    expect(after.spec?.template.spec?.containers[0]?.env).toEqual([{ name: 'FEATURE', value: 'on' }]);
  });

  it("a tool that still applies an image is told it is Slipway's: 409, naming the field and its manager", async () => {
    const withImage = webDeployment(ns.name, DEPLOYMENT, { replicas: 2 });
    const conflict = await applyDeployment(kc, withImage, GITOPS).then(
      () => undefined,
      (err: { code?: number; body?: string }) => err,
    );
    expect(conflict?.code).toBe(409);
    const status = JSON.parse(String(conflict?.body)) as { details: { causes: unknown[] } };
    expect(status.details.causes).toEqual([
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "slipway"',
        field: '.spec.template.spec.containers[name="web"].image',
      },
    ]);
  });

  it('a Deployment an older Slipway rolled out (a merge patch under another manager, a shard label): the next rollout takes the image and drops the label', async () => {
    await createEnvironment(kc, ns.name, 'legacy', { deployment: 'legacy-web', engine: 'postgresql' });
    // What the rollout of an older Slipway left: a strategic merge patch without a field manager.
    await clients(kc).apps.patchNamespacedDeployment(
      {
        name: 'legacy-web',
        namespace: ns.name,
        body: { spec: { template: { metadata: { labels: { [LABEL_SHARD]: 'old-shard' } } } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    const b = await release('legacy-1', 'e', 'legacy');
    const d = await get.deployment(kc, ns.name, 'legacy-web');
    expect(imageOf(d)).toBe(b.status?.image);
    expect(d.spec?.template.metadata?.labels).not.toHaveProperty(LABEL_SHARD);
    expect(d.spec?.template.metadata?.labels?.[LABEL_BUNDLE]).toBe('legacy-1');
  });
});
