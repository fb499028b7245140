// What the operator wrote lately, by key, until its cache shows it — or until it is surely in the
// cache anyway. Entries of objects that are never looked at again (a finished bundle the
// controller skips, a deleted object) would otherwise stay for the life of the process: with
// thousands of bundles a day, that is the operator's heap growing until it is OOM-killed.
// The informer shows a write within about a second; an entry past `ttlMs` only guarded against
// announcing the same transition twice, so dropping it is safe.

export class RecentWrites<T> {
  readonly #ttlMs: number;
  readonly #entries = new Map<string, { value: T; at: number }>();
  #sweptAt = 0;

  constructor(ttlMs: number) {
    this.#ttlMs = ttlMs;
  }

  get(key: string, nowMs: number): T | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (nowMs - entry.at < this.#ttlMs) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  /** Remembers `value`; at most once per `ttlMs`, forgets every entry older than that. */
  set(key: string, value: T, nowMs: number): void {
    this.#entries.set(key, { value, at: nowMs });
    if (nowMs - this.#sweptAt < this.#ttlMs) return;
    this.#sweptAt = nowMs;
    for (const [k, e] of this.#entries) if (nowMs - e.at >= this.#ttlMs) this.#entries.delete(k);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
