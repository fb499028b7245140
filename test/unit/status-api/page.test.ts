// The human status page over real HTTP, fed plain objects: the documents, feeds and badges a
// reader or a feed reader gets, their headers, and hostile text staying text. (The browser tier,
// test/integration/status-page/, looks at the same pages in Chromium.)
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { get as httpGet, type IncomingHttpHeaders, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { acceptsGzip } from '../../../status-api/http/respond.ts';
import { createStatusApp } from '../../../status-api/server.ts';
import { HISTORY_PAGE_SIZE, homePage, upcomingPage } from '../../../status-api/page/views.ts';
import { DAY, HOUR, NOW, componentObject, iso, noticeObject, pageObject, storeOf } from './builders.ts';

const HOSTILE = `<script>alert("x")</script> "quoted" & 'single' \u202Eevil\u202C ${'long '.repeat(200)}\u0007`;

let server: Server;
let base: string;
const clock = { now: NOW };

beforeAll(async () => {
  const past = Array.from({ length: HISTORY_PAGE_SIZE + 5 }, (_, i) =>
    noticeObject(`old-${i}`, 'unplanned', {
      statusId: 100 + i,
      subject: `Old incident ${i}`,
      updates: [
        { state: 'investigating', at: iso(-20 * DAY - i * HOUR) },
        { state: 'resolved', at: iso(-20 * DAY - i * HOUR + HOUR) },
      ],
    }),
  );
  const store = storeOf({
    pages: [pageObject({ name: 'Acme <Cloud>', url: 'https://status.acme.test/' })],
    components: [
      componentObject('api', { statusId: 1, displayName: 'API', state: 'degraded', position: 1 }),
      componentObject('db', { statusId: 2, displayName: 'Database', parent: 'api', position: 1 }),
      componentObject('web', { statusId: 3, displayName: 'Web <b>app</b>', position: 2 }),
      componentObject('disk-1', { statusId: 4, displayName: 'Disk 1', parent: 'db', state: 'degraded' }),
      componentObject('disk-2', { statusId: 5, displayName: 'Disk 2', parent: 'db' }),
    ],
    notices: [
      noticeObject('outage', 'unplanned', {
        statusId: 7,
        subject: HOSTILE,
        components: ['api'],
        updates: [
          { state: 'investigating', content: 'Looking into it.', at: iso(-3 * HOUR) },
          { state: 'identified', content: 'A disk is <full>.\nWe are moving data.', at: iso(-1 * HOUR) },
        ],
      }),
      noticeObject('upgrade', 'planned', {
        statusId: 8,
        subject: 'Database upgrade',
        beginsAt: iso(2 * DAY),
        endsAt: iso(2 * DAY + 2 * HOUR),
        components: ['db'],
        updates: [{ state: 'scheduled', content: 'Short read-only window.', at: iso(-DAY) }],
      }),
      noticeObject('migration', 'planned', {
        statusId: 10,
        subject: 'Storage migration',
        beginsAt: iso(-3 * DAY),
        endsAt: iso(-3 * DAY + HOUR),
        updates: [
          { state: 'scheduled', at: iso(-4 * DAY) },
          { state: 'underway', at: iso(-3 * DAY + HOUR / 2) },
          { state: 'complete', content: 'Done, later than planned.', at: iso(-3 * DAY + 3 * HOUR) },
        ],
      }),
      noticeObject('fixed', 'unplanned', {
        statusId: 9,
        subject: 'Slow builds',
        updates: [
          { state: 'investigating', at: iso(-3 * DAY) },
          { state: 'resolved', content: 'Builds are fast again.', at: iso(-3 * DAY + HOUR) },
        ],
      }),
      ...past,
    ],
  });
  const app = createStatusApp({ store, clock: () => clock.now, config: { rateLimit: { enabled: false } } });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base}${path}`, { headers });
  return { res, text: await res.text() };
};

describe('the status page', () => {
  it('shows the overall state in words, the incident with its latest update, maintenance and the component tree', async () => {
    const { res, text } = await get('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(text).toContain('<title>Acme &lt;Cloud&gt;</title>');
    expect(text).toContain('Some systems are experiencing problems');
    expect(text).toContain('<h2 id="incidents">Current incidents</h2>');
    expect(text).toContain('A disk is &lt;full&gt;.\nWe are moving data.');
    expect(text).toContain('<a href="notices/7" dir="auto">');
    expect(text).toMatch(/Upcoming maintenance[\s\S]*Database upgrade[\s\S]*in 2 days/);
    expect(text).toMatch(
      /<span class="name" dir="auto">API<\/span>\s*<span class="state state-degraded"\s*>[\s\S]*?Degraded<\/span/,
    );
    expect(text).toMatch(/API[\s\S]*<ul class="components">[\s\S]*Database/);
    // A group shows its worst part: Database is stored operational, Disk 1 inside it degraded.
    expect(text).toMatch(
      /<span class="name" dir="auto">Database<\/span>\s*<span class="state state-degraded"/,
    );
    expect(text).toMatch(/Past 7 days[\s\S]*Slow builds/);
    // Below the second level, components are summed up under their parent, trouble by name.
    expect(text).not.toContain('<span class="name" dir="auto">Disk 1</span>');
    expect(text).toContain(
      '2 more components inside: 1 degraded, 1 operational — <span dir="auto">Disk 1</span> (degraded)',
    );
    expect(text).toMatch(/<link\s+rel="alternate"\s+type="application\/atom\+xml"/);
    expect(text).toContain('<time datetime="2026-03-10T09:00:00.000Z">2026-03-10 09:00 UTC</time>');
  });

  it('renders hostile text as text, under a policy that runs no script', async () => {
    const { res, text } = await get('/');
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'; style-src 'self'/);
    expect(text).not.toContain('<script');
    expect(text).toContain(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &quot;quoted&quot; &amp; &#39;single&#39;',
    );
    expect(text).toContain('Web &lt;b&gt;app&lt;/b&gt;');
    expect(text).not.toContain('\u0007');
  });

  it('shows a notice with its affected components and every update, newest first', async () => {
    const { res, text } = await get('/notices/7');
    expect(res.status).toBe(200);
    expect(text).toMatch(/Affected components[\s\S]*API/);
    const identified = text.indexOf('<strong>Identified</strong>');
    const investigating = text.indexOf('<strong>Investigating</strong>');
    expect(identified).toBeGreaterThan(0);
    expect(investigating).toBeGreaterThan(identified);
    expect(text).toContain('href="../history"');
    const missing = await get('/notices/999');
    expect(missing.res.status).toBe(404);
    expect(missing.res.headers.get('cache-control')).toBe('no-store');
    expect((await get('/notices/abc')).text).toContain('There is no notice abc.');
  });

  it('shows when maintenance really began and ended beside its schedule', async () => {
    const { text } = await get('/notices/10');
    expect(text).toMatch(
      /Scheduled for <time[^>]*>[^<]*<\/time>[\s\S]*until[\s\S]* · began <time datetime="2026-03-07T12:30:00.000Z">[\s\S]*, ended <time datetime="2026-03-07T15:00:00.000Z">/,
    );
  });

  it('pages the past notices newest first, with links both ways', async () => {
    const first = await get('/history');
    expect(first.res.status).toBe(200);
    expect(first.text).toContain('Page 1 of 2');
    expect(first.text).toContain('<a rel="next" href="history?page=2">Older</a>');
    expect(first.text.indexOf('Slow builds')).toBeLessThan(first.text.indexOf('Old incident 0'));
    const second = await get('/history?page=2');
    expect(second.text).toContain('<a rel="prev" href="history">Newer</a>');
    expect(second.text).toContain('Old incident 24');
    expect((await get('/history?page=3')).res.status).toBe(404);
  });

  it('sends a path with a trailing slash to the page, so its relative links resolve', async () => {
    const res = await fetch(`${base}/history/?page=2`, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('../history?page=2');
    expect(new URL(res.headers.get('location')!, `${base}/history/?page=2`).href).toBe(
      `${base}/history?page=2`,
    );
    const notice = await fetch(`${base}/notices/7/`, { redirect: 'manual' });
    expect(new URL(notice.headers.get('location')!, `${base}/notices/7/`).href).toBe(`${base}/notices/7`);
  });

  it('answers a repeated request with 304 and serves the stylesheet it links', async () => {
    const { res } = await get('/');
    const again = await get('/', { 'If-None-Match': res.headers.get('etag')! });
    expect(again.res.status).toBe(304);
    const css = await get('/assets/status.css');
    expect(css.res.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.text).toContain('prefers-color-scheme: dark');
  });

  it('updates relative times as the clock moves, within a minute', async () => {
    expect((await get('/')).text).toContain('(1 hour ago)');
    clock.now = new Date(NOW.getTime() + 61 * 60_000);
    try {
      expect((await get('/')).text).toContain('(2 hours ago)');
    } finally {
      clock.now = NOW;
    }
  });
});

describe('the feeds', () => {
  const parser = new XMLParser({ ignoreAttributes: false });

  it('are well-formed Atom 1.0 with stable ids, updated times and links to the notice pages', async () => {
    const { res, text } = await get('/history.atom');
    expect(res.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    expect(XMLValidator.validate(text)).toBe(true);
    const feed = parser.parse(text).feed;
    expect(feed['@_xmlns']).toBe('http://www.w3.org/2005/Atom');
    expect(feed.id).toBe('https://status.acme.test/history.atom');
    expect(feed.updated).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(feed.author.name).toBe('Acme <Cloud>');
    const entry = feed.entry.find((e: { id: string }) => e.id === 'https://status.acme.test/notices/7');
    expect(entry.title['#text']).toContain('<script>alert("x")</script>');
    expect(entry.link['@_href']).toBe('https://status.acme.test/notices/7');
    expect(entry.updated).toBe('2026-03-10T11:00:00.000Z');
    expect(entry.content['#text']).toContain('A disk is &lt;full&gt;.');
    // A reader's feed has no stylesheet: line breaks are markup, and the entry says what is affected.
    expect(entry.content['#text']).toContain('A disk is &lt;full&gt;.<br />We are moving data.');
    expect(entry.content['#text']).toContain('<p>Affected: API</p>');
  });

  it('tell when planned maintenance happens, with what it affects', async () => {
    const channel = parser.parse((await get('/history.rss')).text).rss.channel;
    const item = channel.item.find((i: { link: string }) => i.link === 'https://status.acme.test/notices/8');
    expect(item.description).toMatch(/Scheduled for [^<]*2026[^<]* until [^<]*2026/);
    expect(item.description).toContain('<p>Affected: Database</p>');
  });

  it('are well-formed RSS 2.0 with permalink guids', async () => {
    const { res, text } = await get('/history.rss');
    expect(res.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8');
    expect(XMLValidator.validate(text)).toBe(true);
    const channel = parser.parse(text).rss.channel;
    expect(channel.link).toBe('https://status.acme.test/');
    const item = channel.item.find((i: { link: string }) => i.link === 'https://status.acme.test/notices/8');
    expect(item.guid['@_isPermaLink']).toBe('true');
    expect(item.title).toBe('Database upgrade');
    expect(item.pubDate).toMatch(/^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d \+0000$/);
  });
});

describe('the badges', () => {
  it('show the page state and a component state as shields-style SVG with text', async () => {
    const page = await get('/badge.svg');
    expect(page.res.headers.get('content-type')).toBe('image/svg+xml');
    expect(XMLValidator.validate(page.text)).toBe(true);
    expect(page.text).toContain('aria-label="status: degraded"');
    const component = await get('/components/3/badge.svg');
    expect(component.text).toContain('<title>Web &lt;b&gt;app&lt;/b&gt;: operational</title>');
    const missing = await get('/components/99/badge.svg');
    expect(missing.res.status).toBe(404);
    // A 404 is not kept by caches: the component may exist a moment later.
    expect(missing.res.headers.get('cache-control')).toBe('no-store');
  });
});

describe('compression', () => {
  /** A GET through node:http, which (unlike fetch) leaves the body as the server sent it. */
  const raw = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      httpGet(`${base}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      }).on('error', reject);
    });

  it('sends the pages gzip-compressed to clients that accept it, as a representation with its own tag', async () => {
    const plain = await raw('/', {});
    const zipped = await raw('/', { 'Accept-Encoding': 'br, gzip;q=0.8' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('Accept-Encoding');
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 3);
    expect(zipped.headers.etag).not.toBe(plain.headers.etag);
    const again = await raw('/', { 'Accept-Encoding': 'gzip', 'If-None-Match': zipped.headers.etag! });
    expect(again.status).toBe(304);
    expect((await raw('/', { 'Accept-Encoding': 'gzip;q=0' })).headers['content-encoding']).toBeUndefined();
  });

  it('reads Accept-Encoding as RFC 9110 says', () => {
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('deflate, GZIP;q=0.5')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('gzip;q=0, br')).toBe(false);
    expect(acceptsGzip('gzip;q=0, *')).toBe(false);
    expect(acceptsGzip('*;q=0')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });

  it('leaves the JSON API as it was', async () => {
    const json = await raw('/api/v1/notices', { 'Accept-Encoding': 'gzip' });
    expect(json.headers['content-encoding']).toBeUndefined();
  });
});

