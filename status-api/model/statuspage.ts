// Atlassian Statuspage's public v2 format, from the same snapshot as /api/v1: the one table that
// maps Slipway's states and notice types to Statuspage's words (docs/status-api.md lists it), and
// the objects of /api/v2/*.json. Tools that read Statuspage pages (widgets, exporters, chat bots)
// read a Slipway page unchanged.
//
// Ids are strings there: a component's or notice's id as a decimal string; an update's is
// `<notice id>-<its place, oldest first>`. General notices have no Statuspage counterpart and are
// left out; unplanned notices are incidents, planned ones scheduled maintenances.
import type { ComponentState, NoticeState } from '../../crds/index.ts';
import { noticeAt, type Notice, type NoticeAtTime } from '../../rules/notice-timeline.ts';
import { formatOptionalTime, formatTime } from '../../rules/timestamps.ts';
import { noticeUrl, serializePage } from './serialize.ts';
import type { ComponentEntry, StatusSnapshot } from './snapshot.ts';
import { componentUptime, percent, type Uptime } from './uptime.ts';

export type Indicator = 'none' | 'minor' | 'major' | 'critical' | 'maintenance';

/** The one table: Slipway's words → Statuspage's. */
export const STATUSPAGE_WORDS = {
  /** A component's state → its `status`. */
  componentStatus: {
    operational: 'operational',
    degraded: 'degraded_performance',
    'under-maintenance': 'under_maintenance',
  },
  /** The page's state (as /api/v1/status) → `status.indicator` and `status.description`. */
  pageStatus: {
    operational: { indicator: 'none', description: 'All Systems Operational' },
    degraded: { indicator: 'minor', description: 'Partially Degraded Service' },
    'under-maintenance': { indicator: 'maintenance', description: 'Service Under Maintenance' },
  },
  /** An unplanned notice's state → the incident's `status`. */
  incidentStatus: {
    investigating: 'investigating',
    identified: 'identified',
    recovering: 'monitoring',
    resolved: 'resolved',
    false_alarm: 'resolved',
  },
  /** A planned notice's state → the scheduled maintenance's `status`. */
  maintenanceStatus: {
    scheduled: 'scheduled',
    underway: 'in_progress',
    complete: 'completed',
    cancelled: 'completed',
  },
} as const satisfies {
  componentStatus: Record<ComponentState, string>;
  pageStatus: Record<ComponentState, { indicator: Indicator; description: string }>;
  incidentStatus: Record<string, string>;
  maintenanceStatus: Record<string, string>;
};

/** The most incidents or maintenances a list answers with, as Statuspage's. */
export const LIST_LIMIT = 50;

export interface PageV2 {
  id: string;
  name: string;
  url: string;
  time_zone: string;
  updated_at: string;
}

export interface ComponentV2 {
  id: string;
  name: string;
  status: string;
  created_at: string;
  updated_at: string;
  position: number;
  description: string | null;
  showcase: boolean;
  start_date: string | null;
  group_id: string | null;
  page_id: string;
  group: boolean;
  only_show_if_degraded: boolean;
  components?: string[];
  /** Slipway's addition: uptime over the last 90 days, in percent (/api/v1/components/:id has each day). */
  uptime_percent: number | null;
}

export interface IncidentUpdateV2 {
  id: string;
  status: string;
  body: string;
  incident_id: string;
  created_at: string;
  updated_at: string;
  display_at: string;
  affected_components: null;
}

export interface IncidentV2 {
  id: string;
  name: string;
  status: string;
  created_at: string;
  updated_at: string;
  monitoring_at: string | null;
  resolved_at: string | null;
  impact: 'none' | 'minor' | 'maintenance';
  shortlink: string;
  started_at: string;
  page_id: string;
  incident_updates: IncidentUpdateV2[];
  components: ComponentV2[];
  scheduled_for?: string | null;
  scheduled_until?: string | null;
}

/** An incident or maintenance before it is made into JSON: lists filter and cut these first. */
export interface NoticeEntry {
  notice: Notice;
  at: NoticeAtTime;
  /** Its Statuspage status. */
  status: string;
}

/** The snapshot's view at one moment, as every /api/v2 body needs it. */
export interface StatuspageView {
  page: PageV2;
  status: { indicator: Indicator; description: string };
  components: ComponentV2[];
  /** Newest first: unplanned notices that have begun. */
  incidents: NoticeEntry[];
  /** Newest first: planned notices. */
  maintenances: NoticeEntry[];
  /** The JSON of incidents or maintenances. */
  serialize(entries: readonly NoticeEntry[]): IncidentV2[];
}

export const isUnresolved = (incident: NoticeEntry) => incident.status !== 'resolved';
export const isUpcoming = (maintenance: NoticeEntry) => maintenance.status === 'scheduled';
export const isActive = (maintenance: NoticeEntry) =>
  maintenance.status === 'in_progress' || maintenance.status === 'verifying';

