// The JSON bodies, field for field as docs/status-api.md lists them.
// Key order follows the spec's tables so responses read like the documentation.
import type { NoticeState, NoticeType } from '../../crds/index.ts';
import {
  noticeAt,
  noticeUrl,
  type Notice,
  type NoticeAtTime,
  type NoticeUpdate,
  type TimelineState,
} from '../../rules/notice-timeline.ts';
import { pageState, pageStateTexts, type PageState } from '../../rules/page-state.ts';
import type { ComponentEntry, StatusSnapshot } from './snapshot.ts';
import { formatOptionalTime, formatTime } from '../../rules/timestamps.ts';

export const COMPONENTS_HREF = '/api/v1/components';
export const NOTICES_HREF = '/api/v1/notices';

export const childrenHref = (id: number): string => `/v1/components?filter[parent_id_eq]=${id}`;
export const noticeSelfHref = (id: number): string => `/api/notices/${id}`;

export interface LinkJson {
  href: string;
  count: number;
}

export interface PageJson {
  name: string;
  state: PageState;
  state_text: string;
  url: string;
  links: { components: LinkJson; notices: LinkJson };
  created_at: string;
  updated_at: string;
}

export interface EmbeddedComponentJson {
  id: number;
  state: PageState;
  name: string;
  description: string;
  parent_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface ComponentJson extends EmbeddedComponentJson {
  links: { children: LinkJson };
}

export interface UpdateJson {
  state?: NoticeState;
  content: string;
  created_at: string;
  updated_at: string;
}

export interface NoticeJson {
  id: number;
  type: NoticeType;
  timeline_state: TimelineState;
  state?: NoticeState;
  subject: string;
  url: string;
  began_at?: string | null;
  ended_at?: string | null;
  begins_at?: string | null;
  ends_at?: string | null;
  created_at: string;
  updated_at: string;
  tag_list: string[];
  links: { self: string };
  latest_update?: UpdateJson | null;
  components?: EmbeddedComponentJson[];
  updates?: UpdateJson[];
}

export function serializePage(snapshot: StatusSnapshot, now: Date): PageJson | null {
  const { page } = snapshot;
  if (page === null) return null;
  let updatedAt = snapshot.changedAt;
  const conditions = snapshot.notices.map((notice) => {
    const at = noticeAt(notice, now);
    updatedAt = Math.max(updatedAt, at.updatedAt);
    return { type: notice.type, state: at.state, timelineState: at.timelineState };
  });
  const state = pageState(conditions);
  return {
    name: page.name,
    state,
    state_text: pageStateTexts[state],
    url: page.url,
    links: {
      components: { href: COMPONENTS_HREF, count: snapshot.components.length },
      notices: { href: NOTICES_HREF, count: snapshot.notices.length },
    },
    created_at: formatTime(page.createdAt),
    updated_at: formatTime(updatedAt),
  };
}

export function serializeEmbeddedComponent(c: ComponentEntry): EmbeddedComponentJson {
  return {
    id: c.id,
    state: c.state,
    name: c.name,
    description: c.description,
    parent_id: c.parentId,
    created_at: formatTime(c.createdAt),
    updated_at: formatTime(c.updatedAt),
  };
}

export function serializeComponent(c: ComponentEntry): ComponentJson {
  return {
    id: c.id,
    state: c.state,
    name: c.name,
    description: c.description,
    parent_id: c.parentId,
    links: { children: { href: childrenHref(c.id), count: c.childCount } },
    created_at: formatTime(c.createdAt),
    updated_at: formatTime(c.updatedAt),
  };
}

function serializeUpdate(type: NoticeType, update: NoticeUpdate): UpdateJson {
  const at = formatTime(update.at);
  return type === 'general'
    ? { content: update.content, created_at: at, updated_at: at }
    : { state: update.state, content: update.content, created_at: at, updated_at: at };
}

/** The public address of a notice: under the human status page when there is one. */
function serializeNoticeBase(notice: Notice, at: NoticeAtTime, pageUrl: string | null): NoticeJson {
  const hasState = notice.type !== 'general';
  return {
    id: notice.id,
    type: notice.type,
    timeline_state: at.timelineState,
    ...(hasState ? { state: at.state } : {}),
    subject: notice.subject,
    url: noticeUrl(pageUrl, notice.id),
    ...(hasState
      ? { began_at: formatOptionalTime(at.beganAt), ended_at: formatOptionalTime(at.endedAt) }
      : {}),
    ...(notice.type === 'planned'
      ? { begins_at: formatOptionalTime(notice.beginsAt), ends_at: formatOptionalTime(notice.endsAt) }
      : {}),
    created_at: formatTime(notice.createdAt),
    updated_at: formatTime(at.updatedAt),
    tag_list: [...notice.tags],
    links: { self: noticeSelfHref(notice.id) },
  };
}

/** A notice in the list: basic details and its latest update (null when it has none yet). */
export function serializeNoticeSummary(notice: Notice, now: Date, pageUrl: string | null): NoticeJson {
  const at = noticeAt(notice, now);
  const json = serializeNoticeBase(notice, at, pageUrl);
  json.latest_update = at.latestUpdate ? serializeUpdate(notice.type, at.latestUpdate) : null;
  return json;
}

/** The notice detail: impacted components and the progress history, newest first. */
export function serializeNoticeDetail(
  notice: Notice,
  now: Date,
  pageUrl: string | null,
  components: readonly ComponentEntry[],
): NoticeJson {
  const at = noticeAt(notice, now);
  const json = serializeNoticeBase(notice, at, pageUrl);
  json.components = components.map(serializeEmbeddedComponent);
  json.updates = notice.updates
    .slice(0, at.updateCount)
    .reverse()
    .map((u) => serializeUpdate(notice.type, u));
  return json;
}
