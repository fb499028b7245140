// The work queue of what leaves the cluster for a bundle (commit statuses, notifications): the
// bundle controller's life-cycle events only queue a bundle here and never wait; a few workers
// handle one bundle at a time each, a bundle never twice at once (its next round reads its latest
// status). Waits (retries, re-reads) end early when the queue stops, as when leadership is lost.
import type { BundleObject } from '../../crds/index.ts';
import { objectKey } from '../../lib/informer.ts';
import type { Logger } from '../../lib/log.ts';
import type { BundleLifecycleEvent } from '../bundle/lifecycle.ts';

export class BundleQueue {
  readonly #log: Logger;
  readonly #handle: (key: string) => Promise<void>;
  readonly #workers: number;
  readonly #queue: string[] = [];
  readonly #queued = new Set<string>();
  readonly #busy = new Set<string>();
  readonly #timers = new Map<NodeJS.Timeout, () => void>();
  #running = 0;
  #stopped = false;
  #idle: Array<() => void> = [];

  constructor(log: Logger, handle: (key: string) => Promise<void>, workers = 4) {
    this.#log = log;
    this.#handle = handle;
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
    for (const [timer, end] of this.#timers) {
      clearTimeout(timer);
      end();
    }
    this.#timers.clear();
  }

  enqueue(bundle: BundleObject): void {
    this.#enqueueKey(objectKey(bundle.metadata.namespace, bundle.metadata.name));
  }

  /** The bundle is handled again after `ms`. */
  later(bundle: BundleObject, ms: number): void {
    const key = objectKey(bundle.metadata.namespace, bundle.metadata.name);
    void this.sleep(ms).then(() => this.#enqueueKey(key));
  }

  /** Resolves after `ms`, or at once when the queue stops. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        resolve();
      }, ms);
      this.#timers.set(timer, resolve);
    });
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
