// The JSON routes of the status API (docs/status-api.md): each path template and how its answer
// is made from the snapshot, and the route template of any path (for metrics and logs).
import type { IncomingMessage } from 'node:http';
import {
  componentEndpoint,
  componentsEndpoint,
  noticeEndpoint,
  noticesEndpoint,
  statusEndpoint,
  type EndpointResult,
} from './endpoints.ts';
import type { StatusSnapshot } from './model/snapshot.ts';
import { pageRoutes } from './page/routes.ts';
import { statuspageBodies, statuspageEndpoint } from './statuspage-endpoints.ts';

export const UNMATCHED_ROUTE = 'unmatched';

export interface ApiRoute {
  templates: string[];
  /** Large answers (the v2 summary holds every component): gzip for clients that accept it. */
  compressible?: boolean;
  /** Answers that move with the clock between notice changes (today's uptime): made again each minute. */
  timely?: boolean;
  answer(
    snapshot: StatusSnapshot,
    query: URLSearchParams,
    id: string | undefined,
    now: Date,
    template: string,
  ): EndpointResult;
}

export const apiRoutes: ApiRoute[] = [
  {
    templates: ['/api/v1/status', '/v1/status'],
    answer: (snapshot, query, _id, now) => statusEndpoint(snapshot, query, now),
  },
  {
    templates: ['/api/v1/components', '/v1/components'],
    answer: (snapshot, query, _id, _now, template) => componentsEndpoint(snapshot, query, template),
  },
  {
    templates: ['/api/v1/components/:id', '/v1/components/:id'],
    timely: true,
    answer: (snapshot, query, id, now) => componentEndpoint(snapshot, query, id ?? '', now),
  },
  {
    templates: ['/api/v1/notices', '/v1/notices'],
    answer: (snapshot, query, _id, now, template) => noticesEndpoint(snapshot, query, template, now),
  },
  {
    templates: ['/api/v1/notices/:id', '/v1/notices/:id', '/api/notices/:id'],
    answer: (snapshot, query, id, now) => noticeEndpoint(snapshot, query, id ?? '', now),
  },
  // Atlassian Statuspage's public format (statuspage-endpoints.ts).
  ...Object.keys(statuspageBodies).map((path): ApiRoute => ({
    templates: [path],
    compressible: true,
    // Components carry their 90-day uptime, which counts up to now.
    timely: true,
    answer: (snapshot, query, _id, now) => statuspageEndpoint(path, snapshot, query, now),
  })),
];

/** The query string exactly as sent; `filter[type_eq]` stays one key. */
export function queryOf(req: IncomingMessage): URLSearchParams {
  const url = req.url ?? '';
  const start = url.indexOf('?');
  return new URLSearchParams(start >= 0 ? url.slice(start + 1) : '');
}

/** Template matchers for metric labels, run before anything can reject the request. */
const templateMatchers = [
  ...apiRoutes.flatMap((route) => route.templates),
  ...pageRoutes.map((r) => r.template),
].map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\./g, '\\.').replace(':id', '[^/]+')}/?$`, 'i'),
}));

export function routeTemplate(path: string): string {
  return templateMatchers.find((m) => m.pattern.test(path))?.template ?? UNMATCHED_ROUTE;
}
