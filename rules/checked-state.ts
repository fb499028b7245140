// A component's own state once its check counts (#59, docs/resources.md): what /api/v1, /api/v2,
// the page and the subscriber webhooks show for it, before groups take their parts' worst
// (group-state.ts). Slipway never writes spec.state: a failing check only changes what is shown.
import type { ComponentState } from '../crds/index.ts';

/** What the state shown needs of a component's check, from its spec and status. */
export interface CheckStanding {
  /** Failures in a row, as the operator last wrote them (status.check.consecutiveFailures). */
  consecutiveFailures: number;
  /** How many failures in a row make the check failing (spec.check.failureThreshold). */
  failureThreshold: number;
}

/** Whether a check's failures count for anything (the state shown, incidents): not during maintenance. */
export const checkCounts = (specState: ComponentState, maintenanceUnderway: boolean): boolean =>
  specState !== 'under-maintenance' && !maintenanceUnderway;

/**
 * `spec.state`, unless the check has failed `failureThreshold` times in a row: then degraded. A
 * component under maintenance (its spec.state, or a maintenance underway on it) shows that,
 * whatever its check says: the work is expected to break it.
 */
export function checkedState(
  specState: ComponentState,
  check: CheckStanding | undefined,
  maintenanceUnderway: boolean,
): ComponentState {
  if (!checkCounts(specState, maintenanceUnderway)) return specState;
  if (check && check.consecutiveFailures >= Math.max(1, check.failureThreshold)) return 'degraded';
  return specState;
}
