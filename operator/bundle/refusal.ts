// When the API server refuses one of the operator's own calls for a bundle — a quota on Jobs, an
// admission policy, an object it rejects — retrying alone will not help: the Bundle says so.
import { apiMessage, apiStatus } from '../../lib/kube.ts';
import type { BundleAction } from './decision.ts';

/** What each act is, for a refusal's message. */
const ACTION_WORDS: Record<BundleAction['type'], string> = {
  none: 'nothing',
  createBuildJob: 'creating the build Job',
  createBackupJob: 'creating the backup Job',
  startRollout: "updating the environment's Deployment",
  rollBack: 'creating the rollback bundle',
  stopJobs: "stopping the bundle's Jobs",
};

/** Statuses that are not a refusal: expired credentials, a timeout, not found, a conflict, throttling. */
const NOT_REFUSALS = new Set([401, 404, 408, 409, 429]);

/** An answer that retrying alone will not change: forbidden (RBAC, a quota), invalid, too large, denied. */
export function isRefusal(err: unknown): boolean {
  const status = apiStatus(err);
  return status !== undefined && status >= 400 && status < 500 && !NOT_REFUSALS.has(status);
}

/** A refused act, carried out of the Deployment lock so that its status is written after it. */
export class ActRefused extends Error {
  override name = 'ActRefused';
  readonly apiError: unknown;
  constructor(action: BundleAction['type'], apiError: unknown) {
    super(`${ACTION_WORDS[action]} was refused by the API server (retrying): ${apiMessage(apiError)}`);
    this.apiError = apiError;
  }
}
