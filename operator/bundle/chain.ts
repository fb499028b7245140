// How decide.ts builds a bundle's decision while its steps run: each step sets the conditions it
// owns and either lets the chain go on or ends it (progressing, waiting, failed or done), and
// Ready summarises at the end.
import type { BundlePhase, BundleReason } from '../../crds/index.ts';
import type { ConditionUpdate } from '../../lib/conditions.ts';
import {
  REQUEUE_NO_POD_MS,
  REQUEUE_PROGRESSING_MS,
  REQUEUE_WAITING_MS,
  type BundleAction,
  type BundleDecision,
  type BundleInputs,
} from './decision.ts';
import { podlessJobs } from './workload-readings.ts';
import type { PodProblem } from './pod-problems.ts';
import { timeMs } from '../../rules/timestamps.ts';

export type ChainResult = Omit<BundleDecision, 'skip'>;

/** The conditions a bundle's steps own, and Ready. */
export type BundleCondition = 'Built' | 'BackedUp' | 'Deployed' | 'Ready';

export const cond = (
  type: BundleCondition,
  status: ConditionUpdate['status'],
  reason: BundleReason,
  message: string,
): ConditionUpdate => ({ type, status, reason, message });

/** Builds the decision as the steps run, so each step only states what it owns. */
export class Chain {
  readonly conditions: ConditionUpdate[] = [];
  readonly status: BundleDecision['status'] = {};
  private readonly input: BundleInputs;

  constructor(input: BundleInputs) {
    this.input = input;
    const started = input.bundle.status?.startedAt ?? isoOf(input.buildJob?.metadata?.creationTimestamp);
    if (started) this.status.startedAt = started;
  }

  set(update: ConditionUpdate): this {
    this.conditions.push(update);
    return this;
  }

  /** The chain is on its way; Ready is Unknown with the step's reason. */
  progressing(
    phase: BundlePhase,
    reason: BundleReason,
    message: string,
    action: BundleAction = { type: 'none' },
  ): ChainResult {
    // A Job still without a pod is looked at again soon: its pod may have been refused.
    const requeue = podlessJobs(this.input).length > 0 ? REQUEUE_NO_POD_MS : REQUEUE_PROGRESSING_MS;
    return this.end(phase, cond('Ready', 'Unknown', reason, message), action, 'progressing', requeue);
  }

  /** Blocked by something outside the bundle that may change (a missing object, a busy environment). */
  waiting(
    phase: BundlePhase,
    reason: BundleReason,
    message: string,
    ready: 'False' | 'Unknown' = 'False',
  ): ChainResult {
    return this.end(
      phase,
      cond('Ready', ready, reason, message),
      { type: 'none' },
      'waiting',
      REQUEUE_WAITING_MS,
    );
  }

  /**
   * Waiting for something outside the bundle, but not for ever: once it has waited `limitMs`
   * since `sinceMs`, the bundle fails with the same reason (its step condition `step` False), so
   * nothing (CI, upload.sh) hangs on a setup that cannot work. Looked at again when it is due.
   */
  waitingAtMost(
    phase: BundlePhase,
    step: BundleCondition,
    reason: BundleReason,
    message: string,
    sinceMs: number,
    limitMs: number,
  ): ChainResult {
    const waited = this.input.now.getTime() - sinceMs;
    if (waited >= limitMs) {
      const gaveUp = `${message}; gave up after waiting ${Math.round(limitMs / 1000)} s (the Environment's spec.waitTimeoutSeconds)`;
      this.set(cond(step, 'False', reason, gaveUp));
      return this.failed('Failed', reason, gaveUp);
    }
    this.set(cond(step, 'Unknown', reason, message));
    const result = this.waiting(phase, reason, message);
    return { ...result, requeueAfterMs: Math.min(REQUEUE_WAITING_MS, limitMs - waited + 250) };
  }

  /** A step whose pods cannot run: Ready=False with the cause, looked at again soon. */
  blocked(phase: BundlePhase, problem: PodProblem): ChainResult {
    return this.end(
      phase,
      cond('Ready', 'False', problem.reason, problem.message),
      { type: 'none' },
      'waiting',
      REQUEUE_NO_POD_MS,
    );
  }

  failed(
    phase: 'Failed' | 'Superseded',
    reason: BundleReason,
    message: string,
    action: BundleAction = { type: 'none' },
  ): ChainResult {
    this.status.finishedAt = this.input.now.toISOString();
    return this.end(phase, cond('Ready', 'False', reason, message), action, 'finished');
  }

  succeeded(phase: BundlePhase, message: string): ChainResult {
    this.status.finishedAt = this.input.now.toISOString();
    return this.end(phase, cond('Ready', 'True', 'Succeeded', message), { type: 'none' }, 'finished');
  }

  private end(
    phase: BundlePhase,
    ready: ConditionUpdate,
    action: BundleAction,
    outcome: BundleDecision['outcome'],
    requeueAfterMs?: number,
  ): ChainResult {
    return {
      phase,
      conditions: [...this.conditions, ready],
      action,
      outcome,
      ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
      status: this.status,
    };
  }
}

function isoOf(t: Date | string | undefined): string | undefined {
  const ms = timeMs(t);
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

/** A failed step's message with what its container said last, when the operator could read it. */
export function withOutput(message: string, output: string | undefined): string {
  return output ? `${message}. ${output}` : message;
}
