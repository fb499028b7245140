// The ladder shared by the two steps that run a Job, the build and the backup: not this bundle's
// Job, succeeded (the caller states what it produced), failed with the container's last output,
// blocked (its pods cannot run), or running.
import type { V1Job } from '@kubernetes/client-node';
import type { BundleInputs } from './decision.ts';
import type { Stop } from './chain.ts';
import { jobState, ownedBy, whoseJob } from './workload-state.ts';
import { jobBlocked } from './workload-readings.ts';

/** What differs between the two steps that run a Job. */
export interface JobStep {
  kind: 'build' | 'backup';
  owner: 'Built' | 'BackedUp';
  phase: 'Building' | 'BackingUp';
  failed: 'BuildFailed' | 'BackupFailed';
  create: 'createBuildJob' | 'createBackupJob';
  /** Said after a failure's cause. */
  afterFailure: string;
}

export const BUILD: JobStep = {
  kind: 'build',
  owner: 'Built',
  phase: 'Building',
  failed: 'BuildFailed',
  create: 'createBuildJob',
  afterFailure: '',
};

export const BACKUP: JobStep = {
  kind: 'backup',
  owner: 'BackedUp',
  phase: 'BackingUp',
  failed: 'BackupFailed',
  create: 'createBackupJob',
  afterFailure: '; nothing was deployed',
};

export function jobStep(input: BundleInputs, step: JobStep, job: V1Job, jobName: string): Stop | 'succeeded' {
  const { owner, phase } = step;
  if (!ownedBy(job, input.bundle)) {
    const message = `Job ${jobName} exists but is not this bundle's (${whoseJob(job)}); nothing of it is used: delete it and recreate the bundle`;
    return { how: 'failed', phase: 'Failed', owner, reason: 'JobNotOwned', message };
  }
  const state = jobState(job);
  if (state.state === 'succeeded') return 'succeeded';
  if (state.state === 'failed') {
    const message = withOutput(
      `${step.kind} Job ${jobName} failed: ${state.message}${step.afterFailure}`,
      input.failedOutput?.[step.kind],
    );
    return { how: 'failed', phase: 'Failed', owner, reason: step.failed, message };
  }
  const blocked = jobBlocked(input, step.kind, jobName);
  if (blocked) return { how: 'blocked', phase, owner, ...blocked };
  return {
    how: 'progressing',
    phase,
    owner,
    reason: phase,
    message: `${step.kind} Job ${jobName} is running`,
  };
}

/** The step's Job is to be made: the act that creates it. */
export function jobToStart(step: JobStep, jobName: string): Stop {
  const { owner, phase } = step;
  const message = `${step.kind} Job ${jobName} started`;
  return { how: 'progressing', phase, owner, reason: phase, message, action: { type: step.create } };
}

/** A failed step's message with what its container said last, when the operator could read it. */
function withOutput(message: string, output: string | undefined): string {
  return output ? `${message}. ${output}` : message;
}
