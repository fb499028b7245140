// Atlassian Statuspage's words and shapes, shared by the status API's /api/v2 (its public JSON)
// and the operator's subscriber webhooks (its webhook payloads): the one table that maps
// Slipway's states and notice types to Statuspage's (docs/status-api.md lists it), and the
// component and incident objects both send.
//
// Ids are strings there: a component's or notice's id as a decimal string; an update's is
// `<notice id>-<its place, oldest first>`. General notices have no Statuspage counterpart;
// unplanned notices are incidents, planned ones scheduled maintenances.
import type { ComponentState, NoticeState } from '../crds/index.ts';
import type { Notice, NoticeAtTime } from './notice-timeline.ts';
import type { PageState } from './page-state.ts';
import { formatOptionalTime, formatTime } from './timestamps.ts';

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
  pageStatus: Record<PageState, { indicator: Indicator; description: string }>;
  incidentStatus: Record<string, string>;
  maintenanceStatus: Record<string, string>;
};

/** What a component object must give for its Statuspage shape. */
export interface ComponentFacts {
  id: number;
  name: string;
  description: string;
  state: ComponentState;
  /** The parent's id; null for a top-level component. */
  parentId: number | null;
  createdAt: number;
  updatedAt: number;
}

/** A component as Statuspage shows it (the status API adds its group and uptime). */
export function componentCore(c: ComponentFacts, pageId: string, position: number) {
  return {
    id: String(c.id),
    name: c.name,
    status: STATUSPAGE_WORDS.componentStatus[c.state] as string,
    created_at: formatTime(c.createdAt),
    updated_at: formatTime(c.updatedAt),
    position,
    description: c.description === '' ? null : c.description,
    showcase: true,
    start_date: null,
    group_id: c.parentId === null ? null : String(c.parentId),
    page_id: pageId,
  };
}
export type ComponentCore = ReturnType<typeof componentCore>;

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

/** An incident or maintenance as Statuspage shows it, without its components. */
export interface IncidentCore {
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
  /** Newest first, as Statuspage sends them (readers take [0] as the latest). */
  incident_updates: IncidentUpdateV2[];
  scheduled_for?: string | null;
  scheduled_until?: string | null;
}

function statusOf(notice: Notice, state: NoticeState | undefined): string {
  const words: Record<string, string> =
    notice.type === 'planned' ? STATUSPAGE_WORDS.maintenanceStatus : STATUSPAGE_WORDS.incidentStatus;
  return words[state ?? ''] ?? (notice.type === 'planned' ? 'scheduled' : 'investigating');
}

/**
 * A notice's Statuspage status at a moment. A maintenance still `scheduled` follows its window,
 * as /api/v1's timeline does: in progress inside it, completed once it has passed.
 */
export function incidentStatus(notice: Notice, at: NoticeAtTime): string {
  const status = statusOf(notice, at.state);
  if (notice.type !== 'planned' || status !== 'scheduled') return status;
  if (at.timelineState === 'present') return 'in_progress';
  return at.timelineState === 'future' ? 'scheduled' : 'completed';
}

/**
 * Whether Statuspage shows the notice at this moment: an incident once it has begun, a
 * maintenance as soon as it is scheduled, a general notice never.
 */
export function shownAsIncident(notice: Notice, at: NoticeAtTime): boolean {
  if (notice.type === 'general') return false;
  return notice.type === 'planned' || at.beganAt !== null;
}

export function incidentCore(
  notice: Notice,
  at: NoticeAtTime,
  status: string,
  where: { shortlink: string; pageId: string },
): IncidentCore {
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
    shortlink: where.shortlink,
    started_at: formatTime(at.beganAt ?? notice.beginsAt ?? notice.startsAt),
    page_id: where.pageId,
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
    ...(planned
      ? {
          scheduled_for: formatOptionalTime(notice.beginsAt),
          scheduled_until: formatOptionalTime(notice.endsAt),
        }
      : {}),
  };
}
