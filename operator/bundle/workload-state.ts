// Pure readings of the workloads a bundle's steps run: whether a Job is done, what a failed
// container said last, how far a rollout is. No I/O.
import { findCondition } from '../../lib/conditions.ts';
import type { V1ContainerStatus, V1Deployment, V1Job, V1Pod } from '@kubernetes/client-node';
import type { BundleObject } from '../../crds/index.ts';
import { LABEL_BUNDLE_UID } from '../../crds/labels.ts';
import { runningBundle } from '../running-bundle.ts';
import { timeMs } from '../../rules/timestamps.ts';
import { withOutput } from '../../rules/container-output.ts';
import { failedBuildStep } from './buildkit-output.ts';

/** A pod that has ended: it runs nothing more (Succeeded or Failed). */
export const podEnded = (pod: V1Pod): boolean =>
  pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/**
 * Whether the Job is this bundle's. In the bundle's namespace (its backup) the Job's controller
 * owner reference has the bundle's uid: a Job that merely has the bundle's Job name and labels
 * (made by someone else, or left from a deleted bundle of the same name) is never taken for the
 * bundle's. In another namespace (the build namespace, where only the operator makes Jobs, and
 * the only other one a Job is read from) its slipway.dev/bundle-uid label has the uid.
 */
export function ownedBy(job: V1Job, bundle: BundleObject): boolean {
  const uid = bundle.metadata.uid;
  if (uid === undefined) return false;
  if (job.metadata?.namespace !== bundle.metadata.namespace)
    return job.metadata?.labels?.[LABEL_BUNDLE_UID] === uid;
  return controllingBundle(job)?.uid === uid;
}

/** Whose a Job that is not the bundle's is: its controller, or the bundle its labels name. */
export function whoseJob(job: V1Job): string {
  const owner = job.metadata?.ownerReferences?.find((o) => o.controller);
  if (owner) return `its controller is ${owner.kind} ${owner.name}`;
  const uid = job.metadata?.labels?.[LABEL_BUNDLE_UID];
  return uid ? `it builds the bundle with uid ${uid}` : 'it has no controller';
}

/** The Bundle that controls the Job, if one does. */
export function controllingBundle(job: V1Job): { name: string; uid: string } | undefined {
  return job.metadata?.ownerReferences?.find((o) => o.controller === true && o.kind === 'Bundle');
}

export type JobState = { state: 'running' } | { state: 'succeeded' } | { state: 'failed'; message: string };

export function jobState(job: V1Job): JobState {
  for (const c of job.status?.conditions ?? []) {
    if (c.status !== 'True') continue;
    if (c.type === 'Complete') return { state: 'succeeded' };
    if (c.type === 'Failed')
      return {
        state: 'failed',
        message: [c.reason, c.message].filter(Boolean).join(': ') || 'the Job failed',
      };
  }
  return { state: 'running' };
}

/**
 * The digest the push container of a succeeded build reported (its termination message, which
 * crane --image-refs writes as `<repository>@sha256:…`), from the newest pod that has one for
 * `repository` (the image's, without its tag): a report of any other repository is not taken.
 * (A hostname with a port has a colon too: only a last segment's `:tag` is a tag.)
 */
export function pushedDigest(
  pods: readonly V1Pod[],
  container: string,
  repository: string,
): string | undefined {
  const newestFirst = [...pods].sort(
    (a, b) => (timeMs(b.metadata?.creationTimestamp) ?? 0) - (timeMs(a.metadata?.creationTimestamp) ?? 0),
  );
  for (const pod of newestFirst) {
    const terminated = pod.status?.containerStatuses?.find((s) => s.name === container)?.state?.terminated;
    if (terminated?.exitCode !== 0) continue;
    const reported = /^(.+)@(sha256:[a-f0-9]{64})\s*$/.exec((terminated.message ?? '').trim());
    // crane names the repository; a report by the tag names the same one.
    const named = reported?.[1]?.replace(/:[^/:]+$/, '');
    if (reported && named === repository) return reported[2];
  }
  return undefined;
}

