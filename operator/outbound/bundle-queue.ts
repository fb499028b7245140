// The work queue of what leaves the cluster for a bundle (commit statuses, notifications): the
// bundle controller's life-cycle events only queue a bundle here and never wait; a few workers
// handle one bundle at a time each, a bundle never twice at once (its next round reads its latest
// status). A round that could not finish is tried again later, each time twice as late, while
// the bundle is recent. Waits (retries, re-reads) end early when the queue stops, as when
// leadership is lost.
import { Sleeps } from './sleeps.ts';
import type { BundleObject, ProjectObject } from '../../crds/index.ts';
import { objectKey } from '../../lib/informer.ts';
import type { Logger } from '../../lib/log.ts';
import { bundleStatusUrl } from '../../rules/bundle-status-url.ts';
import { timeMs } from '../../rules/timestamps.ts';
import type { BundleLifecycleEvent } from '../bundle/lifecycle.ts';
import type { OperatorContext } from '../context.ts';

/** A bundle finished longer ago than this is not tried again. */
export const RETRY_WINDOW_MS = 24 * 3600_000;
const MAX_RETRY_DELAY_MS = 3600_000;

export class BundleQueue {
  readonly #log: Logger;
  readonly #handle: (key: string) => Promise<void>;
  readonly #workers: number;
  readonly #queue: string[] = [];
  readonly #queued = new Set<string>();
  readonly #busy = new Set<string>();
  readonly #sleeps = new Sleeps();
  /** Rounds in a row that could not finish a bundle: the next is tried later each time. */
  readonly #failures = new Map<string, number>();
  readonly #now: () => number;
  #running = 0;
  #stopped = false;
  #idle: Array<() => void> = [];

  constructor(log: Logger, handle: (key: string) => Promise<void>, now: () => number, workers = 4) {
    this.#log = log;
    this.#handle = handle;
    this.#now = now;
    this.#workers = workers;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** A bundle life-cycle observer (the round reads the bundle's newest status itself). */
  readonly observe = (event: BundleLifecycleEvent): void => this.enqueue(event.bundle);

  /** Starts (again) with these bundles queued, as after gaining leadership. */
  resume(bundles: Iterable<BundleObject>): void {
    this.#stopped = false;
    for (const bundle of bundles) this.enqueue(bundle);
  }

  /** Drops what is queued and ends the waits; rounds in flight see `stopped` and end. */
  stop(): void {
    this.#stopped = true;
    this.#queue.length = 0;
    this.#queued.clear();
    this.#sleeps.wakeAll();
    this.#failures.clear();
  }

  enqueue(bundle: BundleObject): void {
    this.#enqueueKey(objectKey(bundle.metadata.namespace, bundle.metadata.name));
  }

  /**
   * A round that could not finish the bundle's work: it is handled again later, each time twice
   * as late (from `firstDelayMs` up to 1 h), while it finished less than a day ago: a receiver
   * down for a while, or a Secret fixed, still gets the final state.
   */
  retryLater(bundle: BundleObject, firstDelayMs: number): void {
    const key = objectKey(bundle.metadata.namespace, bundle.metadata.name);
    const finished = timeMs(bundle.status?.finishedAt);
    if (this.#stopped || (finished !== undefined && this.#now() - finished > RETRY_WINDOW_MS)) {
      this.#failures.delete(key);
      return;
    }
    const failures = (this.#failures.get(key) ?? 0) + 1;
    if (this.#failures.size > 10_000) this.#failures.clear();
    this.#failures.set(key, failures);
    const delay = Math.min(firstDelayMs * 2 ** (failures - 1), MAX_RETRY_DELAY_MS);
    void this.sleep(delay).then(() => this.#enqueueKey(key));
  }

  /** The bundle's work is done: a later failure starts the back-off again. */
  done(bundle: BundleObject): void {
    this.#failures.delete(objectKey(bundle.metadata.namespace, bundle.metadata.name));
  }

  /** Resolves after `ms`, or at once when the queue stops. */
  sleep(ms: number): Promise<void> {
    return this.#sleeps.sleep(ms);
  }

  /** Resolves when nothing is queued or being handled (tests). */
  idle(): Promise<void> {
    if (this.#running === 0 && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #enqueueKey(key: string): void {
    if (this.#stopped || this.#queued.has(key)) return;
    this.#queued.add(key);
    this.#queue.push(key);
    this.#pump();
  }

  #pump(): void {
    while (this.#running < this.#workers && this.#queue.length > 0) {
      const index = this.#queue.findIndex((k) => !this.#busy.has(k));
      if (index < 0) return;
      const [key] = this.#queue.splice(index, 1) as [string];
      this.#queued.delete(key);
      this.#busy.add(key);
      this.#running += 1;
      void this.#handle(key)
        .catch((err: unknown) => this.#log.warn({ err, bundle: key }, 'handling a bundle failed'))
        .finally(() => {
          this.#busy.delete(key);
          this.#running -= 1;
          this.#pump();
          if (this.#running === 0 && this.#queue.length === 0)
            for (const done of this.#idle.splice(0)) done();
        });
    }
  }
}

/**
 * Where a person sees the bundle without credentials: its status URL on the gateway (signed with
 * SLIPWAY_ARCHIVE_URL_KEY), or undefined without that key.
 */
export function publicBundleUrl(ctx: OperatorContext, bundle: BundleObject): string | undefined {
  const { gatewayBaseUrl, archiveUrlKey } = ctx.config;
  const { namespace, name } = bundle.metadata;
  return archiveUrlKey ? bundleStatusUrl(gatewayBaseUrl, archiveUrlKey, namespace, name) : undefined;
}

/** The project a bundle belongs to, from the cache. */
export const projectOf = (ctx: OperatorContext, bundle: BundleObject): ProjectObject | undefined =>
  ctx.informers.projects.get(bundle.metadata.namespace, bundle.spec.projectRef.name);

/**
 * A queued bundle (`namespace/name`) with its newest status (what this process wrote last may
 * not be in the cache yet), and its project; undefined when either is gone.
 */
export function newestBundle(
  ctx: OperatorContext,
  key: string,
): { bundle: BundleObject; project: ProjectObject } | undefined {
  const [namespace, name] = key.split('/') as [string, string];
  const cached = ctx.informers.bundles.get(namespace, name);
  if (!cached) return undefined;
  const bundle = { ...cached, status: ctx.status.current(cached) };
  const project = projectOf(ctx, bundle);
  return project && { bundle, project };
}
