// Status writes made soon, once per key however often asked (a batch: the write reads what is
// owed when it runs), and tried again with back-off when they fail (a controller wrote first: 409;
// the API server away): 1 s doubling to a minute. flush() runs what waits, as on losing leadership.
import { isConflict } from '../../lib/kube.ts';
import type { Logger } from '../../lib/log.ts';
import type { QueueTimers } from '../../lib/queue.ts';

const MAX_RETRY_MS = 60_000;

export class LaterWrites {
  readonly #log: Logger;
  readonly #timers: QueueTimers;
  readonly #waiting = new Map<string, { handle: unknown; run: () => Promise<void> }>();
  readonly #running = new Set<Promise<void>>();
  #changed: Array<() => void> = [];

  constructor(log: Logger, timers: QueueTimers) {
    this.#log = log;
    this.#timers = timers;
  }

  /** Runs `write` after `ms`, unless a write of `key` waits already (it reads the latest then). */
  schedule(key: string, ms: number, write: () => Promise<void>, failures = 0): void {
    if (this.#waiting.has(key)) return;
    const run = () => {
      this.#waiting.delete(key);
      const running = write()
        .catch((err: unknown) => {
          const log = isConflict(err) ? this.#log.debug.bind(this.#log) : this.#log.warn.bind(this.#log);
          log({ err, write: key }, 'a delivery status write failed; trying again');
          this.schedule(key, Math.min(1000 * 2 ** failures, MAX_RETRY_MS), write, failures + 1);
        })
        .finally(() => {
          this.#running.delete(running);
          for (const resolve of this.#changed.splice(0)) resolve();
        });
      this.#running.add(running);
      return running;
    };
    this.#waiting.set(key, { handle: this.#timers.setTimeout(() => void run(), ms), run });
  }

  get pending(): number {
    return this.#waiting.size + this.#running.size;
  }

  /** Resolves when no write waits or runs (one tried again with back-off is waited for too). */
  async idle(): Promise<void> {
    while (this.pending > 0) await new Promise<void>((resolve) => this.#changed.push(resolve));
  }

  /** Runs every waiting write now, once (a failure is not tried again), and waits for them. */
  async flush(): Promise<void> {
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const { handle } of waiting) this.#timers.clearTimeout(handle);
    await Promise.allSettled(waiting.map(({ run }) => run()));
    for (const { handle } of this.#waiting.values()) this.#timers.clearTimeout(handle);
    this.#waiting.clear();
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }
}
