// One controller = one kind, one work queue, one reconcile function. Informer events only say
// "look at this object again"; the reconcile reads current state, never the event type. What is
// waiting or stuck is not an exception: it is the object's status (Ready Unknown or False, with
// kstatus's Reconciling or Stalled; see status-writer.ts). A thrown error is retried with backoff.
import { objectKey } from '../../lib/informer.ts';
import { apiMessage, apiStatus, isConflict } from '../../lib/kube.ts';
import type { Logger } from '../../lib/log.ts';
import { WorkQueue, type HandlerResult } from '../../lib/queue.ts';
import { queueDepth, reconcileDuration, reconcileErrors, reconcileTotal } from '../metrics.ts';

export interface Reconciler {
  /** Returns when to look again (if ever); throws to be retried with backoff. */
  reconcile(namespace: string, name: string): Promise<HandlerResult | void>;
}

export class Controller {
  readonly name: string;
  private readonly queue: WorkQueue;
  private readonly reconciler: Reconciler;
  private readonly log: Logger;

  constructor(name: string, reconciler: Reconciler, workers: number, log: Logger) {
    this.name = name;
    this.reconciler = reconciler;
    this.log = log.child({ controller: name });
    this.queue = new WorkQueue({
      concurrency: workers,
      // New objects (addAhead) never wait for a worker that older work holds.
      reservedAhead: workers,
      backoffBaseMs: 500,
      backoffMaxMs: 5 * 60_000,
      onDepth: (depth) => queueDepth.set({ controller: name }, depth),
      onResult: (_key, outcome, ms) => {
        reconcileTotal.inc({ controller: name, result: outcome });
        reconcileDuration.observe({ controller: name }, ms / 1000);
        if (outcome === 'error') reconcileErrors.inc({ controller: name });
      },
    });
  }

  enqueue(namespace: string | undefined, name: string | undefined): void {
    if (!namespace || !name) return;
    this.queue.add(objectKey(namespace, name));
  }

  /** A new object nobody has looked at yet: handled before the keys enqueue() queued. */
  enqueueAhead(namespace: string | undefined, name: string | undefined): void {
    if (!namespace || !name) return;
    this.queue.addAhead(objectKey(namespace, name));
  }

  start(): void {
    this.queue.start((key) => this.handle(key));
  }

  async stop(): Promise<void> {
    await this.queue.shutdown();
  }

  /** Resolves when nothing is queued or running (for tests and benchmarks). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  private async handle(key: string): Promise<HandlerResult | void> {
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    try {
      return await this.reconciler.reconcile(namespace, name);
    } catch (err) {
      if (isConflict(err)) {
        // Someone wrote the object since our cache saw it: normal, retried with the newer version.
        this.log.info({ object: key, failures: this.queue.failuresOf(key) + 1 }, 'conflict; retrying');
        throw err;
      }
      this.log.warn(
        {
          object: key,
          err: apiMessage(err),
          status: apiStatus(err),
          failures: this.queue.failuresOf(key) + 1,
        },
        'reconcile failed',
      );
      throw err;
    }
  }
}