describe('the upcoming page', () => {
  it('lists every maintenance window and announcement that the overview cuts short, and the overview links it', () => {
    const store = storeOf({
      notices: [
        ...Array.from({ length: 12 }, (_, i) =>
          noticeObject(`window-${i}`, 'planned', {
            statusId: 200 + i,
            subject: `Window ${i}`,
            beginsAt: iso((i + 1) * DAY),
            endsAt: iso((i + 1) * DAY + HOUR),
            updates: [{ state: 'scheduled', at: iso(-HOUR) }],
          }),
        ),
        ...Array.from({ length: 7 }, (_, i) =>
          noticeObject(`news-${i}`, 'general', { statusId: 300 + i, subject: `News ${i}`, updates: [] }),
        ),
      ],
    });
    const home = homePage(store.snapshot(), NOW).text;
    expect(home).toContain(
      'Showing 10 of 12 scheduled maintenance windows, soonest first: <a href="upcoming">all of them</a>.',
    );
    expect(home).not.toContain('Window 11');
    const all = upcomingPage(store.snapshot(), NOW).text;
    expect(all).toContain('Window 11');
    expect(all.indexOf('Window 0')).toBeLessThan(all.indexOf('Window 11'));
    expect(all.match(/>News \d</g)).toHaveLength(7);
  });

  it('is served like the other pages', async () => {
    const { res, text } = await get('/upcoming');
    expect(res.status).toBe(200);
    expect(text).toContain('Database upgrade');
  });
});
