// A notice as the API sees it, and what it looks like at a given moment.
//
// Rules (the spec leaves them open; these are ours):
// - Updates are ordered by `at`. An update dated after `now` is not in effect yet: it does not
//   count for state, began_at or ended_at, and it is not shown.
// - Each update carries the notice's state from then on: its own `state`, else the one before
//   it, starting from `scheduled` (planned) or `investigating` (unplanned). General notices
//   have no state.
// - unplanned: begins at its first update (or its creation when it has none); ends at the
//   update that moved it into resolved/false_alarm (the first of the final run of those
//   states, so a reopened incident is current again). future before it begins, present until
//   it ends, then past.
// - planned: the schedule decides unless the updates say otherwise. Complete or cancelled: past
//   from that update on (finished early, or called off). Underway: present, even before
//   beginsAt (started early) or after endsAt (overrunning), so the page keeps saying
//   under-maintenance while the work really goes on. Otherwise (scheduled): future before
//   beginsAt, present in the window, past after endsAt. began_at is the first update that put
//   it underway (or straight to complete); ended_at the update that finished it, so a window
//   that passed without any update has ended_at null.
// - general: present from beginsAt (else its first update, else its creation) until endsAt if
//   one is set, otherwise until it is deleted.
// - past_recent means the end lies at most 168 h before now.
import type { NoticeState, NoticeType, StatusNoticeObject } from '../crds/index.ts';
import { plannedStates, unplannedStates } from '../crds/status.ts';
import { createdAt, parseTime, updatedAt } from './timestamps.ts';

/** A notice that ended at most this long ago is `past_recent`; earlier ones are `past_distant`. */
export const RECENT_PAST_MS = 168 * 60 * 60 * 1000;

export const timelineStates = ['future', 'present', 'past_recent', 'past_distant'] as const;
export type TimelineState = (typeof timelineStates)[number];

const allowedStates: Record<NoticeType, ReadonlySet<NoticeState>> = {
  general: new Set(),
  planned: new Set(plannedStates),
  unplanned: new Set(unplannedStates),
};
const initialState: Record<NoticeType, NoticeState | undefined> = {
  general: undefined,
  planned: 'scheduled',
  unplanned: 'investigating',
};
const finishedStates: ReadonlySet<NoticeState | undefined> = new Set([
  'resolved',
  'false_alarm',
  'complete',
  'cancelled',
]);
const startedPlannedStates: ReadonlySet<NoticeState | undefined> = new Set(['underway', 'complete']);

export interface NoticeUpdate {
  at: number;
  content: string;
  /** The notice's state once this update is in effect; undefined for general notices. */
  state: NoticeState | undefined;
}

/** The clock-free facts of a notice, computed once per change of the resource. */
export interface Notice {
  id: number;
  /** metadata.name */
  objectName: string;
  type: NoticeType;
  subject: string;
  tags: readonly string[];
  componentNames: readonly string[];
  beginsAt: number | null;
  endsAt: number | null;
  createdAt: number;
  /** Creation or the last spec change, whichever is later. */
  changedAt: number;
  /** When the notice starts as far as its fields tell; also what "newest first" sorts by. */
  startsAt: number;
  /** Oldest first. */
  updates: readonly NoticeUpdate[];
  /** Per update: index where the run of finished states holding it starts, or -1. */
  finishedRunStart: readonly number[];
  /** Index of the first update that put a planned notice underway (or complete), or -1. */
  firstStartedIndex: number;
}

/** A notice at one moment: everything that depends on the clock. */
export interface NoticeAtTime {
  state: NoticeState | undefined;
  timelineState: TimelineState;
  beganAt: number | null;
  endedAt: number | null;
  /** How many updates are in effect: `notice.updates.slice(0, updateCount)`. */
  updateCount: number;
  latestUpdate: NoticeUpdate | undefined;
  updatedAt: number;
}

