// Answers are pure functions of (snapshot, query, clock), and the clock only matters at the
// instants where some notice changes (model/snapshot.ts timeSlice). So an answer is computed
// once per snapshot, time slice and URL — serialised to bytes and tagged once too — and served
// from memory until either moves on.
import type { ApiError } from '../errors.ts';
import type { EndpointResult } from '../endpoints.ts';
import { prepareJson, type Prepared } from './respond.ts';
import { timeSlice, type StatusSnapshot } from '../model/snapshot.ts';
import { MAX_CACHED_ANSWERS } from '../limits.ts';

export type PreparedAnswer = { ok: true; body: Prepared } | { ok: false; error: ApiError };

export function prepareAnswer(result: EndpointResult, compressible = false): PreparedAnswer {
  return result.ok ? { ok: true, body: prepareJson(result.body, compressible) } : result;
}

export interface AnswerCacheOptions {
  /**
   * Also compute answers again every so many milliseconds: for answers that show the clock in a
   * way the time slices do not capture (the pages' "3 hours ago").
   */
  refreshMs?: number;
}

export class AnswerCache {
  #snapshot: StatusSnapshot | null = null;
  #from = 0;
  #until = 0;
  readonly #answers = new Map<string, PreparedAnswer>();
  /** Request URLs (path and query as sent) whose answer is in #answers: the server's fast lane. */
  readonly #byUrl = new Map<string, PreparedAnswer>();
  readonly #refreshMs: number | undefined;

  constructor(options: AnswerCacheOptions = {}) {
    this.#refreshMs = options.refreshMs;
  }

  /**
   * The answer under `key` for this snapshot and time, computed once. `url`, the request's own
   * path and query, is remembered with it, so the same request is found by urlAnswer() without
   * routing it again.
   */
  answer(
    snapshot: StatusSnapshot,
    nowMs: number,
    key: string,
    compute: () => PreparedAnswer,
    url: string = key,
  ): PreparedAnswer {
    this.#moveTo(snapshot, nowMs);
    let result = this.#answers.get(key);
    if (result === undefined) {
      result = compute();
      // Bounded: a client inventing URLs gets computed answers, not unbounded memory.
      if (this.#answers.size < MAX_CACHED_ANSWERS) this.#answers.set(key, result);
    }
    if (this.#byUrl.size < MAX_CACHED_ANSWERS && this.#answers.get(key) === result)
      this.#byUrl.set(url, result);
    return result;
  }

  /** The answer already made for this exact request URL, snapshot and time; never computes. */
  urlAnswer(snapshot: StatusSnapshot, nowMs: number, url: string): PreparedAnswer | undefined {
    this.#moveTo(snapshot, nowMs);
    return this.#byUrl.get(url);
  }

  /** Forgets every answer when the snapshot or the time slice (or the refresh period) moves on. */
  #moveTo(snapshot: StatusSnapshot, nowMs: number): void {
    if (snapshot === this.#snapshot && nowMs >= this.#from && nowMs < this.#until) return;
    const slice = timeSlice(snapshot, nowMs);
    this.#snapshot = snapshot;
    this.#from = slice.from;
    this.#until = slice.until;
    if (this.#refreshMs !== undefined) {
      const start = nowMs - (nowMs % this.#refreshMs);
      this.#from = Math.max(this.#from, start);
      this.#until = Math.min(this.#until, start + this.#refreshMs);
    }
    this.#answers.clear();
    this.#byUrl.clear();
  }
}
