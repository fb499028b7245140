// The human status page's addresses, served by the status API from the same snapshot as the JSON
// API: each renders a prepared body (bytes, ETag, type, headers) that server.ts caches per
// snapshot, time slice and minute.
import { prepareText, type Prepared } from '../http/respond.ts';
import { serializePage } from '../model/serialize.ts';
import type { StatusSnapshot } from '../model/snapshot.ts';
import { badge } from './badge.ts';
import { atomFeed, rssFeed } from './feeds.ts';
import { STYLESHEET } from './stylesheet.ts';
import {
  componentPage,
  historyPage,
  homePage,
  noPage,
  noticePage,
  upcomingPage,
  type Rendered,
} from './views.ts';

const HTML = 'text/html; charset=utf-8';
/** Nothing runs on the pages, nothing is loaded from elsewhere, nothing frames them. */
export const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
};
/** A badge is an image others embed: its own styles only, no script. */
const BADGE_HEADERS = { 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'" };

export interface PageRoute {
  template: string;
  /** The query parameters its answer depends on (the cache key holds these, not the raw URL). */
  reads?: readonly string[];
  render(snapshot: StatusSnapshot, id: string | undefined, query: URLSearchParams, now: Date): Prepared;
}

const page = (rendered: Rendered): Prepared =>
  prepareText(rendered.text, HTML, rendered.status, PAGE_HEADERS, true);

const orNoPage = (text: string | null, contentType: string, now: Date): Prepared =>
  text === null ? page(noPage('', now)) : prepareText(text, contentType, 200, undefined, true);

export const pageRoutes: PageRoute[] = [
  { template: '/', render: (snapshot, _id, _query, now) => page(homePage(snapshot, now)) },
  {
    template: '/notices/:id',
    render: (snapshot, id, _query, now) => page(noticePage(snapshot, id ?? '', now)),
  },
  {
    template: '/components/:id',
    render: (snapshot, id, _query, now) => page(componentPage(snapshot, id ?? '', now)),
  },
  { template: '/upcoming', render: (snapshot, _id, _query, now) => page(upcomingPage(snapshot, now)) },
  {
    template: '/history',
    reads: ['page'],
    render: (snapshot, _id, query, now) => page(historyPage(snapshot, query.get('page'), now)),
  },
  {
    template: '/history.atom',
    render: (snapshot, _id, _query, now) =>
      orNoPage(atomFeed(snapshot, now), 'application/atom+xml; charset=utf-8', now),
  },
  {
    template: '/history.rss',
    render: (snapshot, _id, _query, now) =>
      orNoPage(rssFeed(snapshot, now), 'application/rss+xml; charset=utf-8', now),
  },
  {
    template: '/badge.svg',
    render: (snapshot, _id, _query, now) => {
      const state = serializePage(snapshot, now)?.state;
      if (state === undefined) return page(noPage('', now));
      return prepareText(badge('status', state), 'image/svg+xml', 200, BADGE_HEADERS);
    },
  },
  {
    template: '/components/:id/badge.svg',
    render: (snapshot, id) => {
      const component = /^[1-9][0-9]{0,9}$/.test(id ?? '')
        ? snapshot.componentById.get(Number(id))
        : undefined;
      if (component === undefined)
        return prepareText(
          `no component with id ${String(id).slice(0, 32)}\n`,
          'text/plain; charset=utf-8',
          404,
        );
      return prepareText(badge(component.name, component.state), 'image/svg+xml', 200, BADGE_HEADERS);
    },
  },
  {
    template: '/assets/status.css',
    render: () => prepareText(STYLESHEET, 'text/css; charset=utf-8', 200, undefined, true),
  },
];

/** The page shown while the status data is still loading (503). */
export const loadingPage = prepareText(
  '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Loading</title></head><body><main><h1>Loading</h1><p>The status is still loading; try again in a moment.</p></main></body></html>\n',
  HTML,
  503,
  PAGE_HEADERS,
);