/** The notice the API shows for a resource; null while it has no id or is being deleted. */
export function noticeFromObject(obj: StatusNoticeObject): Notice | null {
  const id = obj.status?.id ?? obj.spec.id;
  if (id === undefined || obj.metadata.deletionTimestamp !== undefined) return null;
  const { type } = obj.spec;

  const dated = (obj.spec.updates ?? [])
    .map((u) => ({ at: parseTime(u.at), content: u.content, state: u.state }))
    .filter((u): u is { at: number; content: string; state: NoticeState | undefined } => u.at !== null)
    .sort((a, b) => a.at - b.at);
  let state = initialState[type];
  const updates: NoticeUpdate[] = dated.map((u) => {
    if (u.state !== undefined && allowedStates[type].has(u.state)) state = u.state;
    return { at: u.at, content: u.content, state };
  });

  const finishedRunStart: number[] = [];
  updates.forEach((u, i) => {
    const previous = i > 0 ? (finishedRunStart[i - 1] ?? -1) : -1;
    finishedRunStart.push(finishedStates.has(u.state) ? (previous >= 0 ? previous : i) : -1);
  });

  const created = createdAt(obj.metadata);
  const beginsAt = parseTime(obj.spec.beginsAt);
  const firstUpdateAt = updates[0]?.at ?? null;
  const startsAt = (type === 'unplanned' ? firstUpdateAt : (beginsAt ?? firstUpdateAt)) ?? created;

  return {
    id,
    objectName: obj.metadata.name,
    type,
    subject: obj.spec.subject,
    tags: obj.spec.tags ?? [],
    componentNames: (obj.spec.componentRefs ?? []).map((ref) => ref.name),
    beginsAt,
    endsAt: parseTime(obj.spec.endsAt),
    createdAt: created,
    changedAt: updatedAt(obj.metadata),
    startsAt,
    updates,
    finishedRunStart,
    firstStartedIndex: updates.findIndex((u) => type === 'planned' && startedPlannedStates.has(u.state)),
  };
}

/** How many updates (a prefix, oldest first) are in effect at `nowMs`. */
function updatesInEffect(notice: Notice, nowMs: number): number {
  let low = 0;
  let high = notice.updates.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((notice.updates[mid]?.at ?? Infinity) <= nowMs) low = mid + 1;
    else high = mid;
  }
  return low;
}

function pastState(endedAt: number, nowMs: number): TimelineState {
  return nowMs - endedAt <= RECENT_PAST_MS ? 'past_recent' : 'past_distant';
}

/** Where `nowMs` falls against the notice's start and its endsAt (when it has one). */
function windowState(notice: Notice, nowMs: number): TimelineState {
  if (nowMs < notice.startsAt) return 'future';
  if (notice.endsAt !== null && nowMs >= notice.endsAt) return pastState(notice.endsAt, nowMs);
  return 'present';
}

export function noticeAt(notice: Notice, now: Date): NoticeAtTime {
  const nowMs = now.getTime();
  const count = updatesInEffect(notice, nowMs);
  const latest = count > 0 ? notice.updates[count - 1] : undefined;
  const state = latest ? latest.state : initialState[notice.type];
  const runStart = count > 0 ? (notice.finishedRunStart[count - 1] ?? -1) : -1;
  const endedAt = runStart >= 0 ? (notice.updates[runStart]?.at ?? null) : null;

  let beganAt: number | null = null;
  let timelineState: TimelineState;
  if (notice.type === 'unplanned') {
    beganAt = notice.startsAt <= nowMs ? notice.startsAt : null;
    if (beganAt === null) timelineState = 'future';
    else timelineState = endedAt === null ? 'present' : pastState(endedAt, nowMs);
  } else if (notice.type === 'planned') {
    const started = notice.firstStartedIndex;
    beganAt = started >= 0 && started < count ? (notice.updates[started]?.at ?? null) : null;
    if (endedAt !== null) timelineState = pastState(endedAt, nowMs);
    else if (state === 'underway') timelineState = 'present';
    else timelineState = windowState(notice, nowMs);
  } else {
    timelineState = windowState(notice, nowMs);
  }

  return {
    state,
    timelineState,
    beganAt,
    endedAt: notice.type === 'general' ? null : endedAt,
    updateCount: count,
    latestUpdate: latest,
    updatedAt: Math.max(notice.changedAt, latest?.at ?? 0),
  };
}

/**
 * Every instant at which `noticeAt(notice, t)` can change: an update coming into effect, the
 * scheduled window's edges, and a week after each of those (past_recent turning past_distant).
 * Between two neighbouring instants everything the API shows of the notice stays the same.
 */
export function noticeTimeBoundaries(notice: Notice): number[] {
  const edges = [notice.startsAt, ...notice.updates.map((u) => u.at)];
  if (notice.beginsAt !== null) edges.push(notice.beginsAt);
  if (notice.endsAt !== null) edges.push(notice.endsAt);
  return edges.flatMap((t) => [t, t + RECENT_PAST_MS + 1]);
}

export function timelineState(notice: Notice, now: Date): TimelineState {
  return noticeAt(notice, now).timelineState;
}

/** The state of the newest update in effect that carries one, else the type's default. */
export function noticeState(notice: Notice, now: Date): NoticeState | undefined {
  return noticeAt(notice, now).state;
}

/** A notice's public address: its page on the human-readable status page. */
export function noticeUrl(pageUrl: string | null, id: number): string {
  return `${(pageUrl ?? '').replace(/\/+$/, '')}/notices/${id}`;
}
