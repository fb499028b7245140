// Which of two bundles is newer: the ordering the operator (newest intent wins), the gateway
// (the latest manual bundle) and the CLI (history, rollback targets) all use.
import type { BundleObject } from '../crds/index.ts';
import { ANNOTATION_RECEIVED_AT } from '../crds/labels.ts';
import { timeMs } from './timestamps.ts';

type Ordered = Pick<BundleObject, 'metadata'>;

const ms = (t: string | Date | undefined | null): number | null => timeMs(t) ?? null;

/**
 * Arrival order: creation time first; then the gateway's millisecond `received-at` annotation
 * when both bundles carry one (creationTimestamp has whole seconds only); the name breaks ties.
 */
export function isNewer(a: Ordered, b: Ordered): boolean {
  const ta = ms(a.metadata.creationTimestamp) ?? 0;
  const tb = ms(b.metadata.creationTimestamp) ?? 0;
  if (ta !== tb) return ta > tb;
  const ra = ms(a.metadata.annotations?.[ANNOTATION_RECEIVED_AT]);
  const rb = ms(b.metadata.annotations?.[ANNOTATION_RECEIVED_AT]);
  if (ra !== null && rb !== null && ra !== rb) return ra > rb;
  return a.metadata.name > b.metadata.name;
}

/** The newest of `bundles`, or undefined for none. */
export function newest<T extends Ordered>(bundles: Iterable<T>): T | undefined {
  let best: T | undefined;
  for (const b of bundles) if (best === undefined || isNewer(b, best)) best = b;
  return best;
}

/** Newest first. */
export const newestFirst = (a: Ordered, b: Ordered): number => (isNewer(a, b) ? -1 : isNewer(b, a) ? 1 : 0);
