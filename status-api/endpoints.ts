// What each endpoint answers, as pure functions of a snapshot, the query and the clock.
// server.ts adds HTTP around them; tests can call them directly.
import { notFound, type ApiError } from './errors.ts';
import { noticeAt } from '../rules/notice-timeline.ts';
import { pageHref, paginate } from './model/pagination.ts';
import {
  parseComponentsQuery,
  parseEmptyQuery,
  parseNoticesQuery,
  type ListQuery,
  type Parsed,
  type QueryError,
} from './model/query.ts';
import {
  serializeComponent,
  serializeNoticeDetail,
  serializeNoticeSummary,
  serializePage,
} from './model/serialize.ts';
import type { ComponentEntry, StatusSnapshot } from './model/snapshot.ts';
import { componentUptime, percent } from './model/uptime.ts';

export type EndpointResult = { ok: true; body: unknown } | { ok: false; error: ApiError };

export interface MetaJson {
  count: number;
  total_count: number;
  next_page: string | null;
}

const badRequest = (error: QueryError): EndpointResult => ({ ok: false, error: { status: 400, ...error } });
const missing = (message: string): EndpointResult => ({ ok: false, error: notFound(message) });

function withQuery<Q>(parsed: Parsed<Q>, answer: (query: Q) => EndpointResult): EndpointResult {
  return parsed.ok ? answer(parsed.value) : badRequest(parsed.error);
}

function listBody<T, F extends Record<string, (raw: string) => unknown>>(
  key: string,
  items: readonly T[],
  query: ListQuery<F>,
  path: string,
  serialize: (item: T) => unknown,
): EndpointResult {
  const page = paginate(items, query.page);
  const meta: MetaJson = {
    count: page.count,
    total_count: page.totalCount,
    next_page: page.nextPage === null ? null : pageHref(path, query.filterParams, page.nextPage),
  };
  return { ok: true, body: { [key]: page.items.map(serialize), meta } };
}

/** GET /api/v1/status */
export function statusEndpoint(snapshot: StatusSnapshot, params: URLSearchParams, now: Date): EndpointResult {
  return withQuery(parseEmptyQuery(params), () => {
    const page = serializePage(snapshot, now);
    return page === null ? missing('no status page is configured') : { ok: true, body: { page } };
  });
}

/** GET /api/v1/components; `path` is the list's own path, for next_page. */
export function componentsEndpoint(
  snapshot: StatusSnapshot,
  params: URLSearchParams,
  path: string,
): EndpointResult {
  return withQuery(parseComponentsQuery(params), (query) => {
    const { parent_id_null: topLevel, parent_id_eq: parentId } = query.filters;
    let items: readonly ComponentEntry[];
    if (parentId !== undefined)
      items = topLevel === true ? [] : (snapshot.childrenByParentId.get(parentId) ?? []);
    else if (topLevel === true) items = snapshot.topLevelComponents;
    else if (topLevel === false) items = snapshot.nestedComponents;
    else items = snapshot.components;
    return listBody('components', items, query, path, serializeComponent);
  });
}

/** GET /api/v1/notices; both filters must hold when both are given. */
export function noticesEndpoint(
  snapshot: StatusSnapshot,
  params: URLSearchParams,
  path: string,
  now: Date,
): EndpointResult {
  return withQuery(parseNoticesQuery(params), (query) => {
    const { type_eq: type, timeline_state_eq: timeline } = query.filters;
    let items = type === undefined ? snapshot.notices : (snapshot.noticesByType.get(type) ?? []);
    if (timeline !== undefined) items = items.filter((n) => noticeAt(n, now).timelineState === timeline);
    const pageUrl = snapshot.page?.url ?? null;
    return listBody('notices', items, query, path, (n) => serializeNoticeSummary(n, now, pageUrl));
  });
}

/** An id from the path: a positive decimal of at most ten digits, else NaN (found nowhere). */
const pathId = (raw: string): number => (/^[1-9][0-9]{0,9}$/.test(raw) ? Number(raw) : NaN);

/** GET /api/v1/notices/:id */
export function noticeEndpoint(
  snapshot: StatusSnapshot,
  params: URLSearchParams,
  rawId: string,
  now: Date,
): EndpointResult {
  return withQuery(parseEmptyQuery(params), () => {
    const notice = snapshot.noticeById.get(pathId(rawId));
    if (notice === undefined) return missing(`no notice with id '${rawId.slice(0, 32)}'`);
    const components = snapshot.impactedComponents.get(notice.id) ?? [];
    return {
      ok: true,
      body: { notice: serializeNoticeDetail(notice, now, snapshot.page?.url ?? null, components) },
    };
  });
}

/** GET /api/v1/components/:id: the component and its uptime over the last 90 days, day by day. */
export function componentEndpoint(
  snapshot: StatusSnapshot,
  params: URLSearchParams,
  rawId: string,
  now: Date,
): EndpointResult {
  return withQuery(parseEmptyQuery(params), () => {
    const component = snapshot.componentById.get(pathId(rawId));
    if (component === undefined) return missing(`no component with id '${rawId.slice(0, 32)}'`);
    const uptime = componentUptime(snapshot, component, now);
    return {
      ok: true,
      body: {
        component: {
          ...serializeComponent(component),
          uptime: {
            percent: percent(uptime.uptime),
            days: uptime.days.map((d) => ({
              date: d.date,
              percent: percent(d.uptime),
              degraded_seconds: d.degradedSeconds,
              maintenance_seconds: d.maintenanceSeconds,
              notice_ids: d.noticeIds,
            })),
          },
        },
      },
    };
  });
}
