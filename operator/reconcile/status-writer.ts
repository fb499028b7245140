// The one way the operator writes an object's status, like Flux's SerialPatcher with its
// conditions helpers: every controller hands over the fields and conditions it decided, and
// this sets the conditions' bookkeeping, adds kstatus's Reconciling/Stalled, patches /status
// only when something changed, and records an Event for each transition worth one.
//
// Each field and condition of a status has one writer, declared in status-owners.ts (a kind's
// own controller, or the delivery engine for receipts and health); a write that changes what its
// writer does not own is refused. A writer may reconcile the same
// object again before the informer has seen its last write; comparing against the cache would
// then announce the same transition twice, so the status last written is remembered until the
// cache shows it.
import type { Condition, Resource } from '../../crds/index.ts';
import { reconcileRequested } from '../../rules/reconcile-request.ts';
import { findCondition, setCondition, type ConditionUpdate } from '../../lib/conditions.ts';
import type { EventRecorder } from '../../lib/events.ts';
import { isConflict, type KindName, type SlipwayApi } from '../../lib/kube.ts';
import { RecentWrites } from './recent-writes.ts';
import { STATUS_OWNERS, ownerProblem, type StatusWriterName } from './status-owners.ts';
import { canonical, mergePatched, readyTransition, statusDiffers } from './status.ts';

/** How long a written status is remembered at most (the cache shows it within about a second). */
const REMEMBER_WRITES_MS = 60_000;

export interface ObjectWithStatus {
  apiVersion: string;
  metadata: Pick<
    Resource<unknown, unknown>['metadata'],
    'name' | 'namespace' | 'uid' | 'generation' | 'resourceVersion' | 'annotations'
  >;
  status?: { conditions?: Condition[]; lastHandledReconcileAt?: string };
}

export interface StatusEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** The Events a change of conditions deserves. Messages are public: never a credential. */
export type TransitionEvents = (
  before: readonly Condition[] | undefined,
  after: readonly Condition[],
) => StatusEvent[];

export interface StatusUpdate {
  /** Who writes (status-owners.ts): what it changes must be its own. */
  writer: StatusWriterName;
  /** Status fields besides `conditions`; `null` removes one, `undefined` leaves it alone. */
  fields?: Record<string, unknown>;
  /** Conditions in the order they should read (steps first, Ready last). */
  conditions: ConditionUpdate[];
  /** This generation has been fully handled: `observedGeneration` becomes the object's. */
  observed?: boolean;
}

/** kstatus's abnormal-true conditions, derived from Ready so that tools read them the same way. */
export const RECONCILING = 'Reconciling';
export const STALLED = 'Stalled';

/** One Event when Ready's status or reason moves: Normal when it became True, else a Warning. */
export const readyEvents: TransitionEvents = (before, after) => {
  const changed = readyTransition(before, after);
  if (!changed) return [];
  return [
    {
      type: changed.status === 'True' ? 'Normal' : 'Warning',
      reason: changed.reason,
      message: changed.message,
    },
  ];
};

/**
 * The conditions after `updates`, with kstatus's view of Ready: Unknown is on its way
 * (Reconciling=True), False needs someone (Stalled=True), True is neither (both removed).
 */
export function nextConditions(
  current: readonly Condition[] | undefined,
  updates: readonly ConditionUpdate[],
  generation: number | undefined,
  now: Date,
): Condition[] {
  let conditions = (current ?? []).filter((c) => c.type !== RECONCILING && c.type !== STALLED);
  for (const update of updates) conditions = setCondition(conditions, update, generation, now);
  // Steps in the order they were first reached, then Ready, then kstatus's summary.
  const ready = findCondition(conditions, 'Ready');
  conditions = [...conditions.filter((c) => c.type !== 'Ready'), ...(ready ? [ready] : [])];
  if (!ready || ready.status === 'True') return conditions;
  const type = ready.status === 'Unknown' ? RECONCILING : STALLED;
  return setCondition(
    [...conditions, ...(current ?? []).filter((c) => c.type === type)],
    { type, status: 'True', reason: ready.reason, message: ready.message },
    generation,
    now,
  );
}

