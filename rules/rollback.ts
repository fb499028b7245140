// A rollback is a new Bundle that builds nothing: source.bundleRef names an earlier bundle of the
// project, whose image it rolls out again. Being the newest bundle, it wins over older ones like
// any other (the ordering rules hold); a newer push wins over it. Made by the operator (an
// Environment's autoRollback) and by people (`kubectl slipway rollback`, or a small object).
import type { BundleObject } from '../crds/index.ts';
import { boundedName } from '../crds/labels.ts';
import { nameStamp, newBundle } from './new-bundle.ts';

export interface RollbackRequest {
  namespace: string;
  project: string;
  /** The Project's uid: it owns the rollback bundle (new-bundle.ts). */
  projectUid: string | undefined;
  /** The Project's shard label, carried to the bundle. */
  projectShard?: string | undefined;
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
  const name =
    request.name ?? boundedName(`${request.to}-rollback`, nameStamp(request.now ?? new Date()), 253);
  return newBundle({
    name,
    namespace: request.namespace,
    project: { name: request.project, uid: request.projectUid, shard: request.projectShard },
    source: { bundleRef: { name: request.to } },
    comment: request.comment ?? `rollback to bundle ${request.to}`,
    trigger: { type: 'Rollback' },
    deploy: { environment: request.environment, backupBeforeDeploy: request.backupBeforeDeploy ?? false },
  });
}
