// Small object builders for the operator's decision tests: valid by default, changed where a
// test needs something else.
import type { V1Deployment, V1Job } from '@kubernetes/client-node';
import type {
  BundleObject,
  Condition,
  EnvironmentObject,
  ProjectObject,
  WebhookObject,
} from '../../../crds/index.ts';
import { ANNOTATION_BUNDLE } from '../../../crds/labels.ts';
import { ANNOTATION_ROLLOUT_STARTED } from '../../../operator/names.ts';

export const NS = 'team';
export const T0 = new Date('2026-03-01T10:00:00.000Z');
export const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000).toISOString();

export function project(
  name = 'shop',
  overrides: Partial<ProjectObject['spec']> = {},
  created = at(0),
): ProjectObject {
  return {
    apiVersion: 'slipway.dev/v1alpha1',
    kind: 'Project',
    metadata: { name, namespace: NS, uid: `uid-${name}`, generation: 1, creationTimestamp: created },
    spec: { bundleHistoryLimit: 20, repository: { url: 'https://git.example.com/shop.git' }, ...overrides },
  };
}

export function environment(
  name = 'staging',
  spec: Partial<EnvironmentObject['spec']> = {},
  status?: EnvironmentObject['status'],
): EnvironmentObject {
  return {
    apiVersion: 'slipway.dev/v1alpha1',
    kind: 'Environment',
    metadata: { name, namespace: NS, uid: `uid-${name}`, generation: 1, creationTimestamp: at(0) },
    spec: { projectRef: { name: 'shop' }, deploymentRef: { name: 'shop-web' }, ...spec },
    ...(status ? { status } : {}),
  };
}

export const database = {
  database: { engine: 'mysql' as const, secretRef: { name: 'db' } },
  backupStorage: { persistentVolumeClaim: { claimName: 'backups' }, pathPrefix: 'shop' },
};

export function webhook(name = 'main', spec: Partial<WebhookObject['spec']> = {}): WebhookObject {
  return {
    apiVersion: 'slipway.dev/v1alpha1',
    kind: 'Webhook',
    metadata: { name, namespace: NS, uid: `uid-${name}`, generation: 1, creationTimestamp: at(0) },
    spec: { projectRef: { name: 'shop' }, branch: 'main', matchMode: 'Exact', ...spec },
  };
}

export interface BundleOptions {
  created?: number;
  deploy?: { environmentRef: { name: string }; backupBeforeDeploy: boolean };
  spec?: Partial<BundleObject['spec']>;
  status?: BundleObject['status'];
}

export function bundle(name: string, opts: BundleOptions = {}): BundleObject {
  return {
    apiVersion: 'slipway.dev/v1alpha1',
    kind: 'Bundle',
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      generation: 1,
      creationTimestamp: at(opts.created ?? 0),
    },
    spec: {
      projectRef: { name: 'shop' },
      source: { git: { commit: 'a'.repeat(40), branch: 'main' } },
      baseSoftware: { image: 'php:8.3-fpm' },
      directoryMap: { web: 'web', config: 'config' },
      trigger: { type: 'Manual' },
      ...(opts.deploy ? { deploy: opts.deploy } : {}),
      ...opts.spec,
    },
    ...(opts.status ? { status: opts.status } : {}),
  };
}

export const deployTo = (env = 'staging', backupBeforeDeploy = false) => ({
  environmentRef: { name: env },
  backupBeforeDeploy,
});

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

export function job(name: string, state: 'running' | 'succeeded' | 'failed', created = at(1)): V1Job {
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
  return {
    metadata: { name, namespace: NS, creationTimestamp: created as unknown as Date },
    status: { conditions: conditions as NonNullable<V1Job['status']>['conditions'] },
  };
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
