// The pages people read, server-rendered from a snapshot at one moment: the overview (/), one
// notice (/notices/:id) and the past notices (/history). Pure functions returning the document.
import { noticeAt, type Notice, type NoticeAtTime } from '../../rules/notice-timeline.ts';
import { serializePage } from '../model/serialize.ts';
import type { ComponentEntry, StatusSnapshot } from '../model/snapshot.ts';
import { html, type Html } from './html.ts';
import { document } from './layout.ts';
import { uptimeBars, uptimeSection } from './uptime-bars.ts';
import { noticeWhen } from './when.ts';
import { isoTime, relativeTime, utcText } from './time.ts';
import { componentStateText, noticeStateText, noticeTypeText, stateGlyph } from './words.ts';

export const HISTORY_PAGE_SIZE = 20;
/** The overview's lists past the current incidents and maintenance underway (shown whole). */
const RECENT_ON_HOME = 10;
const UPCOMING_ON_HOME = 10;
const ANNOUNCEMENTS_ON_HOME = 5;
/** How deep the summary of a component's descendants looks (a parentRef cycle cannot loop it). */
const MAX_COMPONENT_DEPTH = 8;
/** Components below the second level that are not operational, named in their parent's summary. */
const TROUBLED_NAMES = 5;

export interface Rendered {
  status: number;
  text: string;
}

interface Moment {
  snapshot: StatusSnapshot;
  nowMs: number;
  at: (notice: Notice) => NoticeAtTime;
}

function momentOf(snapshot: StatusSnapshot, now: Date): Moment {
  const cache = new Map<number, NoticeAtTime>();
  return {
    snapshot,
    nowMs: now.getTime(),
    at: (notice) => {
      let at = cache.get(notice.id);
      if (!at) cache.set(notice.id, (at = noticeAt(notice, now)));
      return at;
    },
  };
}

const time = (ms: number, nowMs: number): Html =>
  html`<time datetime="${isoTime(ms)}">${utcText(ms)}</time>
    <span class="relative">(${relativeTime(ms, nowMs)})</span>`;

function stateLabel(state: ComponentEntry['state']): Html {
  return html`<span class="state state-${state}"
    ><span class="glyph" aria-hidden="true">${stateGlyph[state]}</span> ${componentStateText[state]}</span
  >`;
}

function noticeLabel(notice: Notice, at: NoticeAtTime): Html {
  const state = at.state
    ? html` <span class="tag notice-${at.state}">${noticeStateText[at.state]}</span>`
    : '';
  return html`<span class="kind">${noticeTypeText[notice.type]}</span>${state}`;
}

/** A notice in a list: subject (a link to its page), kind and state, when, its latest update. */
function noticeSummary(moment: Moment, notice: Notice, root: string, heading: 'h3' | 'h2' = 'h3'): Html {
  const at = moment.at(notice);
  const title = html`<a href="${root}notices/${notice.id}" dir="auto">${notice.subject}</a>`;
  const latest = at.latestUpdate
    ? html`<p class="content" dir="auto">${at.latestUpdate.content}</p>
        <p class="meta">Latest update ${time(at.latestUpdate.at, moment.nowMs)}</p>`
    : '';
  return html`<article class="notice" aria-labelledby="notice-${notice.id}">
    ${heading === 'h2' ? html`<h2 id="notice-${notice.id}">${title}</h2>` : html`<h3 id="notice-${notice.id}">${title}</h3>`}
    <p class="meta">${noticeLabel(notice, at)} · ${noticeWhen(notice, at, (ms) => time(ms, moment.nowMs))}</p>
    ${latest}
  </article>`;
}

function section(id: string, title: string, body: Html | Html[], empty?: string): Html | '' {
  const items = Array.isArray(body) ? body : [body];
  if (items.length === 0 && empty === undefined) return '';
  return html`<section aria-labelledby="${id}">
    <h2 id="${id}">${title}</h2>
    ${items.length > 0 ? items : html`<p class="empty">${empty ?? ''}</p>`}
  </section>`;
}

