// What a finished bundle tells its notification receivers (pure): one event per bundle, read
// from its final status, so a notification sent late or after a restart still says how it ended.
//   Built          a bundle that deploys nothing was built
//   Deployed       the bundle runs in its environment
//   RolledBack     a rollback bundle (trigger Rollback) runs in its environment again
//   BuildFailed    the build, or what comes before it (invalid build steps, missing references)
//   BackupFailed   the backup before the rollout
//   RolloutFailed  the rollout, or the wait for the environment before it
// A superseded bundle ends with nothing to tell: the newer one will.
import { withoutOutput } from '../../rules/container-output.ts';
import type { BundleObject, NotificationEvent } from '../../crds/index.ts';
import { findCondition } from '../../lib/conditions.ts';

export interface BundleEnding {
  event: NotificationEvent;
  /** The environment it deployed to, or would have. */
  environment?: string;
  /** What the bundle's Ready condition says (first line). */
  message: string;
  /** When the bundle finished. */
  at: string;
}

// A chat channel is read by more people than may get the Bundle: a failed step's output stays
// in the build's logs (rules/container-output.ts).
const firstLine = (text: string | undefined) => withoutOutput((text ?? '').split('\n')[0]!.trim());

export function bundleEnding(bundle: BundleObject): BundleEnding | undefined {
  const status = bundle.status;
  const at = status?.finishedAt;
  // A pull request's bundle: its preview tells (preview-ending.ts).
  if (!status || !at || bundle.spec.trigger.type === 'PullRequest') return undefined;
  const conditions = status.conditions;
  const environment = bundle.spec.deploy?.environmentRef.name;
  const message = firstLine(findCondition(conditions, 'Ready')?.message);
  const is = (type: string, value: string) => findCondition(conditions, type)?.status === value;
  let event: NotificationEvent | undefined;
  if (status.phase === 'Ready' && environment)
    event = bundle.spec.trigger.type === 'Rollback' ? 'RolledBack' : 'Deployed';
  else if (status.phase === 'Built') event = 'Built';
  else if (status.phase === 'Failed') {
    if (!is('Built', 'True') && !bundle.spec.source.bundleRef) event = 'BuildFailed';
    else if (is('BackedUp', 'False')) event = 'BackupFailed';
    else event = 'RolloutFailed';
  }
  if (!event) return undefined;
  return { event, ...(environment ? { environment } : {}), message, at };
}

/** Failures are errors to a receiver; the rest are news. */
export const severityOf = (event: NotificationEvent): 'info' | 'error' =>
  event.endsWith('Failed') ? 'error' : 'info';
