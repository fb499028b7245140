// A subscriber webhook's lane (sender.ts): the changes it is still owed, and its back-off
// (pure): a failed round waits 1 min doubling to 1 h, every 6 h after a failing day.
import { FAILING_LONG_MS, type WebhookHealth } from './webhook-health.ts';

const FIRST_DELAY_MS = 60_000;
const MAX_DELAY_MS = 3600_000;
const LONG_DELAY_MS = 6 * 3600_000;
/** status.webhooks[].deliveredAt is brought up to date at most this often. */
const DELIVERED_AT_EVERY_MS = 10 * 60_000;

export interface Lane extends WebhookHealth {
  namespace: string;
  name: string;
  /** `<kind>/<object name>` of the changes this webhook is still owed. */
  pending: Set<string>;
  running: boolean;
  retryAt: number;
  timer?: NodeJS.Timeout;
  failures: number;
}

/** The lane took a change (or is owed nothing): whether the StatusPage has something new to show. */
export function laneDelivered(lane: Lane, now: number): boolean {
  const recovered = lane.failingSince !== undefined;
  lane.failures = 0;
  lane.retryAt = 0;
  lane.failingSince = undefined;
  lane.problem = undefined;
  const stale = lane.deliveredAt === undefined || now - lane.deliveredAt >= DELIVERED_AT_EVERY_MS;
  if (stale) lane.deliveredAt = now;
  return recovered || stale;
}

/** A round failed: records why and when it is tried again; returns the delay. */
export function laneFailed(lane: Lane, problem: NonNullable<Lane['problem']>, now: number): number {
  lane.failures += 1;
  lane.failingSince ??= now;
  lane.problem = problem;
  const long = now - lane.failingSince >= FAILING_LONG_MS;
  const delay = long ? LONG_DELAY_MS : Math.min(FIRST_DELAY_MS * 2 ** (lane.failures - 1), MAX_DELAY_MS);
  lane.retryAt = now + delay;
  return delay;
}
