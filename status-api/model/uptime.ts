// How each component did over the last 90 days, derived from the notices that affected it (its
// own and its descendants'), day by day in UTC (pure):
//   degraded     an unplanned notice ran: from its start to its end (now while it is open); a
//                false alarm counts for nothing
//   maintenance  a planned notice was underway: from the update that started it to the one that
//                finished it (now while it is underway); counted apart, not as downtime
//   uptime       of the time the component existed that day, outside maintenance, the share
//                not degraded; null for a day before it existed (its creation, or the first
//                notice about it if earlier) or spent wholly in maintenance
import { noticeAt, type Notice } from '../../rules/notice-timeline.ts';
import type { ComponentEntry, StatusSnapshot } from './snapshot.ts';

export const UPTIME_DAYS = 90;

/** A fraction as a percentage with three decimals (99.953), or null. */
export const percent = (fraction: number | null): number | null =>
  fraction === null ? null : Math.round(fraction * 100_000) / 1000;
const DAY_MS = 86_400_000;

export interface UptimeDay {
  /** The UTC day, YYYY-MM-DD. */
  date: string;
  uptime: number | null;
  degradedSeconds: number;
  maintenanceSeconds: number;
  /** The notices behind that day's figures, by id. */
  noticeIds: number[];
}

export interface Uptime {
  /** Oldest first; the last is today, up to now. */
  days: UptimeDay[];
  /** Over all the days, weighted by time. */
  uptime: number | null;
}

type Interval = [from: number, to: number, noticeId: number];

/** What the notice contributes: a degraded or maintenance interval, if any, at `now`. */
function intervalOf(
  notice: Notice,
  now: Date,
): { kind: 'degraded' | 'maintenance'; interval: Interval } | null {
  if (notice.type === 'general') return null;
  const at = noticeAt(notice, now);
  if (at.beganAt === null) return null;
  const nowMs = now.getTime();
  if (notice.type === 'unplanned') {
    if (at.state === 'false_alarm') return null;
    return { kind: 'degraded', interval: [at.beganAt, at.endedAt ?? nowMs, notice.id] };
  }
  const end = at.endedAt ?? (at.state === 'underway' ? nowMs : at.beganAt);
  return { kind: 'maintenance', interval: [at.beganAt, end, notice.id] };
}

/** Total length of the union of `intervals` within [from, to). */
function covered(intervals: readonly Interval[], from: number, to: number): number {
  const clipped = intervals
    .map(([a, b]) => [Math.max(a, from), Math.min(b, to)] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let total = 0;
  let end = -Infinity;
  for (const [a, b] of clipped) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}

/** `intervals` minus `holes`, as intervals (for degraded time outside maintenance). */
function without(intervals: readonly Interval[], holes: readonly Interval[]): Interval[] {
  let pieces = [...intervals];
  for (const [ha, hb] of holes)
    pieces = pieces.flatMap(([a, b, id]): Interval[] => {
      if (hb <= a || ha >= b) return [[a, b, id]];
      const out: Interval[] = [];
      if (ha > a) out.push([a, ha, id]);
      if (hb < b) out.push([hb, b, id]);
      return out;
    });
  return pieces;
}

/** The component and everything under it (a parentRef cycle cannot loop it). */
function family(snapshot: StatusSnapshot, component: ComponentEntry): ComponentEntry[] {
  const seen = new Set<number>([component.id]);
  const all = [component];
  for (let i = 0; i < all.length; i += 1)
    for (const child of snapshot.childrenByParentId.get(all[i]!.id) ?? [])
      if (!seen.has(child.id)) {
        seen.add(child.id);
        all.push(child);
      }
  return all;
}

export function componentUptime(snapshot: StatusSnapshot, component: ComponentEntry, now: Date): Uptime {
  const notices = new Map<number, Notice>();
  for (const c of family(snapshot, component))
    for (const notice of snapshot.noticesByComponentId.get(c.id) ?? []) notices.set(notice.id, notice);
  const degraded: Interval[] = [];
  const maintenance: Interval[] = [];
  for (const notice of notices.values()) {
    const part = intervalOf(notice, now);
    if (part) (part.kind === 'degraded' ? degraded : maintenance).push(part.interval);
  }
  const down = without(degraded, maintenance);
  // It existed from its creation, or from the first notice about it if that is earlier (a
  // component added to the page after an incident it was part of).
  const since = Math.min(component.createdAt, ...[...degraded, ...maintenance].map(([from]) => from));
  const nowMs = now.getTime();
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const days: UptimeDay[] = [];
  let counted = 0;
  let up = 0;
  for (let i = UPTIME_DAYS - 1; i >= 0; i -= 1) {
    const start = today - i * DAY_MS;
    const from = Math.max(start, since);
    const to = Math.min(start + DAY_MS, nowMs);
    const observed = Math.max(0, to - from);
    const maintained = observed > 0 ? covered(maintenance, from, to) : 0;
    const lost = observed > 0 ? covered(down, from, to) : 0;
    const open = observed - maintained;
    const touching = [...degraded, ...maintenance]
      .filter(([a, b]) => a < start + DAY_MS && b > start && b > a)
      .map(([, , id]) => id);
    days.push({
      date: new Date(start).toISOString().slice(0, 10),
      uptime: open > 0 ? (open - lost) / open : null,
      degradedSeconds: Math.round(lost / 1000),
      maintenanceSeconds: Math.round(maintained / 1000),
      noticeIds: [...new Set(touching)].sort((a, b) => b - a),
    });
    counted += Math.max(0, open);
    up += Math.max(0, open - lost);
  }
  return { days, uptime: counted > 0 ? up / counted : null };
}
