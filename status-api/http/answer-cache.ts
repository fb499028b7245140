// Answers are pure functions of (snapshot, query, clock), and the clock only matters at the
// instants where some notice changes (model/snapshot.ts timeSlice). So an answer is computed
// once per snapshot, time slice and URL — serialised to bytes and tagged once too — and served
// from memory until either moves on.
import type { ApiError } from '../errors.ts';
import type { EndpointResult } from '../endpoints.ts';
import { prepareJson, type PreparedJson } from './respond.ts';
import { timeSlice, type StatusSnapshot } from '../model/snapshot.ts';
import { MAX_CACHED_ANSWERS } from '../limits.ts';

export type PreparedAnswer = { ok: true; body: PreparedJson } | { ok: false; error: ApiError };

function prepare(result: EndpointResult): PreparedAnswer {
  return result.ok ? { ok: true, body: prepareJson(result.body) } : result;
}

export class AnswerCache {
  #snapshot: StatusSnapshot | null = null;
  #from = 0;
  #until = 0;
  readonly #answers = new Map<string, PreparedAnswer>();

  answer(
    snapshot: StatusSnapshot,
    nowMs: number,
    url: string,
    compute: () => EndpointResult,
  ): PreparedAnswer {
    if (snapshot !== this.#snapshot || nowMs < this.#from || nowMs >= this.#until) {
      const slice = timeSlice(snapshot, nowMs);
      this.#snapshot = snapshot;
      this.#from = slice.from;
      this.#until = slice.until;
      this.#answers.clear();
    }
    let result = this.#answers.get(url);
    if (result === undefined) {
      result = prepare(compute());
      // Bounded: a client inventing URLs gets computed answers, not unbounded memory.
      if (this.#answers.size < MAX_CACHED_ANSWERS) this.#answers.set(url, result);
    }
    return result;
  }
}
