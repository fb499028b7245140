// The rollout: puts a bundle's image into its environment's Deployment by server-side apply,
// field manager `slipway`, of only what Slipway owns there: the one container's image, and the
// annotations and labels that say which bundle the Deployment and its new pods run. Every other
// field stays its author's (Argo CD, Flux, Helm, kubectl), so a GitOps tool that leaves the image
// to Slipway (docs/gitops.md) neither reverts it nor shows it out of sync. The resourceVersion the
// decision was made on is a precondition: 409 if the Deployment changed since.
import { PatchStrategy, setHeaderOptions, type AppsV1Api, type V1Deployment } from '@kubernetes/client-node';
import type { BundleObject } from '../../crds/index.ts';
import { ANNOTATION_BUNDLE, LABEL_BUNDLE, LABEL_SHARD, labelValue } from '../../crds/labels.ts';
import { FIELD_MANAGER, apiStatus } from '../../lib/kube.ts';
import { ANNOTATION_ROLLOUT_STARTED } from '../names.ts';

const apply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

export interface Rollout {
  bundle: BundleObject;
  /** The Deployment as the decision read it. */
  deployment: V1Deployment;
  container: string;
  image: string;
  startedAt: Date;
  /** Where Slipway's builds push: other containers running an image from there are Slipway's too. */
  registry: string;
}

/**
 * The containers the apply names: the environment's, with the new image, and every other one
 * that runs an image Slipway built (an environment whose container changed), with its image as
 * it is. Left out, a container whose image Slipway alone owns would lose its image (a 422).
 */
function appliedContainers(rollout: Rollout): Array<{ name: string; image: string }> {
  const others = (rollout.deployment.spec?.template.spec?.containers ?? []).filter(
    (c) => c.name !== rollout.container && c.image?.startsWith(`${rollout.registry}/`),
  );
  return [
    { name: rollout.container, image: rollout.image },
    ...others.map((c) => ({ name: c.name, image: c.image! })),
  ];
}

/**
 * The apply configuration: the fields Slipway owns, and nothing else. A field Slipway applied
 * before and leaves out now (a shard's label after the project moved to the unsharded operator)
 * is removed by the API server, unless another manager holds it too (startRollout removes it then).
 */
export function rolloutPatch(rollout: Rollout): object {
  const { bundle, deployment } = rollout;
  const shard = bundle.metadata.labels?.[LABEL_SHARD];
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: deployment.metadata!.name,
      namespace: bundle.metadata.namespace,
      // A precondition: the apply fails with 409 if the Deployment changed since we read it.
      resourceVersion: deployment.metadata!.resourceVersion,
      annotations: {
        [ANNOTATION_BUNDLE]: bundle.metadata.name,
        [ANNOTATION_ROLLOUT_STARTED]: rollout.startedAt.toISOString(),
      },
    },
    spec: {
      template: {
        // The label lets the operator watch this rollout's pods (and only them).
        metadata: {
          annotations: { [ANNOTATION_BUNDLE]: bundle.metadata.name },
          labels: {
            [LABEL_BUNDLE]: labelValue(bundle.metadata.name),
            ...(shard ? { [LABEL_SHARD]: shard } : {}),
          },
        },
        spec: { containers: appliedContainers(rollout) },
      },
    },
  };
}

export async function startRollout(apps: AppsV1Api, rollout: Rollout): Promise<void> {
  const name = rollout.deployment.metadata!.name!;
  const namespace = rollout.bundle.metadata.namespace;
  await apps.patchNamespacedDeployment(
    {
      name,
      namespace,
      body: rolloutPatch(rollout),
      fieldManager: FIELD_MANAGER,
      // The image is Slipway's to set: take it from whoever applied it before (the manifest's author).
      force: true,
    },
    apply,
  );
  // A shard's label that a rollout of an older Slipway set (a strategic merge patch under another
  // manager) is not removed by leaving it out: remove it, so the unsharded operator sees the pods.
  if (
    !rollout.bundle.metadata.labels?.[LABEL_SHARD] &&
    rollout.deployment.spec?.template.metadata?.labels?.[LABEL_SHARD]
  )
    await apps
      .patchNamespacedDeployment(
        {
          name,
          namespace,
          body: [{ op: 'remove', path: `/spec/template/metadata/labels/${LABEL_SHARD.replace('/', '~1')}` }],
          fieldManager: FIELD_MANAGER,
        },
        jsonPatch,
      )
      .catch((err: unknown) => {
        // Gone already (422: no such path): what was wanted.
        if (apiStatus(err) !== 422) throw err;
      });
}