/** Everything under a second-level component: how many are in each state, and the names of those not operational. */
function deeperSummary(snapshot: StatusSnapshot, component: ComponentEntry): Html | '' {
  const counts = new Map<ComponentEntry['state'], number>();
  const troubled: ComponentEntry[] = [];
  let level = snapshot.childrenByParentId.get(component.id) ?? [];
  for (let depth = 2; level.length > 0 && depth <= MAX_COMPONENT_DEPTH; depth++) {
    for (const c of level) {
      counts.set(c.state, (counts.get(c.state) ?? 0) + 1);
      if (c.state !== 'operational') troubled.push(c);
    }
    level = level.flatMap((c) => snapshot.childrenByParentId.get(c.id) ?? []);
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return '';
  const parts = [...counts].map(([state, n]) => `${n} ${componentStateText[state].toLowerCase()}`).join(', ');
  const shown = troubled.slice(0, TROUBLED_NAMES);
  const more = troubled.length - shown.length;
  return html`<p class="description">${total} more component${total === 1 ? '' : 's'} inside: ${parts}${
    shown.length > 0
      ? html` — ${shown.map((c, i) => html`${i > 0 ? ', ' : ''}<span dir="auto">${c.name}</span> (${componentStateText[c.state].toLowerCase()})`)}${more > 0 ? ` and ${more} more` : ''}`
      : ''
  }</p>`;
}

/**
 * The component tree as people scan it: the top level and its children, each with its state;
 * what lies deeper is summed up under its parent (a state other than operational by name), so a
 * page with thousands of components stays readable and light.
 */
function componentTree(
  snapshot: StatusSnapshot,
  components: readonly ComponentEntry[],
  depth: number,
  now: Date,
): Html {
  if (components.length === 0) return html``;
  return html`<ul class="components">${components.map((c) => {
    const children = snapshot.childrenByParentId.get(c.id) ?? [];
    return html`<li class="component"><div class="row"><span class="name" dir="auto">${c.name}</span> ${stateLabel(c.shownState)}</div>${
      c.description ? html`<p class="description" dir="auto">${c.description}</p>` : ''
    }${depth === 0 ? uptimeBars(snapshot, c, now) : ''}${depth === 0 ? componentTree(snapshot, children, 1, now) : deeperSummary(snapshot, c)}</li>`;
  })}</ul>`;
}

const notFoundPage = (pageName: string, root: string, message: string, updatedAt: number): Rendered => ({
  status: 404,
  text: document({
    pageName,
    title: 'Not found',
    root,
    updatedAt,
    main: html`<h1>Not found</h1>
      <p>${message}</p>
      <p><a href="${root || './'}">Back to the overview</a></p>`,
  }),
});

/** The answer when no StatusPage exists in the namespace. */
export function noPage(root: string, now: Date): Rendered {
  return notFoundPage('Status', root, 'No status page is configured here.', now.getTime());
}

/** Maintenance not begun yet (soonest first) and the announcements in effect (newest first). */
function ahead(snapshot: StatusSnapshot, moment: Moment): { upcoming: Notice[]; announcements: Notice[] } {
  const timeline = (n: Notice) => moment.at(n).timelineState;
  return {
    upcoming: snapshot.notices.filter((n) => n.type === 'planned' && timeline(n) === 'future').reverse(),
    announcements: snapshot.notices.filter((n) => n.type === 'general' && timeline(n) === 'present'),
  };
}

/** `/`: the overall state, incidents, maintenance, components, recent history. */
export function homePage(snapshot: StatusSnapshot, now: Date): Rendered {
  const page = serializePage(snapshot, now);
  if (page === null) return noPage('', now);
  const moment = momentOf(snapshot, now);
  const updatedAt = Date.parse(page.updated_at);
  const timeline = (n: Notice) => moment.at(n).timelineState;
  const incidents = snapshot.notices.filter((n) => n.type === 'unplanned' && timeline(n) === 'present');
  const underway = snapshot.notices.filter((n) => n.type === 'planned' && timeline(n) === 'present');
  const { upcoming, announcements } = ahead(snapshot, moment);
  const recent = snapshot.notices.filter((n) => timeline(n) === 'past_recent').slice(0, RECENT_ON_HOME);
  const summary = (n: Notice) => noticeSummary(moment, n, '');
  /** The first `limit` as summaries, and how many more there are (the overview stays short). */
  const capped = (notices: Notice[], limit: number, what: string): Html[] => [
    ...notices.slice(0, limit).map(summary),
    ...(notices.length > limit
      ? [
          html`<p class="meta">Showing ${limit} of ${notices.length} ${what}: <a href="upcoming">all of them</a>.</p>`,
        ]
      : []),
  ];
  const main = html`<h1 class="visually-hidden">${page.name} status</h1>
    <section class="banner state-${page.state}" aria-labelledby="overall">
      <p id="overall" class="overall">
        <span class="glyph" aria-hidden="true">${stateGlyph[page.state]}</span> ${page.state_text}
      </p>
    </section>
    ${section('incidents', 'Current incidents', incidents.map(summary))}
    ${section('maintenance-underway', 'Maintenance underway', underway.map(summary))}
    ${section('maintenance-upcoming', 'Upcoming maintenance', capped(upcoming, UPCOMING_ON_HOME, 'scheduled maintenance windows, soonest first'))}
    ${section('announcements', 'Announcements', capped(announcements, ANNOUNCEMENTS_ON_HOME, 'announcements, newest first'))}
    ${section('components', 'Components', componentTree(snapshot, snapshot.topLevelComponents, 0, now))}
    ${section('recent', 'Past 7 days', recent.map(summary), 'Nothing to report in the past 7 days.')}
    <p><a href="history">All past notices</a></p>`;
  return { status: 200, text: document({ pageName: page.name, root: '', updatedAt, main }) };
}

/** `/notices/:id`: one notice, its impacted components and its whole timeline, newest first. */
export function noticePage(snapshot: StatusSnapshot, rawId: string, now: Date): Rendered {
  const root = '../';
  const page = serializePage(snapshot, now);
  if (page === null) return noPage(root, now);
  const updatedAt = Date.parse(page.updated_at);
  const id = /^[1-9][0-9]{0,9}$/.test(rawId) ? Number(rawId) : NaN;
  const notice = snapshot.noticeById.get(id);
  if (notice === undefined)
    return notFoundPage(page.name, root, `There is no notice ${rawId.slice(0, 32)}.`, updatedAt);
  const moment = momentOf(snapshot, now);
  const at = moment.at(notice);
  const components = snapshot.impactedComponents.get(notice.id) ?? [];
  const updates = notice.updates.slice(0, at.updateCount).reverse();
  const main = html`<article class="notice-page" aria-labelledby="subject">
      <p class="meta">${noticeLabel(notice, at)}</p>
      <h1 id="subject" dir="auto">${notice.subject}</h1>
      <p class="meta">${noticeWhen(notice, at, (ms) => time(ms, moment.nowMs))}</p>
      ${section(
        'affected',
        'Affected components',
        components.length > 0
          ? html`<ul class="components flat">
              ${components.map(
                (c) =>
                  html`<li class="component">
                    <div class="row">
                      <span class="name" dir="auto">${c.name}</span> ${stateLabel(c.state)}
                    </div>
                  </li>`,
              )}
            </ul>`
          : [],
        'No component is named.',
      )}
      ${section(
        'updates',
        'Updates',
        updates.length > 0
          ? html`<ol class="timeline">
              ${updates.map(
                (u) =>
                  html`<li>
                    <p class="meta">
                      ${u.state ? html`<strong>${noticeStateText[u.state]}</strong> · ` : ''}${time(u.at, moment.nowMs)}
                    </p>
                    <p class="content" dir="auto">${u.content}</p>
                  </li>`,
              )}
            </ol>`
          : [],
        'No updates yet.',
      )}
    </article>
    <p><a href="${root}">Back to the overview</a> · <a href="${root}history">Past notices</a></p>`;
  return {
    status: 200,
    text: document({ pageName: page.name, title: notice.subject, root, updatedAt, main }),
  };
}

/** `/components/:id`: one component, its state and its last 90 days, day by day. */
export function componentPage(snapshot: StatusSnapshot, rawId: string, now: Date): Rendered {
  const root = '../';
  const page = serializePage(snapshot, now);
  if (page === null) return noPage(root, now);
  const updatedAt = Date.parse(page.updated_at);
  const id = /^[1-9][0-9]{0,9}$/.test(rawId) ? Number(rawId) : NaN;
  const component = snapshot.componentById.get(id);
  if (component === undefined)
    return notFoundPage(page.name, root, `There is no component ${rawId.slice(0, 32)}.`, updatedAt);
  const main = html`<article aria-labelledby="component">
      <h1 id="component" dir="auto">${component.name}</h1>
      <p>${stateLabel(component.state)}</p>
      ${component.description ? html`<p class="description" dir="auto">${component.description}</p>` : ''}
      ${section('uptime', 'Uptime', uptimeSection(snapshot, component, now, root))}
    </article>
    <p><a href="${root}">Back to the overview</a> · <a href="${root}history">Past notices</a></p>`;
  return {
    status: 200,
    text: document({ pageName: page.name, title: component.name, root, updatedAt, main }),
  };
}

/** `/upcoming`: every scheduled maintenance window and announcement (the overview shows the first few). */
export function upcomingPage(snapshot: StatusSnapshot, now: Date): Rendered {
  const page = serializePage(snapshot, now);
  if (page === null) return noPage('', now);
  const moment = momentOf(snapshot, now);
  const { upcoming, announcements } = ahead(snapshot, moment);
  const summary = (n: Notice) => noticeSummary(moment, n, '');
  const title = 'Upcoming maintenance and announcements';
  const main = html`<h1>${title}</h1>
    ${section('maintenance-upcoming', 'Upcoming maintenance', upcoming.map(summary), 'No maintenance is scheduled.')}
    ${section('announcements', 'Announcements', announcements.map(summary), 'No announcements.')}`;
  return {
    status: 200,
    text: document({ pageName: page.name, title, root: '', updatedAt: Date.parse(page.updated_at), main }),
  };
}

/** `/history?page=N`: past notices, newest first, HISTORY_PAGE_SIZE per page. */
export function historyPage(snapshot: StatusSnapshot, rawPage: string | null, now: Date): Rendered {
  const page = serializePage(snapshot, now);
  if (page === null) return noPage('', now);
  const updatedAt = Date.parse(page.updated_at);
  const number = rawPage === null ? 1 : /^[1-9][0-9]{0,5}$/.test(rawPage) ? Number(rawPage) : NaN;
  const moment = momentOf(snapshot, now);
  const past = snapshot.notices.filter((n) => moment.at(n).timelineState.startsWith('past'));
  const pages = Math.max(1, Math.ceil(past.length / HISTORY_PAGE_SIZE));
  if (!(number >= 1 && number <= pages))
    return notFoundPage(
      page.name,
      '',
      `There is no page ${String(rawPage).slice(0, 16)} of past notices.`,
      updatedAt,
    );
  const shown = past.slice((number - 1) * HISTORY_PAGE_SIZE, number * HISTORY_PAGE_SIZE);
  const previous =
    number > 1 ? html`<a rel="prev" href="history${number > 2 ? `?page=${number - 1}` : ''}">Newer</a>` : '';
  const next = number < pages ? html`<a rel="next" href="history?page=${number + 1}">Older</a>` : '';
  const main = html`<h1>Past notices</h1>
    ${shown.length > 0 ? shown.map((n) => noticeSummary(moment, n, '', 'h2')) : html`<p class="empty">No past notices.</p>`}
    <nav aria-label="Pages" class="pages">${previous} <span>Page ${number} of ${pages}</span> ${next}</nav>`;
  return {
    status: 200,
    text: document({
      pageName: page.name,
      title: number > 1 ? `Past notices, page ${number}` : 'Past notices',
      root: '',
      updatedAt,
      main,
    }),
  };
}
