// Kubernetes objects of the operator's decision tests (conditions, Jobs, Deployments); Slipway's
// own kinds come from test/support/builders.ts, shared by every tier.
import type { V1Deployment, V1Job } from '@kubernetes/client-node';
import type { BundleObject, Condition } from '../../../crds/index.ts';
import { ANNOTATION_BUNDLE, LABEL_BUNDLE_UID } from '../../../crds/labels.ts';
import { DEFAULT_BUILD_NAMESPACE as BUILD_NAMESPACE } from '../../../rules/build-namespace.ts';
import { ANNOTATION_ROLLOUT_STARTED, buildJobName } from '../../../operator/names.ts';
import { NAMESPACE as NS, at } from '../../support/builders.ts';

export function condition(
  type: string,
  status: Condition['status'],
  reason: string,
  message = '',
): Condition {
  return { type, status, reason, message, lastTransitionTime: at(0), observedGeneration: 1 };
}

/** Status of a bundle that finished in `phase` (Ready, Failed, Superseded) or built without deploy. */
export function finished(phase: 'Ready' | 'Failed' | 'Superseded' | 'Built'): BundleObject['status'] {
  const ready = phase === 'Ready' || phase === 'Built';
  return {
    phase,
    observedGeneration: 1,
    conditions: [condition('Ready', ready ? 'True' : 'False', ready ? 'Succeeded' : phase)],
  };
}

/**
 * A Job as the operator makes it for bundle `<bundle>` of `job('<bundle>-build' | '<bundle>-backup')`,
 * with uid `uid-<bundle>` as test/support/builders.ts's stored() gives it, unless `owner` says
 * otherwise: a backup Job in the bundle's namespace, controlled by it; a build Job in the build
 * namespace, under buildJobName, naming the bundle's uid in its label.
 */
export function job(
  name: string,
  state: 'running' | 'succeeded' | 'failed',
  created = at(1),
  owner: { name: string; uid: string } | null = ownerOf(name),
): V1Job {
  const conditions =
    state === 'running'
      ? []
      : state === 'succeeded'
        ? [{ type: 'Complete', status: 'True' }]
        : [
            {
              type: 'Failed',
              status: 'True',
              reason: 'BackoffLimitExceeded',
              message: 'Job has reached the specified backoff limit',
            },
          ];
  const build = name.match(/^(.*)-build$/);
  if (build)
    return {
      metadata: {
        name: buildJobName(NS, build[1]!),
        namespace: BUILD_NAMESPACE,
        creationTimestamp: created as unknown as Date,
        labels: owner ? { [LABEL_BUNDLE_UID]: owner.uid } : {},
      },
      status: { conditions: conditions as NonNullable<V1Job['status']>['conditions'] },
    };
  return {
    metadata: {
      name,
      namespace: NS,
      creationTimestamp: created as unknown as Date,
      ...(owner
        ? {
            ownerReferences: [
              { apiVersion: 'slipway.dev/v1alpha1', kind: 'Bundle', controller: true, ...owner },
            ],
          }
        : {}),
    },
    status: { conditions: conditions as NonNullable<V1Job['status']>['conditions'] },
  };
}

function ownerOf(jobName: string): { name: string; uid: string } {
  const bundle = jobName.replace(/-(build|backup)$/, '');
  return { name: bundle, uid: `uid-${bundle}` };
}

export interface DeploymentOptions {
  bundle?: string;
  startedAt?: string;
  generation?: number;
  observedGeneration?: number;
  replicas?: number;
  updated?: number;
  available?: number;
  total?: number;
  deadlineExceeded?: boolean;
  paused?: boolean;
  containers?: string[];
}

export function deployment(opts: DeploymentOptions = {}): V1Deployment {
  const replicas = opts.replicas ?? 1;
  const annotations: Record<string, string> = {};
  if (opts.bundle) annotations[ANNOTATION_BUNDLE] = opts.bundle;
  if (opts.startedAt) annotations[ANNOTATION_ROLLOUT_STARTED] = opts.startedAt;
  return {
    metadata: { name: 'shop-web', namespace: NS, generation: opts.generation ?? 2, annotations },
    spec: {
      replicas,
      ...(opts.paused ? { paused: true } : {}),
      selector: { matchLabels: { app: 'shop' } },
      template: {
        metadata: { annotations: opts.bundle ? { [ANNOTATION_BUNDLE]: opts.bundle } : {} },
        spec: { containers: (opts.containers ?? ['web']).map((name) => ({ name, image: 'old:1' })) },
      },
    },
    status: {
      observedGeneration: opts.observedGeneration ?? opts.generation ?? 2,
      replicas: opts.total ?? replicas,
      updatedReplicas: opts.updated ?? replicas,
      availableReplicas: opts.available ?? replicas,
      conditions: opts.deadlineExceeded
        ? [
            {
              type: 'Progressing',
              status: 'False',
              reason: 'ProgressDeadlineExceeded',
              message: 'ReplicaSet "x" has timed out progressing.',
            },
          ]
        : [{ type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }],
    },
  };
}
