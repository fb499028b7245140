// The rollout patch: puts a bundle's image into its environment's Deployment. A strategic merge
// patch of the one container, with the resourceVersion the decision was made on as a
// precondition (409 if the Deployment changed since), and the annotations and label that say
// which bundle the Deployment and its new pods run.
import { PatchStrategy, setHeaderOptions, type AppsV1Api, type V1Deployment } from '@kubernetes/client-node';
import type { BundleObject } from '../../crds/index.ts';
import { ANNOTATION_BUNDLE, LABEL_BUNDLE, LABEL_SHARD, labelValue } from '../../crds/labels.ts';
import { ANNOTATION_ROLLOUT_STARTED } from '../names.ts';

const strategicMerge = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

export interface Rollout {
  bundle: BundleObject;
  /** The Deployment as the decision read it. */
  deployment: V1Deployment;
  container: string;
  image: string;
  startedAt: Date;
}

/** The patch body (a partial Deployment: strategic merge keeps every other container and field). */
export function rolloutPatch(rollout: Rollout): object {
  const { bundle, deployment } = rollout;
  return {
    metadata: {
      // A precondition: the patch fails with 409 if the Deployment changed since we read it.
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
          // The shard's label, or none (null removes one left by the shard that had the project before).
          labels: {
            [LABEL_BUNDLE]: labelValue(bundle.metadata.name),
            [LABEL_SHARD]: bundle.metadata.labels?.[LABEL_SHARD] ?? null,
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
    },
    strategicMerge,
  );
}