function componentV2(
  c: ComponentEntry,
  snapshot: StatusSnapshot,
  pageId: string,
  position: number,
  now: Date,
  own: Map<number, Uptime>,
): ComponentV2 {
  const children = snapshot.childrenByParentId.get(c.id) ?? [];
  return {
    id: String(c.id),
    name: c.name,
    status: STATUSPAGE_WORDS.componentStatus[c.state],
    created_at: formatTime(c.createdAt),
    updated_at: formatTime(c.updatedAt),
    position,
    description: c.description === '' ? null : c.description,
    showcase: true,
    start_date: null,
    group_id: c.parentId === null ? null : String(c.parentId),
    page_id: pageId,
    group: children.length > 0,
    only_show_if_degraded: false,
    ...(children.length > 0 ? { components: children.map((child) => String(child.id)) } : {}),
    uptime_percent: percent(componentUptime(snapshot, c, now, own).uptime),
  };
}

function statusOf(notice: Notice, state: NoticeState | undefined): string {
  const words: Record<string, string> =
    notice.type === 'planned' ? STATUSPAGE_WORDS.maintenanceStatus : STATUSPAGE_WORDS.incidentStatus;
  return words[state ?? ''] ?? (notice.type === 'planned' ? 'scheduled' : 'investigating');
}

/**
 * A notice's status now. A maintenance still `scheduled` follows its window, as /api/v1's
 * timeline does: in progress inside it, completed once it has passed.
 */
function currentStatus(notice: Notice, at: NoticeAtTime): string {
  const status = statusOf(notice, at.state);
  if (notice.type !== 'planned' || status !== 'scheduled') return status;
  if (at.timelineState === 'present') return 'in_progress';
  return at.timelineState === 'future' ? 'scheduled' : 'completed';
}

function incidentV2(
  { notice, at, status }: NoticeEntry,
  snapshot: StatusSnapshot,
  components: ReadonlyMap<number, ComponentV2>,
  pageId: string,
): IncidentV2 {
  const id = String(notice.id);
  const updates = notice.updates.slice(0, at.updateCount);
  const monitoring = updates.find((u) => u.state === 'recovering');
  const planned = notice.type === 'planned';
  return {
    id,
    name: notice.subject,
    status,
    created_at: formatTime(notice.createdAt),
    updated_at: formatTime(at.updatedAt),
    monitoring_at: formatOptionalTime(monitoring?.at ?? null),
    resolved_at: formatOptionalTime(at.endedAt),
    impact: planned ? 'maintenance' : at.state === 'false_alarm' ? 'none' : 'minor',
    shortlink: noticeUrl(snapshot.page?.url ?? null, notice.id),
    started_at: formatTime(at.beganAt ?? notice.beginsAt ?? notice.startsAt),
    page_id: pageId,
    incident_updates: updates
      .map((u, i) => {
        const time = formatTime(u.at);
        return {
          id: `${id}-${i + 1}`,
          status: statusOf(notice, u.state),
          body: u.content,
          incident_id: id,
          created_at: time,
          updated_at: time,
          display_at: time,
          affected_components: null,
        };
      })
      .reverse(),
    components: (snapshot.impactedComponents.get(notice.id) ?? []).flatMap((c) => {
      const v2 = components.get(c.id);
      return v2 ? [v2] : [];
    }),
    ...(planned
      ? {
          scheduled_for: formatOptionalTime(notice.beginsAt),
          scheduled_until: formatOptionalTime(notice.endsAt),
        }
      : {}),
  };
}

/** Everything /api/v2 shows at `now`; null without a StatusPage (as /api/v1/status). */
export function statuspageView(snapshot: StatusSnapshot, now: Date): StatuspageView | null {
  const v1 = serializePage(snapshot, now);
  if (v1 === null || snapshot.page === null) return null;
  const pageId = snapshot.page.objectName;
  // A group's uptime averages its parts': each part's own is computed once.
  const own = new Map<number, Uptime>();
  const components = snapshot.components.map((c, i) => componentV2(c, snapshot, pageId, i + 1, now, own));
  const byId = new Map(snapshot.components.map((c, i) => [c.id, components[i]!]));
  const incidents: NoticeEntry[] = [];
  const maintenances: NoticeEntry[] = [];
  for (const notice of snapshot.notices) {
    if (notice.type === 'general') continue;
    const at = noticeAt(notice, now);
    // An incident shows once it has begun; a maintenance as soon as it is scheduled.
    if (notice.type === 'unplanned' && at.beganAt === null) continue;
    const entry = { notice, at, status: currentStatus(notice, at) };
    (notice.type === 'planned' ? maintenances : incidents).push(entry);
  }
  return {
    page: {
      id: pageId,
      name: v1.name,
      url: v1.url,
      time_zone: 'Etc/UTC',
      updated_at: v1.updated_at,
    },
    status: { ...STATUSPAGE_WORDS.pageStatus[v1.state] },
    components,
    incidents,
    maintenances,
    serialize: (entries) => entries.map((entry) => incidentV2(entry, snapshot, byId, pageId)),
  };
}
