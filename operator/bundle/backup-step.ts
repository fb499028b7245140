// The `backedUp` step, when the bundle asks for a backup (spec.deploy.backupBeforeDeploy): a
// backup Job of the Environment's database, right before this bundle's own rollout. Owns the
// BackedUp condition.
import type { BundleObject } from '../../crds/index.ts';
import { findCondition } from '../../lib/conditions.ts';
import { backupJobName } from '../names.ts';
import type { Chain, Stop } from './chain.ts';
import type { BundleInputs } from './decision.ts';
import { waitForEnvironment } from './environment-steps.ts';
import { BACKUP, jobStep, jobToStart } from './job-step.ts';

/** Whether an earlier decision already found this bundle's backup done. */
export const backedUpBefore = (bundle: BundleObject): boolean =>
  findCondition(bundle.status?.conditions, 'BackedUp')?.status === 'True';

export function backupStep(input: BundleInputs, chain: Chain): Stop | undefined {
  const { bundle, backupJob } = input;
  if (!bundle.spec.deploy?.backupBeforeDeploy) return undefined;
  const { environment, ours } = chain.target;
  const jobName = backupJobName(bundle.metadata.name);
  const envName = environment.metadata.name;
  const finished = `backup Job ${jobName} finished`;
  if (ours || backedUpBefore(bundle)) {
    if (bundle.status?.backup) chain.status.backup = bundle.status.backup;
    chain.set('BackedUp', 'True', 'Succeeded', finished);
    return undefined;
  }
  if (!backupJob) {
    if (!environment.spec.database || !environment.spec.backupStorage) {
      const missing = !environment.spec.database ? 'spec.database' : 'spec.backupStorage';
      const message = `a backup was asked for, but environment ${envName} has no ${missing}`;
      return waitForEnvironment(input, 'BackedUp', 'BackupNotConfigured', message);
    }
    if (!input.backupLocation) {
      const message = `environment ${envName} has a spec.backupStorage.pathPrefix that is not a relative path without ".."`;
      return waitForEnvironment(input, 'BackedUp', 'BackupNotConfigured', message);
    }
  }
  chain.status.backup = { job: jobName, ...(input.backupLocation ? { location: input.backupLocation } : {}) };
  if (!backupJob) return jobToStart(BACKUP, jobName);
  const ended = jobStep(input, BACKUP, backupJob, jobName);
  if (ended !== 'succeeded') return ended;
  chain.set('BackedUp', 'True', 'Succeeded', finished);
  return undefined;
}