/** At most this much of a failed container's output goes into a condition message. */
const OUTPUT_LINES = 6;
const OUTPUT_CHARS = 800;
/** A build step's own output says more per line than a tool's last words: a little more of it. */
const STEP_OUTPUT_LINES = 12;
const STEP_OUTPUT_CHARS = 1200;

/** The last `lines` of `text`, joined with " | ", at most `chars` long. */
function lastLines(lines: readonly string[], count: number, chars: number): string {
  const text = lines.slice(-count).join(' | ');
  return text.length > chars ? `…${text.slice(-chars)}` : text;
}

/**
 * What the failed container of a Job's pods said last: its termination message, which the
 * Job's containers fill with their last log lines on error (FallbackToLogsOnError). The newest
 * pod first; undefined when no container failed with output.
 */
export function failedContainerOutput(pods: readonly V1Pod[]): string | undefined {
  const newestFirst = [...pods].sort(
    (a, b) => (timeMs(b.metadata?.creationTimestamp) ?? 0) - (timeMs(a.metadata?.creationTimestamp) ?? 0),
  );
  for (const pod of newestFirst) {
    const statuses: V1ContainerStatus[] = [
      ...(pod.status?.initContainerStatuses ?? []),
      ...(pod.status?.containerStatuses ?? []),
    ];
    for (const s of statuses) {
      const terminated = s.state?.terminated ?? s.lastState?.terminated;
      if (!terminated || terminated.exitCode === 0) continue;
      const output = terminated.message ?? '';
      const reason = terminated.reason && terminated.reason !== 'Error' ? ` (${terminated.reason})` : '';
      const container = `Container ${s.name} exited with code ${terminated.exitCode}${reason}`;
      const step = failedBuildStep(output);
      if (step) {
        const which = step.step === undefined ? `a ${step.phase} step` : `${step.phase} step ${step.step}`;
        const code = step.exitCode === undefined ? 'failed' : `exited with code ${step.exitCode}`;
        const text = lastLines(step.lines, STEP_OUTPUT_LINES, STEP_OUTPUT_CHARS);
        return withOutput(`${container}: ${which} ${code}`, text);
      }
      const lines = output
        .split('\n')
        .map((l) => l.trimEnd())
        .filter(Boolean);
      const text = lastLines(lines, OUTPUT_LINES, OUTPUT_CHARS);
      return withOutput(container, text);
    }
  }
  return undefined;
}

export type RolloutState =
  | { state: 'notStarted' }
  | { state: 'progressing'; message: string }
  | { state: 'complete' }
  | { state: 'failed'; message: string };

/** Whether the Deployment has rolled out `bundle`, as `kubectl rollout status` judges it. */
export function rolloutState(deployment: V1Deployment, bundle: string): RolloutState {
  if (runningBundle(deployment) !== bundle) return { state: 'notStarted' };
  const generation = deployment.metadata?.generation ?? 0;
  const status = deployment.status ?? {};
  if ((status.observedGeneration ?? 0) < generation)
    return { state: 'progressing', message: 'waiting for the Deployment controller to see the new image' };
  const progressing = status.conditions?.find((c) => c.type === 'Progressing');
  if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded')
    return {
      state: 'failed',
      message:
        `rollout of Deployment ${deployment.metadata?.name} exceeded its progress deadline: ${progressing.message ?? ''}`.trim(),
    };
  const wanted = deployment.spec?.replicas ?? 1;
  const updated = status.updatedReplicas ?? 0;
  const total = status.replicas ?? 0;
  const available = status.availableReplicas ?? 0;
  if (updated < wanted) return { state: 'progressing', message: `${updated} of ${wanted} pods updated` };
  if (total > updated)
    return { state: 'progressing', message: `${total - updated} old pods still terminating` };
  if (available < updated)
    return { state: 'progressing', message: `${available} of ${updated} updated pods available` };
  return { state: 'complete' };
}

export function environmentOf(bundle: BundleObject): string | undefined {
  return bundle.spec.deploy?.environmentRef.name;
}

/** Whether `bundle` was rolled out to `environment` (what a rollback may put back there). */
export function wasDeployedTo(bundle: BundleObject, environment: string): boolean {
  return (
    environmentOf(bundle) === environment &&
    findCondition(bundle.status?.conditions, 'Deployed')?.status === 'True'
  );
}
