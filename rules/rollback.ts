// A rollback is a new Bundle that builds nothing: source.bundleRef names an earlier bundle of the
// project, whose image it rolls out again. Being the newest bundle, it wins over older ones like
// any other (the ordering rules hold); a newer push wins over it. Made by the operator (an
// Environment's autoRollback) and by people (a small object; later the CLI).
import { API_VERSION, type BundleObject } from './index.ts';
import { ownedByProject } from './bundle-owner.ts';
import { LABEL_PROJECT, LABEL_TRIGGER, boundedName, labelValue } from './labels.ts';

export interface RollbackRequest {
  namespace: string;
  project: string;
  /** The Project's uid: it owns the rollback bundle (bundle-owner.ts). */
  projectUid: string | undefined;
  /** The bundle whose image goes back. */
  to: string;
  environment: string;
  backupBeforeDeploy?: boolean;
  comment?: string;
  /** The new bundle's name; by default `<to>-rollback-<time>`. */
  name?: string;
  now?: Date;
}

export function rollbackBundle(request: RollbackRequest): BundleObject {
  const stamp = (request.now ?? new Date())
    .toISOString()
    .replace(/[-:TZ.]/g, '')
    .slice(0, 14);
  const name = request.name ?? boundedName(`${request.to}-rollback`, stamp, 253);
  return {
    apiVersion: API_VERSION,
    kind: 'Bundle',
    metadata: {
      name,
      namespace: request.namespace,
      labels: { [LABEL_PROJECT]: labelValue(request.project), [LABEL_TRIGGER]: 'Rollback' },
      ...ownedByProject({ name: request.project, uid: request.projectUid }),
    },
    spec: {
      projectRef: { name: request.project },
      source: { bundleRef: { name: request.to } },
      comment: request.comment ?? `rollback to bundle ${request.to}`,
      trigger: { type: 'Rollback' },
      deploy: {
        environmentRef: { name: request.environment },
        backupBeforeDeploy: request.backupBeforeDeploy ?? false,
      },
    },
  };
}
