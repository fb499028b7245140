// The seam for a bundle's life-cycle events: what happened to a bundle, read from the status the
// controller has just written, published to observers that subscribe without the controller
// knowing them. Step metrics are the first observer (step-metrics.ts); reporting to the git
// provider and notifications attach here next (docs/architecture.md).
//
// Events come from status transitions, so a change is published once by the replica that wrote
// it. Observers run synchronously inside the reconcile and must not block it: one that does I/O
// queues its own work. An event is not persisted: an observer that must never miss one (a
// provider's commit status) also reads the bundle's status when it starts.
import type { BundleObject } from '../../crds/index.ts';
import type { Condition } from '../../crds/index.ts';
import type { Logger } from '../../lib/log.ts';

export const lifecycleEventTypes = [
  'Started',
  'Built',
  'BackedUp',
  'Deployed',
  'RolledBack',
  'Failed',
  'Superseded',
] as const;
export type LifecycleEventType = (typeof lifecycleEventTypes)[number];
export type BundleStep = 'build' | 'backup' | 'deploy';

export interface BundleLifecycleEvent {
  type: LifecycleEventType;
  /** The bundle with the status just written. */
  bundle: BundleObject;
  /** The step that ended (Built, BackedUp, Deployed, RolledBack; Failed when a step failed). */
  step?: BundleStep;
  reason: string;
  message: string;
  /** When that step began (its Job's creation, the rollout's start), when known. */
  stepStartedAt?: number;
  at: Date;
}

export type BundleObserver = (event: BundleLifecycleEvent) => void;

type BundleStatus = NonNullable<BundleObject['status']>;

/** Where each step's outcome is written, and when each step began. */
/** Each step's condition, which is also the event published when it becomes True. */
const STEPS: ReadonlyArray<['Built' | 'BackedUp' | 'Deployed', BundleStep]> = [
  ['Built', 'build'],
  ['BackedUp', 'backup'],
  ['Deployed', 'deploy'],
];

/**
 * The events between the status a bundle had and the status just written: Started when the build
 * began, one per step that succeeded (and RolledBack when a rollback bundle is deployed), Failed
 * when the bundle failed, naming the step that did, Superseded when a newer bundle won.
 */
export function lifecycleEvents(
  bundle: BundleObject,
  before: BundleStatus | undefined,
  after: BundleStatus,
  stepStarts: Partial<Record<BundleStep, number>>,
  at: Date,
): BundleLifecycleEvent[] {
  const written = { ...bundle, status: after };
  const find = (status: BundleStatus | undefined, type: string) =>
    status?.conditions?.find((c) => c.type === type);
  const event = (
    type: LifecycleEventType,
    condition: Condition | undefined,
    step?: BundleStep,
  ): BundleLifecycleEvent => ({
    type,
    bundle: written,
    ...(step ? { step } : {}),
    reason: condition?.reason ?? type,
    message: condition?.message ?? '',
    ...(step && stepStarts[step] !== undefined ? { stepStartedAt: stepStarts[step] } : {}),
    at,
  });
  const events: BundleLifecycleEvent[] = [];
  if (!before?.startedAt && after.startedAt) events.push(event('Started', find(after, 'Built')));
  for (const [type, step] of STEPS) {
    const now = find(after, type);
    if (now?.status !== 'True' || find(before, type)?.status === 'True') continue;
    events.push(event(type, now, step));
    if (step === 'deploy' && bundle.spec.trigger.type === 'Rollback')
      events.push(event('RolledBack', now, step));
  }
  if (after.phase === 'Superseded' && before?.phase !== 'Superseded')
    events.push(event('Superseded', find(after, 'Ready')));
  if (after.phase === 'Failed' && before?.phase !== 'Failed') {
    const failedStep = STEPS.find(([type]) => {
      const c = find(after, type);
      return c?.status === 'False' && find(before, type)?.status !== 'False';
    });
    events.push(event('Failed', find(after, 'Ready'), failedStep?.[1]));
  }
  return events;
}

/** Observers of bundle life-cycle events; one that throws is logged and the others still run. */
export class BundleLifecycle {
  readonly #observers = new Set<BundleObserver>();
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  /** Adds an observer; the function returned removes it. */
  subscribe(observer: BundleObserver): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  publish(events: readonly BundleLifecycleEvent[]): void {
    for (const event of events)
      for (const observer of this.#observers) {
        try {
          observer(event);
        } catch (err) {
          const { namespace, name } = event.bundle.metadata;
          this.#log.warn(
            { err, bundle: `${namespace}/${name}`, event: event.type },
            'a bundle observer failed',
          );
        }
      }
  }
}
