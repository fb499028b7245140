// The shape of a bundle's decision (docs/architecture.md#decisions-as-declared-steps): a named
// list of steps (steps.ts) runs over the gathered input; each step either passes, stating the
// condition it owns as True, or ends the chain with a Stop saying how and why. Ready is derived
// in one place, readyOf, from the stop: the owned condition that ended the chain.
import type { V1Deployment } from '@kubernetes/client-node';
import type { BundlePhase, BundleReason, EnvironmentObject } from '../../crds/index.ts';
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
import { timeMs } from '../../rules/timestamps.ts';

export type ChainResult = Omit<BundleDecision, 'skip'>;

/** The conditions a bundle's steps own; Ready is derived from them. */
export type OwnedCondition = 'Built' | 'BackedUp' | 'Deployed';

/**
 * How a step ends the chain:
 * - progressing: on its way (a Job runs, a rollout goes on); looked at again soon.
 * - inLine: waits its turn for something that will come (a build slot, the environment, a resume).
 * - waiting: blocked by something outside the bundle that someone has to change.
 * - blocked: its pods cannot run (refused, crashing, unschedulable); looked at again soon.
 * - failed, succeeded: finished.
 */
export type StopHow = 'progressing' | 'inLine' | 'waiting' | 'blocked' | 'failed' | 'succeeded';

export interface Stop {
  how: StopHow;
  phase: BundlePhase;
  /** The condition of the step that stopped; none for what comes before every step (the project). */
  owner?: OwnedCondition;
  reason: BundleReason;
  message: string;
  action?: BundleAction;
  /** Sooner than `how` would look again (a wait that gives up at a given time). */
  requeueAfterMs?: number;
}

/** A step of the chain: pure, over the gathered input and what earlier steps found. */
export interface Step<Name extends string = string> {
  name: Name;
  run(input: BundleInputs, chain: Chain): Stop | undefined;
}

const STATUS_OF: Record<StopHow, { owner: ConditionUpdate['status']; ready: ConditionUpdate['status'] }> = {
  progressing: { owner: 'Unknown', ready: 'Unknown' },
  inLine: { owner: 'Unknown', ready: 'Unknown' },
  waiting: { owner: 'Unknown', ready: 'False' },
  blocked: { owner: 'Unknown', ready: 'False' },
  failed: { owner: 'False', ready: 'False' },
  succeeded: { owner: 'True', ready: 'True' },
};

const OUTCOME_OF: Record<StopHow, BundleDecision['outcome']> = {
  progressing: 'progressing',
  inLine: 'waiting',
  waiting: 'waiting',
  blocked: 'waiting',
  failed: 'finished',
  succeeded: 'finished',
};

/** The one rule for Ready: the stopping step's reason and message, its status by how it stopped. */
export function readyOf(stop: Pick<Stop, 'how' | 'reason' | 'message'>): ConditionUpdate {
  return { type: 'Ready', status: STATUS_OF[stop.how].ready, reason: stop.reason, message: stop.message };
}

/** Where the bundle deploys, as the `environment` step found it. */
export interface DeployTarget {
  environment: EnvironmentObject;
  deployment: V1Deployment;
  container: string;
  /** The bundle the Deployment runs now, by its annotation. */
  running: string | undefined;
  /** Whether that is this bundle: its rollout has begun. */
  ours: boolean;
}

/** The steps' shared state while they run: what each found, the conditions they stated. */
export class Chain {
  readonly conditions: ConditionUpdate[] = [];
  readonly status: BundleDecision['status'] = {};
  #target: DeployTarget | undefined;
  private readonly input: BundleInputs;

  constructor(input: BundleInputs) {
    this.input = input;
    const started = input.bundle.status?.startedAt ?? isoOf(input.buildJob?.metadata?.creationTimestamp);
    if (started) this.status.startedAt = started;
  }

  /** Where the bundle deploys: found by the `environment` step, read by the steps after it. */
  get target(): DeployTarget {
    if (!this.#target) throw new Error('a deploy step ran before the environment step found the target');
    return this.#target;
  }

  set target(target: DeployTarget) {
    this.#target = target;
  }

  /** States a condition: a step's own that passed, or BackedUp held back beside a stop on Deployed. */
  set(type: OwnedCondition, status: ConditionUpdate['status'], reason: BundleReason, message: string): this {
    this.conditions.push({ type, status, reason, message });
    return this;
  }

  /** Ends the chain: the stopping step's condition, then Ready, derived once. */
  end(stop: Stop): ChainResult {
    if (stop.owner) this.set(stop.owner, STATUS_OF[stop.how].owner, stop.reason, stop.message);
    const outcome = OUTCOME_OF[stop.how];
    if (outcome === 'finished') this.status.finishedAt = this.input.now.toISOString();
    const requeueAfterMs = stop.requeueAfterMs ?? this.requeueAfter(stop.how);
    return {
      phase: stop.phase,
      conditions: [...this.conditions, readyOf(stop)],
      action: stop.action ?? { type: 'none' },
      outcome,
      ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
      status: this.status,
    };
  }

  private requeueAfter(how: StopHow): number | undefined {
    switch (how) {
      // A Job still without a pod is looked at again soon: its pod may have been refused.
      case 'progressing':
        return podlessJobs(this.input).length > 0 ? REQUEUE_NO_POD_MS : REQUEUE_PROGRESSING_MS;
      case 'blocked':
        return REQUEUE_NO_POD_MS;
      case 'inLine':
      case 'waiting':
        return REQUEUE_WAITING_MS;
      default:
        return undefined;
    }
  }
}

/** Runs `steps` in order until one stops; the last step always does. */
export function runSteps(steps: readonly Step[], input: BundleInputs): ChainResult {
  const chain = new Chain(input);
  for (const step of steps) {
    const stop = step.run(input, chain);
    if (stop) return chain.end(stop);
  }
  throw new Error(`the bundle chain ended without a stop after ${steps.at(-1)?.name}`);
}

function isoOf(t: Date | string | undefined): string | undefined {
  const ms = timeMs(t);
  return ms === undefined ? undefined : new Date(ms).toISOString();
}
