// Status writes made soon, once per key however often asked (a batch: the write reads what is
// owed when it runs), on a work queue of their own (lib/queue.ts): a write that fails (a
// controller wrote first: 409; the API server away) is tried again with the queue's back-off,
// 1 s doubling to a minute. close() runs what waits once and takes nothing more: a replica that
// stopped leading writes only the receipts of what it sent.
import { isConflict } from '../../lib/kube.ts';
import type { Logger } from '../../lib/log.ts';
import { WorkQueue, type QueueTimers } from '../../lib/queue.ts';

export class LaterWrites {
  readonly #log: Logger;
  readonly #timers: QueueTimers;
  /** The write of each key that waits or runs. */
  readonly #writes = new Map<string, () => Promise<void>>();
  #queue: WorkQueue;
  #changed: Array<() => void> = [];
  #closed = false;

  constructor(log: Logger, timers: QueueTimers) {
    this.#log = log;
    this.#timers = timers;
    this.#queue = this.#open();
  }

  /** Runs `write` after `ms`, unless a write of `key` waits already (it reads the latest then). */
  schedule(key: string, ms: number, write: () => Promise<void>): void {
    if (this.#closed || this.#writes.has(key)) return;
    this.#writes.set(key, write);
    this.#queue.addAfter(key, ms);
  }

  /** Whether a write of `key` waits (or waits to be tried again). */
  waits(key: string): boolean {
    return this.#writes.has(key);
  }

  /** Resolves when no write waits or runs (one tried again with back-off is waited for too). */
  async idle(): Promise<void> {
    for (;;) {
      await this.#queue.idle();
      if (this.#writes.size === 0) return;
      // One waits for its time: the end of its run wakes this.
      await new Promise<void>((resolve) => this.#changed.push(resolve));
    }
  }

  /** Runs every waiting write now, once (a failure is not tried again), and takes nothing more until reopen(). */
  async close(): Promise<void> {
    this.#closed = true;
    const queue = this.#queue;
    await queue.shutdown();
    const waiting = [...this.#writes];
    this.#writes.clear();
    for (const resolve of this.#changed.splice(0)) resolve();
    await Promise.allSettled(
      waiting.map(([key, write]) => write().catch((err: unknown) => this.#failed(key, err))),
    );
  }

  /** Takes writes again (a new term). */
  reopen(): void {
    if (!this.#closed) return;
    this.#closed = false;
    this.#queue = this.#open();
  }

  #open(): WorkQueue {
    const queue = new WorkQueue({
      concurrency: 4,
      backoffBaseMs: 1000,
      backoffMaxMs: 60_000,
      timers: this.#timers,
    });
    queue.start(async (key) => {
      const write = this.#writes.get(key);
      if (!write) return;
      // Asked again while it runs: a new write, after this one.
      this.#writes.delete(key);
      try {
        await write();
      } catch (err) {
        if (!this.#writes.has(key)) this.#writes.set(key, write);
        this.#failed(key, err);
        throw err;
      } finally {
        for (const resolve of this.#changed.splice(0)) resolve();
      }
    });
    return queue;
  }

  #failed(key: string, err: unknown): void {
    const log = isConflict(err) ? this.#log.debug.bind(this.#log) : this.#log.warn.bind(this.#log);
    log({ err, write: key }, 'a delivery status write failed; trying again');
  }
}