export class StatusWriter {
  readonly #slipway: SlipwayApi;
  readonly #events: EventRecorder;
  readonly #now: () => Date;
  /** By uid (or namespace/name): the status last written and the version it made, until the cache shows it. */
  readonly #written = new RecentWrites<{ status: Record<string, unknown>; resourceVersion?: string }>(
    REMEMBER_WRITES_MS,
  );

  constructor(ctx: { slipway: SlipwayApi; events: EventRecorder; now: () => Date }) {
    this.#slipway = ctx.slipway;
    this.#events = ctx.events;
    this.#now = ctx.now;
  }

  /** The object's status as this process last wrote it, or as the cache has it. */
  current<T extends ObjectWithStatus>(object: T): T['status'] {
    const key = writtenKey(object);
    const wrote = this.#written.get(key, this.#now().getTime())?.status;
    if (wrote === undefined) return object.status;
    if (canonical(wrote) !== canonical(object.status)) return wrote as T['status'];
    this.#written.delete(key);
    return object.status;
  }

  /**
   * Writes `update` into the object's status when it changes anything; resolves with the
   * status written, or undefined when there was nothing to write.
   */
  async write(
    kind: KindName,
    object: ObjectWithStatus,
    update: StatusUpdate,
    events: TransitionEvents = readyEvents,
  ): Promise<Record<string, unknown> | undefined> {
    const { name, namespace, generation } = object.metadata;
    const before = this.current(object) as Record<string, unknown> & { conditions?: Condition[] };
    const fields = {
      ...update.fields,
      ...(update.observed && generation !== undefined ? { observedGeneration: generation } : {}),
    };
    const problem = ownerProblem(kind, update.writer, before, fields, update.conditions);
    if (problem) throw new Error(problem);
    const conditions = nextConditions(before?.conditions, update.conditions, generation, this.#now());
    // A look asked for (kubectl slipway reconcile): the kind's own controller has just made it.
    const asked =
      update.writer === STATUS_OWNERS[kind].owner
        ? reconcileRequested({
            metadata: object.metadata,
            status: { lastHandledReconcileAt: before?.lastHandledReconcileAt as string | undefined },
          })
        : undefined;
    const status = { ...fields, ...(asked ? { lastHandledReconcileAt: asked } : {}), conditions };
    if (!statusDiffers(before, status)) return undefined;
    // The write holds only if the object is still at the version this decision read (or this
    // process last wrote): a former leader's late write, or one decided on a stale cache, gets
    // 409 and is retried on fresh state instead of overwriting a newer status.
    const key = writtenKey(object);
    const version =
      this.#written.get(key, this.#now().getTime())?.resourceVersion ?? object.metadata.resourceVersion;
    let patched: { metadata?: { resourceVersion?: string } } | undefined;
    try {
      patched = await this.#slipway.patchStatus(kind, namespace, name, status, version);
    } catch (err) {
      // What this process remembers writing is not the object's latest: take the cache's next time.
      if (isConflict(err)) this.#written.delete(key);
      throw err;
    }
    const written = mergePatched(before ?? {}, status) as Record<string, unknown>;
    this.#written.set(
      key,
      { status: written, resourceVersion: patched?.metadata?.resourceVersion },
      this.#now().getTime(),
    );
    const target = { apiVersion: object.apiVersion, kind, metadata: object.metadata };
    for (const e of events(before?.conditions, conditions))
      void this.#events.record(target, e.type, e.reason, e.message, 'Reconcile');
    return written;
  }

  /** For kinds whose checks end in Ready alone: Ready, `fields`, and the generation handled. */
  writeReady(
    kind: KindName,
    object: ObjectWithStatus,
    ready: ConditionUpdate,
    fields: Record<string, unknown> = {},
  ): Promise<Record<string, unknown> | undefined> {
    return this.write(kind, object, {
      writer: STATUS_OWNERS[kind].owner,
      fields,
      conditions: [ready],
      observed: true,
    });
  }
}

function writtenKey(object: ObjectWithStatus): string {
  return object.metadata.uid ?? `${object.metadata.namespace}/${object.metadata.name}`;
}
