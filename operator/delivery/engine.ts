// The delivery engine: the one way anything leaves the cluster for the outside world (commit
// statuses, provider deployments, notifications, status page subscribers). Sinks (sink.ts) say
// what triggers them, what each lane is owed and where receipts and health go; the engine does
// the rest, once:
// - one work queue (lib/queue.ts): a lane is handled by one worker at a time, never twice at once,
//   and one namespace's lanes take at most half the workers (receivers that hang cannot take all);
// - one try per turn: a delivery that is to be tried again (Retry-After, 429, 5xx, a timeout) goes
//   back on the queue for its time and frees its worker, so one namespace's slow receiver never
//   delays another's deliveries; after `attemptsPerRound` tries (or a refusal) the round fails
//   and the lane waits 1 min, doubling to 1 h, every 6 h after a failing day (retry.ts);
// - receipts kept at once in memory and written in batches (receipts.ts);
// - leadership terms: stop() drops what waits, lets the tries in flight end and writes their
//   receipts; resume() starts a new term once the last one has ended;
// - health per lane, handed to the sink to show; failures logged; results counted.
import type { Logger } from '../../lib/log.ts';
import { WorkQueue, realTimers, type QueueTimers } from '../../lib/queue.ts';
import { attempt } from './attempt.ts';
import { LaterWrites } from './later-writes.ts';
import { ReceiptStore } from './receipts.ts';
import { ATTEMPTS_PER_ROUND, roundDelayMs } from './retry.ts';
import {
  isDelivery,
  type Delivery,
  type EngineHandle,
  type LaneHealth,
  type Next,
  type Sink,
} from './sink.ts';

/** Lanes handled at the same time (each lane once at a time). */
const WORKERS = 8;
/** Of those, at most this many for one namespace: receivers that hang cannot take every worker. */
const PER_NAMESPACE = 4;
/** Health's deliveredAt is brought up to date at most this often. */
const DELIVERED_AT_EVERY_MS = 10 * 60_000;

interface LaneState extends LaneHealth {
  /** Tries of the current delivery so far. */
  attempt: number;
  /** Waiting for the next try of a delivery within its round. */
  retrying: boolean;
  /** Not handled before this (queue clock): a try's wait, or a failed round's back-off. */
  notBefore: number;
}

export interface DeliveryEngineOptions {
  log: Logger;
  /** The operator's clock: health times, receipts' age. */
  now: () => Date;
  fetch: typeof fetch;
  /** The queue's clock and timers (tests run it on a fake clock). */
  timers?: QueueTimers;
  workers?: number;
}

export class DeliveryEngine {
  readonly #sinks = new Map<string, Sink>();
  readonly #log: Logger;
  readonly #now: () => Date;
  readonly #fetch: typeof fetch;
  readonly #timers: QueueTimers;
  readonly #workers: number;
  readonly #writes: LaterWrites;
  readonly #receipts: ReceiptStore;
  readonly #lanes = new Map<string, LaneState>();
  #queue: WorkQueue | undefined;
  #term = 0;
  /** The start of the current term (after the last one has ended). */
  #resuming: Promise<void> = Promise.resolve();
  /** The end of the last term: its tries in flight and their receipts. */
  #stopping: Promise<void> = Promise.resolve();
  #roundEnded: Array<() => void> = [];

  constructor(sinks: readonly Sink[], options: DeliveryEngineOptions) {
    this.#log = options.log;
    this.#now = options.now;
    this.#fetch = options.fetch;
    this.#timers = options.timers ?? realTimers;
    this.#workers = options.workers ?? WORKERS;
    this.#writes = new LaterWrites(options.log, this.#timers);
    this.#receipts = new ReceiptStore(
      sinks.flatMap((s) => s.books),
      this.#writes,
      () => this.#now().getTime(),
    );
    for (const sink of sinks) {
      if (sink.name.includes('|')) throw new Error(`a sink's name has no |: ${sink.name}`);
      this.#sinks.set(sink.name, sink);
      sink.attach(this.#handle(sink));
    }
  }

