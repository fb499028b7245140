// A work queue keyed by object, as client-go's rate-limited queue works:
// - a key is never handled by two workers at once (per-object serialisation);
// - adding a key that is already queued is a no-op; adding a key that is being handled queues
//   it once more for after the current run (so no change is ever missed);
// - a failed key is retried with exponential backoff, capped, and forgotten after a success;
// - addAfter() schedules a key (an earlier schedule wins over a later one);
// - addAhead() queues a key for `reservedAhead` workers of its own, beside the `concurrency`
//   workers of add()ed keys (a new object nobody has looked at yet should not wait for the
//   follow-ups of older ones, nor for a worker they hold); it takes one of those only when no
//   add()ed key waits, so neither kind can starve the other;
// - with `groupOf`, at most `perGroup` keys of one group (a namespace) run at once: a waiting key
//   of another group goes first, so one group cannot hold every worker;
// - shutdown() stops taking work and waits for the running handlers.
// Timers go through an injected clock so the tests run without real waiting.

export interface QueueTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

export const realTimers: QueueTimers = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  now: () => Date.now(),
};

/** What a handler may ask for besides "done": run this key again after a while. */
export interface HandlerResult {
  requeueAfterMs?: number;
}

/** Throw this (or a subclass) for a failure that retrying cannot fix: no backoff retry. */
export class PermanentError extends Error {
  override name = 'PermanentError';
}

export type Handler = (key: string) => Promise<HandlerResult | void>;

export interface WorkQueueOptions {
  /** Keys handled at the same time (each key still only once at a time). */
  concurrency?: number;
  /** Workers beyond `concurrency` for keys added ahead (addAhead). */
  reservedAhead?: number;
  /** First retry delay after a failure; doubles per consecutive failure. */
  backoffBaseMs?: number;
  /** Upper bound of the retry delay. */
  backoffMaxMs?: number;
  timers?: QueueTimers;
  /** Called whenever the number of keys waiting to be handled changes. */
  onDepth?: (depth: number) => void;
  /** Called after each run of the handler. */
  onResult?: (key: string, outcome: 'success' | 'error', durationMs: number, err?: unknown) => void;
  /** The group of a key: at most `perGroup` keys of one group run at once. */
  groupOf?: (key: string) => string;
  perGroup?: number;
}

export class WorkQueue {
  private readonly concurrency: number;
  private readonly reservedAhead: number;
  private readonly backoffBaseMs: number;
  private readonly backoffMaxMs: number;
  private readonly timers: QueueTimers;
  private readonly onDepth: ((depth: number) => void) | undefined;
  private readonly onResult: WorkQueueOptions['onResult'];
  private readonly groupOf: ((key: string) => string) | undefined;
  private readonly perGroup: number;
  /** Keys running per group. */
  private readonly groupRunning = new Map<string, number>();
  /** The group of each key queued or running (worked out once per key). */
  private readonly groups = new Map<string, string>();

  /** FIFOs of keys ready to run, added ahead or not; `queued` mirrors both for membership. */
  private readonly ahead: string[] = [];
  /** The running keys that hold one of the reserved workers. */
  private readonly onReserved = new Set<string>();
  private readonly ready: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  /** Keys added while being processed: queue them again when the run ends. */
  private readonly dirty = new Set<string>();
  private readonly delayed = new Map<string, { at: number; handle: unknown }>();
  private readonly failures = new Map<string, number>();
  private readonly idleWaiters: Array<() => void> = [];
  private handler: Handler | undefined;
  private stopping = false;

  constructor(options: WorkQueueOptions = {}) {
    this.concurrency = Math.max(1, options.concurrency ?? 1);
    this.reservedAhead = Math.max(0, options.reservedAhead ?? 0);
    this.backoffBaseMs = options.backoffBaseMs ?? 500;
    this.backoffMaxMs = options.backoffMaxMs ?? 5 * 60_000;
    this.timers = options.timers ?? realTimers;
    this.onDepth = options.onDepth;
    this.onResult = options.onResult;
    this.groupOf = options.groupOf;
    this.perGroup = Math.max(1, options.perGroup ?? Number.MAX_SAFE_INTEGER);
  }

  /** Begin handing keys to `handler`. Keys added before start() wait for it. */
  start(handler: Handler): void {
    this.handler = handler;
    this.pump();
  }

  add(key: string): void {
    if (this.stopping) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.ready.push(key);
    this.depthChanged();
    this.pump();
  }

