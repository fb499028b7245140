// Atlassian Statuspage's public v2 format, from the same snapshot as /api/v1: the objects of
// /api/v2/*.json. The words and the component and incident shapes are shared with the
// operator's subscriber webhooks (rules/statuspage.ts). Tools that read Statuspage pages
// (widgets, exporters, chat bots) read a Slipway page unchanged.
import { noticeAt, noticeUrl, type Notice, type NoticeAtTime } from '../../rules/notice-timeline.ts';
import {
  STATUSPAGE_WORDS,
  componentCore,
  incidentCore,
  incidentStatus,
  shownAsIncident,
  type ComponentCore,
  type IncidentCore,
  type Indicator,
} from '../../rules/statuspage.ts';
import { serializePage } from './serialize.ts';
import type { ComponentEntry, StatusSnapshot } from './snapshot.ts';
import { componentUptime, percent, type Uptime } from './uptime.ts';

/** The most incidents or maintenances a list answers with, as Statuspage's. */
export const LIST_LIMIT = 50;

export interface PageV2 {
  id: string;
  name: string;
  url: string;
  time_zone: string;
  updated_at: string;
}

export interface ComponentV2 extends ComponentCore {
  group: boolean;
  only_show_if_degraded: boolean;
  components?: string[];
  /** Slipway's addition: uptime over the last 90 days, in percent (/api/v1/components/:id has each day). */
  uptime_percent: number | null;
}

export interface IncidentV2 extends IncidentCore {
  components: ComponentV2[];
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
    // A group as its worst part (Statuspage's way); /api/v1 keeps the stored state.
    ...componentCore({ ...c, state: c.shownState }, pageId, position),
    group: children.length > 0,
    only_show_if_degraded: false,
    ...(children.length > 0 ? { components: children.map((child) => String(child.id)) } : {}),
    uptime_percent: percent(componentUptime(snapshot, c, now, own).uptime),
  };
}

function incidentV2(
  { notice, at, status }: NoticeEntry,
  snapshot: StatusSnapshot,
  components: ReadonlyMap<number, ComponentV2>,
  pageId: string,
): IncidentV2 {
  return {
    ...incidentCore(notice, at, status, {
      shortlink: noticeUrl(snapshot.page?.url ?? null, notice.id),
      pageId,
    }),
    components: (snapshot.impactedComponents.get(notice.id) ?? []).flatMap((c) => {
      const v2 = components.get(c.id);
      return v2 ? [v2] : [];
    }),
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
    if (!shownAsIncident(notice, at)) continue;
    const entry = { notice, at, status: incidentStatus(notice, at) };
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