  /** Starts a term (as after gaining leadership), once the last one has ended. */
  resume(): void {
    const term = ++this.#term;
    this.#resuming = this.#stopping.then(() => {
      if (term !== this.#term) return;
      this.#writes.reopen();
      const queue = new WorkQueue({
        concurrency: this.#workers,
        timers: this.#timers,
        // A lane's namespace is its first part.
        groupOf: (key) => {
          const from = key.indexOf('|') + 1;
          const to = key.indexOf('/', from);
          return key.slice(from, to < 0 ? undefined : to);
        },
        perGroup: Math.max(1, Math.min(PER_NAMESPACE, Math.ceil(this.#workers / 2))),
      });
      this.#queue = queue;
      queue.start((key) => this.#round(key, term));
      for (const sink of this.#sinks.values()) sink.resume();
    });
  }

  /** Ends the term: nothing queued survives (the next leader reads the receipts in status). */
  stop(): Promise<void> {
    this.#term += 1;
    const queue = this.#queue;
    this.#queue = undefined;
    this.#lanes.clear();
    for (const sink of this.#sinks.values()) sink.reset?.();
    // After the last stop: a lane is never handled by two terms' queues at once.
    this.#stopping = this.#stopping.then(async () => {
      await queue?.shutdown();
      // The receipts of what was sent are written; the sinks' own writes (health) are not.
      await this.#writes.close();
      this.#receipts.clear();
    });
    for (const resolve of this.#roundEnded.splice(0)) resolve();
    return this.#stopping;
  }

  /** Resolves when no lane is queued, handled or waiting for a try within its round (tests). */
  async idle(): Promise<void> {
    await this.#resuming;
    for (;;) {
      const queue = this.#queue;
      if (!queue) return this.#stopping;
      await queue.idle();
      await this.#writes.idle();
      // More came meanwhile (a write's informer event owed a lane): look again.
      if (this.#queue !== queue || queue.depth > 0 || queue.active > 0) continue;
      if (![...this.#lanes.values()].some((s) => s.retrying)) return;
      await new Promise<void>((resolve) => this.#roundEnded.push(resolve));
    }
  }

  #handle(sink: Sink): EngineHandle {
    return {
      active: () => this.#queue !== undefined,
      owe: (lane, options) => this.#owe(sink, lane, options?.now ?? false),
      forget: (lane) => this.#lanes.delete(keyOf(sink, lane)),
      health: (lane) => this.#lanes.get(keyOf(sink, lane)),
      receipts: (book, subject) => this.#receipts.of(book, subject),
      writeSoon: (key, write) => {
        if (this.#queue)
          this.#writes.schedule(`${sink.name}|${key}`, 0, async () => (this.#queue ? write() : undefined));
      },
    };
  }

  #owe(sink: Sink, lane: string, now: boolean): void {
    const queue = this.#queue;
    if (!queue) return;
    const key = keyOf(sink, lane);
    const state = this.#lanes.get(key);
    // Something new to tell ends a failed round's back-off, not the wait a receiver asked for.
    if (state && now && !state.retrying) state.notBefore = 0;
    // Waiting for its time: the turn it has booked reads what it is owed then.
    if (state && state.notBefore > this.#timers.now()) return;
    queue.add(key);
  }

  #state(key: string, sink: Sink, lane: string): LaneState {
    let state = this.#lanes.get(key);
    if (!state) {
      state = { failures: 0, ...sink.shownHealth?.(lane), attempt: 0, retrying: false, notBefore: 0 };
      this.#lanes.set(key, state);
    }
    return state;
  }

  /** One turn of a lane: its deliveries in order, until one is to be tried later or fails. */
  async #round(key: string, term: number): Promise<void> {
    try {
      await this.#turn(key, term);
    } finally {
      for (const resolve of this.#roundEnded.splice(0)) resolve();
    }
  }

  async #turn(key: string, term: number): Promise<void> {
    const cut = key.indexOf('|');
    const sink = this.#sinks.get(key.slice(0, cut))!;
    const lane = key.slice(cut + 1);
    const state = this.#state(key, sink, lane);
    const early = state.notBefore - this.#timers.now();
    if (early > 0) {
      this.#queue?.addAfter(key, early);
      return;
    }
    const sent: Delivery[] = [];
    for (;;) {
      let next: Next;
      try {
        next = await sink.next(lane);
      } catch (err) {
        // The API server cannot be reached now: the round fails and is tried again later.
        next = { reason: sink.failedReason, message: `${sink.name} ${lane}: ${(err as Error).message}` };
      }
      if (term !== this.#term) return;
      if (!next) break;
      if (!isDelivery(next)) return this.#failed(key, sink, lane, state, next);
      state.attempt += 1;
      const result = await attempt(next.request, {
        fetch: this.#fetch,
        secrets: next.secrets,
        attempt: state.attempt,
        now: Date.now(),
        readsAnswer: next.remoteId !== undefined,
        ...(next.alreadyDone ? { alreadyDone: next.alreadyDone } : {}),
      });
      const remoteId = result.ok ? next.remoteId?.(result.answer) : undefined;
      if (result.ok && (!next.remoteId || remoteId)) {
        // Taken, even if the term has ended meanwhile: kept, so it is never sent again.
        const { book, subject, id, value } = next.receipt;
        this.#receipts.took(book, subject, id, { value, remoteId });
        if (term !== this.#term) return;
        sink.count(next.labels, 'accepted');
        sent.push(next);
        state.attempt = 0;
        state.retrying = false;
        continue;
      }
      if (term !== this.#term) return;
      if (!result.ok && !result.refused && state.attempt < (sink.attemptsPerRound ?? ATTEMPTS_PER_ROUND)) {
        // Back on the queue for its time: the worker is free for others meanwhile.
        state.retrying = true;
        state.notBefore = this.#timers.now() + result.retryInMs;
        this.#queue?.addAfter(key, result.retryInMs);
        return;
      }
      const refused = result.ok || result.refused;
      sink.count(next.labels, refused ? 'refused' : 'failed');
      const why = result.ok
        ? 'its answer named no id of what it made'
        : `${result.problem}${refused ? '' : ` (after ${state.attempt} attempts)`}`;
      return this.#failed(key, sink, lane, state, {
        reason: sink.failedReason,
        message: `${next.refusal}: ${why}`,
      });
    }
    await this.#delivered(key, sink, lane, state, sent);
  }

  async #delivered(key: string, sink: Sink, lane: string, state: LaneState, sent: Delivery[]): Promise<void> {
    const recovered = state.failingSince !== undefined;
    Object.assign(state, { attempt: 0, retrying: false, notBefore: 0, failures: 0 });
    delete state.failingSince;
    delete state.problem;
    const now = this.#now().getTime();
    if (
      sent.length > 0 &&
      (state.deliveredAt === undefined || now - state.deliveredAt >= DELIVERED_AT_EVERY_MS)
    )
      state.deliveredAt = now;
    if (!sink.keepsHealth || (state.deliveredAt === undefined && !recovered)) this.#lanes.delete(key);
    if (sent.length > 0 || recovered) await sink.settled(lane, { ok: true, sent });
  }

  async #failed(
    key: string,
    sink: Sink,
    lane: string,
    state: LaneState,
    problem: { reason: string; message: string },
  ): Promise<void> {
    const now = this.#now().getTime();
    state.attempt = 0;
    state.retrying = false;
    state.failures += 1;
    state.failingSince ??= now;
    state.problem = problem;
    if (sink.expired?.(lane)) {
      this.#lanes.delete(key);
      this.#log.warn({ sink: sink.name, lane }, `${problem.message}; not tried again`);
    } else {
      const delay = roundDelayMs(state.failures, now - state.failingSince);
      state.notBefore = this.#timers.now() + delay;
      this.#queue?.addAfter(key, delay);
      this.#log.warn({ sink: sink.name, lane, retryInSeconds: Math.round(delay / 1000) }, problem.message);
    }
    await sink.settled(lane, { ok: false, problem });
  }
}

const keyOf = (sink: Sink, lane: string) => `${sink.name}|${lane}`;