  /** Like add(), but for the reserved workers (FIFO among keys added ahead). */
  addAhead(key: string): void {
    if (this.stopping) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) {
      const at = this.ready.indexOf(key);
      if (at < 0) return;
      this.ready.splice(at, 1);
    }
    this.queued.add(key);
    this.ahead.push(key);
    this.depthChanged();
    this.pump();
  }

  /** Add `key` after `ms`; an already scheduled earlier add wins. */
  addAfter(key: string, ms: number): void {
    if (this.stopping) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.timers.now() + ms;
    const existing = this.delayed.get(key);
    if (existing && existing.at <= at) return;
    if (existing) this.timers.clearTimeout(existing.handle);
    const handle = this.timers.setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    this.delayed.set(key, { at, handle });
  }

  /** Retry `key` after its backoff delay, which grows with each consecutive failure. */
  addRateLimited(key: string): void {
    const failures = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, failures);
    this.addAfter(key, this.backoffFor(failures));
  }

  /** Reset the backoff of `key` (it succeeded). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  backoffFor(failures: number): number {
    const exp = Math.min(failures - 1, 30);
    return Math.min(this.backoffBaseMs * 2 ** exp, this.backoffMaxMs);
  }

  failuresOf(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** Keys waiting to be handled now (not counting scheduled ones or those running). */
  get depth(): number {
    return this.ahead.length + this.ready.length;
  }

  get active(): number {
    return this.processing.size;
  }

  /** Keys scheduled for later (addAfter or backoff). */
  get scheduled(): number {
    return this.delayed.size;
  }

  /** Resolves when nothing is queued or running (scheduled keys do not count). */
  async idle(): Promise<void> {
    if (this.depth === 0 && this.processing.size === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stop taking work, drop queued and scheduled keys, and wait for running handlers. */
  async shutdown(): Promise<void> {
    this.stopping = true;
    for (const { handle } of this.delayed.values()) this.timers.clearTimeout(handle);
    this.delayed.clear();
    this.ahead.length = 0;
    this.ready.length = 0;
    this.queued.clear();
    this.groups.clear();
    this.dirty.clear();
    this.depthChanged();
    await this.idle();
  }

  private pump(): void {
    const handler = this.handler;
    if (!handler) return;
    for (let key = this.next(); key !== undefined; key = this.next()) {
      this.queued.delete(key);
      this.processing.add(key);
      this.countGroup(key, 1);
      this.depthChanged();
      void this.run(handler, key);
    }
    this.notifyIdle();
  }

  /**
   * The next key a free worker may take: a key added ahead on a free reserved worker, else on a
   * free shared worker an add()ed key, or a key added ahead when no add()ed key waits.
   */
  private next(): string | undefined {
    if (this.stopping) return undefined;
    if (this.onReserved.size < this.reservedAhead) {
      const key = this.take(this.ahead);
      if (key !== undefined) {
        this.onReserved.add(key);
        return key;
      }
    }
    if (this.processing.size - this.onReserved.size >= this.concurrency) return undefined;
    return this.take(this.ready) ?? this.take(this.ahead);
  }

  /** The first key of `list` whose group may run one more, taken out of it. */
  private take(list: string[]): string | undefined {
    if (!this.groupOf) return list.shift();
    if (this.groupRunning.size === 0) return list.shift();
    const at = list.findIndex((key) => (this.groupRunning.get(this.group(key)) ?? 0) < this.perGroup);
    return at < 0 ? undefined : list.splice(at, 1)[0];
  }

  private group(key: string): string {
    let group = this.groups.get(key);
    if (group === undefined) {
      group = this.groupOf!(key);
      this.groups.set(key, group);
    }
    return group;
  }

  private countGroup(key: string, by: 1 | -1): void {
    if (!this.groupOf) return;
    const group = this.group(key);
    const running = (this.groupRunning.get(group) ?? 0) + by;
    if (running > 0) this.groupRunning.set(group, running);
    else this.groupRunning.delete(group);
    if (by < 0 && !this.queued.has(key)) this.groups.delete(key);
  }

  private async run(handler: Handler, key: string): Promise<void> {
    const started = this.timers.now();
    let result: HandlerResult | void = undefined;
    let error: unknown;
    let failed = false;
    try {
      result = await handler(key);
    } catch (err) {
      failed = true;
      error = err;
    }
    this.processing.delete(key);
    this.onReserved.delete(key);
    this.countGroup(key, -1);
    try {
      this.onResult?.(key, failed ? 'error' : 'success', this.timers.now() - started, error);
    } catch {
      // a metrics hook must never break the queue
    }
    if (!this.stopping) {
      if (failed && !(error instanceof PermanentError)) this.addRateLimited(key);
      else {
        this.forget(key);
        if (result?.requeueAfterMs !== undefined) this.addAfter(key, result.requeueAfterMs);
      }
      if (this.dirty.delete(key)) this.add(key);
    }
    this.pump();
  }

  private depthChanged(): void {
    this.onDepth?.(this.depth);
  }

  private notifyIdle(): void {
    if (this.depth > 0 || this.processing.size > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
