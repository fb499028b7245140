// Waits between outbound tries that a stop cuts short: each resolves after its time, or at once
// when wakeAll() is called (a replica that lost its lease must not keep sleeping to send later).
export class Sleeps {
  readonly #pending = new Map<NodeJS.Timeout, () => void>();

  /** Resolves after `ms`, or at wakeAll(). */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#pending.delete(timer);
        resolve();
      }, ms);
      timer.unref?.();
      this.#pending.set(timer, resolve);
    });
  }

  wakeAll(): void {
    for (const [timer, wake] of this.#pending) {
      clearTimeout(timer);
      wake();
    }
    this.#pending.clear();
  }
}
