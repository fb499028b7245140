// Which webhooks took each object's latest change: kept in memory at once (so a lane never sends
// it again), then written into the object's status.announced.deliveredTo in one write for all
// the webhooks that took it within a moment (so a restart never sends it again either). Status
// writes that fail (a controller wrote first: 409; the API server away) are tried again with
// back-off; the StatusPage's own webhook status uses the same retries (retry()).
import type { OperatorContext } from '../context.ts';
import type { KindName } from '../../lib/kube.ts';
import { isConflict } from '../../lib/kube.ts';
import type { ObjectWithStatus } from '../reconcile/status-writer.ts';
import type { Announced } from './announce.ts';

/** Deliveries to one object within this long are recorded in one status write. */
const RECORD_AFTER_MS = 250;

/** What the records read of an object now: it and its record, or nothing when it is gone. */
export type CurrentRecord = (
  key: string,
) => { kind: KindName; object: ObjectWithStatus; announced: Announced; hooks: Set<string> } | undefined;

export class DeliveryRecords {
  readonly #ctx: Pick<OperatorContext, 'status' | 'log'>;
  readonly #current: CurrentRecord;
  /** By object key: the change (its `at`) and the webhooks that took it. */
  readonly #taken = new Map<string, { at: string; names: Set<string> }>();
  /** Status writes waiting: a short batch, or a retry after a failure. */
  readonly #writes = new Map<string, NodeJS.Timeout>();

  constructor(ctx: Pick<OperatorContext, 'status' | 'log'>, current: CurrentRecord) {
    this.#ctx = ctx;
    this.#current = current;
  }

  /** Whether `hook` took the change made at `at` (before status shows it). */
  took(key: string, at: string, hook: string): boolean {
    const taken = this.#taken.get(key);
    return taken?.at === at && taken.names.has(hook);
  }

  /** `hook` took the change made at `at`: remembered now, written shortly. */
  add(key: string, at: string, hook: string): void {
    let taken = this.#taken.get(key);
    if (taken?.at !== at) {
      taken = { at, names: new Set() };
      this.#taken.set(key, taken);
    }
    taken.names.add(hook);
    if (!this.#writes.has(key)) this.#later(key, RECORD_AFTER_MS, () => this.#record(key, 0));
  }

  /** A status write tried again later, with back-off (1 s, doubling up to a minute). */
  retry(key: string, failures: number, err: unknown, again: () => Promise<void>): void {
    const log = isConflict(err)
      ? this.#ctx.log.debug.bind(this.#ctx.log)
      : this.#ctx.log.warn.bind(this.#ctx.log);
    log({ err, object: key }, 'a status write for subscriber webhooks failed; trying again');
    if (!this.#writes.has(key)) this.#later(key, Math.min(1000 * 2 ** failures, 60_000), again);
  }

  #later(key: string, ms: number, run: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.#writes.delete(key);
      void run();
    }, ms);
    timer.unref?.();
    this.#writes.set(key, timer);
  }

  /** The webhooks that took the object's change, on the object: after a restart none is sent again. */
  async #record(key: string, failures: number): Promise<void> {
    const current = this.#current(key);
    const taken = this.#taken.get(key);
    if (!current || taken?.at !== current.announced.at) {
      // Gone, or replaced by a newer change (which starts with no webhooks).
      this.#taken.delete(key);
      return;
    }
    const { kind, object, announced, hooks } = current;
    const deliveredTo = [...new Set([...announced.deliveredTo, ...taken.names])]
      .filter((n) => hooks.has(n))
      .sort();
    if (deliveredTo.length === announced.deliveredTo.length) {
      this.#taken.delete(key);
      return;
    }
    try {
      await this.#ctx.status.write(
        kind,
        object,
        { fields: { announced: { ...announced, deliveredTo } }, conditions: [] },
        () => [],
      );
    } catch (err) {
      // Kept in memory meanwhile: nothing is sent again while the write waits.
      this.retry(key, failures, err, () => this.#record(key, failures + 1));
    }
  }
}
