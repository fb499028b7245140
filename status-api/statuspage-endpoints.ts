// What each /api/v2 endpoint (Atlassian Statuspage's public format) answers: pure functions of
// a snapshot, the query and the clock, like endpoints.ts, from the same snapshot as /api/v1.
// server.ts serves them with the same ETag/304, CORS, rate limit and prepared bytes.
import { notFound } from './errors.ts';
import type { EndpointResult } from './endpoints.ts';
import { parseEmptyQuery } from './model/query.ts';
import type { StatusSnapshot } from './model/snapshot.ts';
import {
  LIST_LIMIT,
  isActive,
  isUnresolved,
  isUpcoming,
  statuspageView,
  type StatuspageView,
} from './model/statuspage.ts';

type Body = (view: StatuspageView) => Record<string, unknown>;

function answer(snapshot: StatusSnapshot, params: URLSearchParams, now: Date, body: Body): EndpointResult {
  const query = parseEmptyQuery(params);
  if (!query.ok) return { ok: false, error: { status: 400, ...query.error } };
  const view = statuspageView(snapshot, now);
  if (view === null) return { ok: false, error: notFound('no status page is configured') };
  return { ok: true, body: { page: view.page, ...body(view) } };
}

const cut = <T>(items: readonly T[]) => items.slice(0, LIST_LIMIT);

/** Each /api/v2 path and what it answers (Statuspage's paths, all with `.json`). */
export const statuspageBodies: Record<string, Body> = {
  '/api/v2/summary.json': (view) => ({
    components: view.components,
    incidents: view.serialize(view.incidents.filter(isUnresolved)),
    scheduled_maintenances: view.serialize(view.maintenances.filter((m) => isUpcoming(m) || isActive(m))),
    status: view.status,
  }),
  '/api/v2/status.json': (view) => ({ status: view.status }),
  '/api/v2/components.json': (view) => ({ components: view.components }),
  // The 50 newest, and every unresolved one however old, as Statuspage's.
  '/api/v2/incidents.json': (view) => ({
    incidents: view.serialize(view.incidents.filter((i, n) => n < LIST_LIMIT || isUnresolved(i))),
  }),
  '/api/v2/incidents/unresolved.json': (view) => ({
    incidents: view.serialize(view.incidents.filter(isUnresolved)),
  }),
  '/api/v2/scheduled-maintenances.json': (view) => ({
    scheduled_maintenances: view.serialize(cut(view.maintenances)),
  }),
  '/api/v2/scheduled-maintenances/upcoming.json': (view) => ({
    scheduled_maintenances: view.serialize(view.maintenances.filter(isUpcoming)),
  }),
  '/api/v2/scheduled-maintenances/active.json': (view) => ({
    scheduled_maintenances: view.serialize(view.maintenances.filter(isActive)),
  }),
};

export function statuspageEndpoint(
  path: string,
  snapshot: StatusSnapshot,
  params: URLSearchParams,
  now: Date,
): EndpointResult {
  return answer(snapshot, params, now, statuspageBodies[path]!);
}
