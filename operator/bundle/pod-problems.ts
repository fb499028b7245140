// What keeps a bundle's pods from running, read from the pods' own status the moment the
// scheduler or the kubelet writes it: the scheduler's Unschedulable message (a missing volume
// claim included), image pulls that fail, containers that cannot be created (a missing Secret or
// ConfigMap key), containers that crash over and over. Pure: no I/O.
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import type { PodProblemReason } from '../../crds/index.ts';
import { podEnded } from './workload-state.ts';
import { timeMs } from '../../rules/timestamps.ts';

/**
 * A step whose pods were asked for and cannot run: the pods' own problems (here), a Job's or a
 * Deployment's refused pods, a paused Deployment (workload-readings.ts). Reasons: crds' podProblemReasons.
 */
export interface PodProblem {
  reason: PodProblemReason;
  message: string;
}

/** Longest message taken from the scheduler or the kubelet. */
const MAX_DETAIL_CHARS = 400;

const PULL_FAILURES = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull']);
const CONFIG_FAILURES = new Set(['CreateContainerConfigError', 'CreateContainerError', 'RunContainerError']);

/**
 * The first problem of the newest pods that are still meant to run; undefined when none is
 * blocked. `withOutput: false` leaves out what a crashing container printed (an application's
 * own log may hold secrets; the operator's build and backup containers do not).
 */
export function podProblem(
  pods: readonly V1Pod[],
  options: { withOutput?: boolean } = {},
): PodProblem | undefined {
  const live = pods
    .filter((p) => !p.metadata?.deletionTimestamp && !podEnded(p))
    .sort(
      (a, b) => (timeMs(b.metadata?.creationTimestamp) ?? 0) - (timeMs(a.metadata?.creationTimestamp) ?? 0),
    );
  for (const pod of live) {
    const problem = problemOf(pod, options.withOutput ?? false);
    if (problem) return problem;
  }
  return undefined;
}

function problemOf(pod: V1Pod, withOutput: boolean): PodProblem | undefined {
  const name = pod.metadata?.name ?? 'pod';
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False' && scheduled.reason === 'Unschedulable') {
    const detail = bounded(scheduled.message ?? 'no node fits it');
    const claim = /persistentvolumeclaim "([^"]+)" not found/.exec(detail);
    if (claim)
      return {
        reason: 'ClaimNotFound',
        message: `pod ${name} cannot be scheduled: persistentvolumeclaim "${claim[1]}" not found`,
      };
    return { reason: 'Unschedulable', message: `pod ${name} cannot be scheduled: ${detail}` };
  }
  const statuses: V1ContainerStatus[] = [
    ...(pod.status?.initContainerStatuses ?? []),
    ...(pod.status?.containerStatuses ?? []),
  ];
  for (const s of statuses) {
    // Between back-offs a crashing container runs for a moment: still crashing, not recovered.
    if (!s.state?.waiting && s.restartCount >= 2 && !s.ready && s.lastState?.terminated)
      return crashLoop(s, name, withOutput);
    const waiting = s.state?.waiting;
    if (!waiting?.reason) continue;
    const detail = waiting.message ? `: ${bounded(waiting.message)}` : '';
    if (PULL_FAILURES.has(waiting.reason))
      return {
        reason: 'ImagePullFailed',
        message: `container ${s.name} of pod ${name} cannot pull image ${s.image} (${waiting.reason})${detail}`,
      };
    if (CONFIG_FAILURES.has(waiting.reason))
      return {
        reason: 'ContainerConfigError',
        message: `container ${s.name} of pod ${name} cannot start (${waiting.reason})${detail}`,
      };
    if (waiting.reason === 'CrashLoopBackOff') return crashLoop(s, name, withOutput);
  }
  return undefined;
}

function crashLoop(s: V1ContainerStatus, pod: string, withOutput: boolean): PodProblem {
  const last = s.lastState?.terminated;
  const exit = last ? `; last exit code ${last.exitCode}${last.reason ? ` (${last.reason})` : ''}` : '';
  const output = withOutput && last?.message ? `: ${bounded(last.message.trim())}` : '';
  return {
    reason: 'CrashLoop',
    message: `container ${s.name} of pod ${pod} keeps crashing (${s.restartCount} restarts${exit})${output}`,
  };
}

function bounded(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_DETAIL_CHARS ? `${flat.slice(0, MAX_DETAIL_CHARS)}…` : flat;
}
