// How each component did over the last 90 days, derived from the notices that affected it, day
// by day in UTC (pure); a component with components under it averages theirs with its own:
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

/** The union of `intervals` as sorted, disjoint [from, to) pairs. */
function merged(intervals: readonly Interval[]): Array<[number, number]> {
  const sorted = intervals.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  const out: Array<[number, number]> = [];
  for (const [a, b] of sorted) {
    const last = out.at(-1);
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** Total length of `union` (sorted, disjoint) within [from, to). */
function covered(union: ReadonlyArray<[number, number]>, from: number, to: number): number {
  let total = 0;
  for (const [a, b] of union) {
    if (a >= to) break;
    if (b > from) total += Math.min(b, to) - Math.max(a, from);
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

/**
 * A component's uptime. One with components under it shows theirs averaged with its own, day by
 * day, as Statuspage's groups do (one part down is not the whole group down); its degraded and
 * maintenance times are the longest of any part's, its notices all of theirs.
 */
export function componentUptime(
  snapshot: StatusSnapshot,
  component: ComponentEntry,
  now: Date,
  /** Each component's own uptime, by id, shared by calls for the same moment (every component). */
  own: Map<number, Uptime> = new Map(),
): Uptime {
  const ownOf = (c: ComponentEntry): Uptime => {
    let uptime = own.get(c.id);
    if (!uptime) own.set(c.id, (uptime = ownUptime(snapshot, c, now)));
    return uptime;
  };
  const members = family(snapshot, component);
  if (members.length === 1) return ownOf(component);
  const all = members.map(ownOf);
  const mean = (values: Array<number | null>): number | null => {
    const known = values.filter((v): v is number => v !== null);
    return known.length > 0 ? known.reduce((a, b) => a + b, 0) / known.length : null;
  };
  return {
    days: all[0]!.days.map((day, i) => ({
      date: day.date,
      uptime: mean(all.map((u) => u.days[i]!.uptime)),
      degradedSeconds: Math.max(...all.map((u) => u.days[i]!.degradedSeconds)),
      maintenanceSeconds: Math.max(...all.map((u) => u.days[i]!.maintenanceSeconds)),
      noticeIds: [...new Set(all.flatMap((u) => u.days[i]!.noticeIds))].sort((a, b) => b - a),
    })),
    uptime: mean(all.map((u) => u.uptime)),
  };
}

/** The uptime of a component from the notices that name it. */
function ownUptime(snapshot: StatusSnapshot, component: ComponentEntry, now: Date): Uptime {
  const notices = snapshot.noticesByComponentId.get(component.id) ?? [];
  const degraded: Interval[] = [];
  const maintenance: Interval[] = [];
  for (const notice of notices) {
    const part = intervalOf(notice, now);
    if (part) (part.kind === 'degraded' ? degraded : maintenance).push(part.interval);
  }
  const down = merged(without(degraded, maintenance));
  const maintained = merged(maintenance);
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
    const inMaintenance = observed > 0 ? covered(maintained, from, to) : 0;
    const lost = observed > 0 ? covered(down, from, to) : 0;
    const open = observed - inMaintenance;
    const touching = [...degraded, ...maintenance]
      .filter(([a, b]) => a < start + DAY_MS && b > start && b > a)
      .map(([, , id]) => id);
    days.push({
      date: new Date(start).toISOString().slice(0, 10),
      uptime: open > 0 ? (open - lost) / open : null,
      degradedSeconds: Math.round(lost / 1000),
      maintenanceSeconds: Math.round(inMaintenance / 1000),
      noticeIds: [...new Set(touching)].sort((a, b) => b - a),
    });
    counted += Math.max(0, open);
    up += Math.max(0, open - lost);
  }
  return { days, uptime: counted > 0 ? up / counted : null };
}
