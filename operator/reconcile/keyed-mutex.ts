// Runs async sections one at a time per key. The work queue already serialises one object;
// this serialises decisions that span objects (one rollout per Deployment) within this
// process; leader election makes this process the only one.
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, section: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    try {
      return await section();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Runs `section` holding every key, taken in the order given (callers keep one order). */
  runAll<T>(keys: readonly string[], section: () => Promise<T>): Promise<T> {
    // A key given twice would wait for itself.
    const [first, ...rest] = [...new Set(keys)];
    if (first === undefined) return section();
    return this.run(first, () => this.runAll(rest, section));
  }
}
