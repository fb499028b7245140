// Typed reconcile failures, as in Flux: a stalled object needs a person (no retry until it
// changes); a waiting one is retried later. Anything else is an error retried with backoff.
import { PermanentError } from '../../lib/queue.ts';

export class StalledError extends PermanentError {
  override name = 'StalledError';
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(message);
    this.reason = reason;
  }
}

export class WaitingError extends Error {
  override name = 'WaitingError';
  readonly reason: string;
  readonly requeueAfterMs: number;
  constructor(reason: string, message: string, requeueAfterMs = 60_000) {
    super(message);
    this.reason = reason;
    this.requeueAfterMs = requeueAfterMs;
  }
}
