// The rollout: puts a bundle's image into its environment's Deployment by server-side apply,
// field manager `slipway`, of only what Slipway owns there: the one container's image, and the
// annotations and labels that say which bundle the Deployment and its new pods run. Every other
// field stays its author's (Argo CD, Flux, Helm, kubectl), so a GitOps tool that leaves the image
// to Slipway (docs/gitops.md) neither reverts it nor shows it out of sync. The resourceVersion the
// decision was made on is a precondition: 409 if the Deployment changed since.
import { PatchStrategy, setHeaderOptions, type AppsV1Api, type V1Deployment } from '@kubernetes/client-node';
import type { BundleObject } from '../../crds/index.ts';
import { ANNOTATION_BUNDLE, LABEL_BUNDLE, LABEL_SHARD, labelValue } from '../../crds/labels.ts';
import { FIELD_MANAGER } from '../../lib/kube.ts';
import { ANNOTATION_ROLLOUT_STARTED } from '../names.ts';

const apply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);

export interface Rollout {
  bundle: BundleObject;
  /** The Deployment as the decision read it. */
  deployment: V1Deployment;
  container: string;
  image: string;
  startedAt: Date;
}

/**
 * The apply configuration: the fields Slipway owns, and nothing else. A field Slipway applied
 * before and leaves out now (a shard's label after the project moved to the unsharded operator)
 * is removed by the API server, unless another manager holds it too.
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
        spec: { containers: [{ name: rollout.container, image: rollout.image }] },
      },
    },
  };
}

export async function startRollout(apps: AppsV1Api, rollout: Rollout): Promise<void> {
  await apps.patchNamespacedDeployment(
    {
      name: rollout.deployment.metadata!.name!,
      namespace: rollout.bundle.metadata.namespace,
      body: rolloutPatch(rollout),
      fieldManager: FIELD_MANAGER,
      // The image is Slipway's to set: take it from whoever applied it before (the manifest's author).
      force: true,
    },
    apply,
  );
}
