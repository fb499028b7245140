// The HTTP server on a real port, fed plain objects: what a client sees on the wire.
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createStatusApp,
  type RequestObservation,
  type StatusAppOptions,
} from '../../../status-api/server.ts';
import { StatusStore } from '../../../status-api/store.ts';
import { DAY, HOUR, NOW, componentObject, iso, noticeObject, pageObject, storeOf } from './builders.ts';
import { waitFor } from '../../../lib/wait.ts';

interface Running {
  base: string;
  clock: { now: Date; advance(ms: number): void };
}

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(options: Partial<StatusAppOptions> = {}): Promise<Running> {
  const clock = {
    now: NOW,
    advance(ms: number) {
      this.now = new Date(this.now.getTime() + ms);
    },
  };
  const app = createStatusApp({
    store: options.store ?? storeOf(fixture()),
    clock: () => clock.now,
    config: { rateLimit: { enabled: false }, ...options.config },
    ...(options.observeRequest ? { observeRequest: options.observeRequest } : {}),
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  servers.push(server);
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, clock };
}

function fixture() {
  return {
    pages: [pageObject()],
    components: Array.from({ length: 30 }, (_, i) =>
      componentObject(`c${i + 1}`, { id: i + 1, position: i }),
    ),
    notices: [
      noticeObject('maintenance', 'planned', {
        id: 3,
        beginsAt: iso(HOUR),
        endsAt: iso(2 * HOUR),
        components: ['c1'],
        updates: [{ state: 'underway', at: iso(HOUR) }],
      }),
      noticeObject('old', 'unplanned', { id: 4, updates: [{ state: 'resolved', at: iso(-20 * DAY) }] }),
    ],
  };
}

/** The parts of response bodies these tests look at. */
interface Body {
  page: { name: string; state: string };
  meta: { count: number; total_count: number; next_page: string | null };
  error: { status: number; code: string; message: string };
}
const json = async (response: Response) => (await response.json()) as Body;

describe('status API over HTTP', () => {
  it('answers 503 until the store has synced', async () => {
    const store = new StatusStore();
    const { base } = await serve({ store });
    const response = await fetch(`${base}/api/v1/status`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await json(response)).toEqual({
      error: { status: 503, code: 'not_ready', message: expect.any(String) },
    });
    store.upsertPage(pageObject());
    store.markSynced('StatusPage');
    store.markSynced('StatusComponent');
    store.markSynced('StatusNotice');
    expect((await fetch(`${base}/api/v1/status`)).status).toBe(200);
  });

  it.each([
    ['/api/v1/status', 'page'],
    ['/v1/status', 'page'],
    ['/api/v1/components', 'components'],
    ['/v1/components', 'components'],
    ['/api/v1/notices', 'notices'],
    ['/v1/notices', 'notices'],
    ['/api/v1/notices/3', 'notice'],
    ['/v1/notices/3', 'notice'],
    ['/api/notices/3', 'notice'],
  ])('GET %s answers JSON under "%s" with caching and CORS headers', async (path, key) => {
    const { base } = await serve();
    const response = await fetch(`${base}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=5');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(Object.keys(await json(response))).toContain(key);
  });

  it('serves the same notice under all three detail paths', async () => {
    const { base } = await serve();
    const bodies = await Promise.all(
      ['/api/v1/notices/3', '/v1/notices/3', '/api/notices/3'].map(async (p) =>
        (await fetch(`${base}${p}`)).text(),
      ),
    );
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0] ?? '')).toMatchObject({
      notice: { id: 3, links: { self: '/api/notices/3' }, components: [{ id: 1 }] },
    });
  });

  it('links the next page under the path the client used', async () => {
    const { base } = await serve();
    const first = await json(await fetch(`${base}/v1/components?filter[parent_id_null]=true`));
    expect(first.meta).toEqual({
      count: 25,
      total_count: 30,
      next_page: '/v1/components?filter[parent_id_null]=true&page=2',
    });
    const second = await json(await fetch(`${base}${first.meta.next_page}`));
    expect(second.meta).toEqual({ count: 5, total_count: 30, next_page: null });
  });

  it('answers 304 to a matching If-None-Match, and 200 again once the content changes', async () => {
    const store = storeOf(fixture());
    const { base, clock } = await serve({ store });
    const first = await fetch(`${base}/api/v1/status`);
    const etag = first.headers.get('etag') ?? '';
    await first.text();

    const revalidated = await fetch(`${base}/api/v1/status`, { headers: { 'If-None-Match': etag } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('etag')).toBe(etag);
    expect(revalidated.headers.get('cache-control')).toBe('public, max-age=5');
    expect(await revalidated.text()).toBe('');

    const weak = await fetch(`${base}/api/v1/status`, { headers: { 'If-None-Match': `"other", W/${etag}` } });
    expect(weak.status).toBe(304);

    const stale = await fetch(`${base}/api/v1/status`, { headers: { 'If-None-Match': '"other"' } });
    expect(stale.status).toBe(200);
    await stale.text();

    // The maintenance starts: same resources, later clock, different page state.
    clock.advance(HOUR);
    const later = await fetch(`${base}/api/v1/status`, { headers: { 'If-None-Match': etag } });
    expect(later.status).toBe(200);
    expect((await json(later)).page.state).toBe('under-maintenance');
    const laterEtag = later.headers.get('etag');
    expect(laterEtag).not.toBe(etag);

    store.upsertPage(pageObject({ name: 'Renamed' }));
    const renamed = await fetch(`${base}/api/v1/status`, { headers: { 'If-None-Match': laterEtag ?? '' } });
    expect(renamed.status).toBe(200);
    expect((await json(renamed)).page.name).toBe('Renamed');
  });

  it('answers a repeated request (from memory, before routing) exactly as the first', async () => {
    const { base } = await serve({ config: { rateLimit: { requestsPerSecond: 10, burst: 10 } } });
    for (const path of ['/api/v1/components?page=2', '/api/v1/notices/999', '/', '/history.atom']) {
      const first = await fetch(`${base}${path}`);
      const second = await fetch(`${base}${path}`);
      const headers = (r: Response) =>
        [...r.headers].filter(([name]) => !['date', 'x-request-id', 'ratelimit-remaining'].includes(name));
      expect(second.status).toBe(first.status);
      expect(headers(second)).toEqual(headers(first));
      expect(second.headers.get('ratelimit-remaining')).toBe(
        String(Number(first.headers.get('ratelimit-remaining')) - 1),
      );
      expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
      expect(await second.text()).toBe(await first.text());
    }
  });

  it('answers HEAD like GET, without a body', async () => {
    const { base } = await serve();
    const response = await fetch(`${base}/api/v1/notices`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toMatch(/^"/);
    expect(await response.text()).toBe('');
  });

  it.each([
    ['/api/v1/nothing', 'no such path'],
    ['/api/v2/status', 'no such path'],
    ['/api/v1/notices/999', "no notice with id '999'"],
    ['/api/notices/abc', "no notice with id 'abc'"],
  ])('GET %s is a JSON 404', async (path, message) => {
    const { base } = await serve();
    const response = await fetch(`${base}${path}`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await json(response)).toEqual({ error: { status: 404, code: 'not_found', message } });
  });

  it.each([
    ['/api/v1/notices?filter[type_eq]=incident', 'invalid_filter'],
    ['/api/v1/notices?filter[unknown]=1', 'invalid_filter'],
    ['/api/v1/components?filter[parent_id_null]=maybe', 'invalid_filter'],
    ['/api/v1/components?page=0', 'invalid_page'],
    ['/api/v1/notices?page=abc', 'invalid_page'],
    ['/api/v1/status?page=2', 'invalid_page'],
    ['/api/v1/notices/%E0%A4%A', 'bad_request'],
  ])('GET %s is a JSON 400 (%s)', async (path, code) => {
    const { base } = await serve();
    const response = await fetch(`${base}${path}`);
    expect(response.status).toBe(400);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await json(response)).toEqual({ error: { status: 400, code, message: expect.any(String) } });
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])('%s on an endpoint is a 405 with Allow', async (method) => {
    const { base } = await serve();
    const response = await fetch(`${base}/api/v1/notices/3`, {
      method,
      body: method === 'DELETE' ? null : '{}',
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect((await json(response)).error).toMatchObject({ status: 405, code: 'method_not_allowed' });
  });

  it('answers OPTIONS with the allowed methods, for CORS preflights', async () => {
    const { base } = await serve();
    const response = await fetch(`${base}/api/v1/status`, { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, HEAD');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers a POST to an unknown path with 404, not 405', async () => {
    const { base } = await serve();
    expect((await fetch(`${base}/api/v1/elsewhere`, { method: 'POST' })).status).toBe(404);
  });
});

describe('rate limit', () => {
  const limited = { rateLimit: { enabled: true } };
  const hit = (base: string, headers: Record<string, string> = {}, path = '/api/v1/status') =>
    fetch(`${base}${path}`, { headers }).then(async (r) => {
      await r.arrayBuffer();
      return r;
    });

  it('allows 10 requests at once, then answers 429 with Retry-After until a token is earned back', async () => {
    const { base, clock } = await serve({ config: limited });
    const allowed = [];
    for (let i = 0; i < 10; i += 1) allowed.push(await hit(base));
    expect(allowed.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(allowed.map((r) => r.headers.get('ratelimit-remaining'))).toEqual([
      '9',
      '8',
      '7',
      '6',
      '5',
      '4',
      '3',
      '2',
      '1',
      '0',
    ]);
    expect(allowed[0]?.headers.get('ratelimit-limit')).toBe('10');

    const refused = await fetch(`${base}/api/v1/status`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('ratelimit-limit')).toBe('10');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('ratelimit-reset')).toBe('1');
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    expect((await json(refused)).error).toMatchObject({ status: 429, code: 'rate_limited' });

    clock.advance(99);
    expect((await hit(base)).status).toBe(429);
    clock.advance(1);
    expect((await hit(base)).status).toBe(200);
    expect((await hit(base)).status).toBe(429);
  });

  it('counts every path, including unknown ones', async () => {
    const { base } = await serve({ config: limited });
    for (let i = 0; i < 10; i += 1) await hit(base, {}, '/nowhere');
    expect((await hit(base)).status).toBe(429);
  });

  it('can be switched off, e.g. for benchmarks', async () => {
    const { base } = await serve({ config: { rateLimit: { enabled: false } } });
    const statuses = [];
    for (let i = 0; i < 25; i += 1) statuses.push((await hit(base)).status);
    expect(statuses).toEqual(Array(25).fill(200));
    expect((await hit(base)).headers.get('ratelimit-limit')).toBeNull();
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const { base } = await serve({ config: limited });
    for (let i = 0; i < 10; i += 1) await hit(base, { 'X-Forwarded-For': `203.0.113.${i}` });
    expect((await hit(base, { 'X-Forwarded-For': '198.51.100.1' })).status).toBe(429);
  });

  it('limits an IPv6 client by its /64: rotating addresses inside it buys no more requests', async () => {
    const { base } = await serve({ config: { ...limited, trustedProxies: ['127.0.0.0/8'] } });
    for (let i = 1; i <= 10; i += 1)
      await hit(base, { 'X-Forwarded-For': `2001:db8:7:7::${i.toString(16)}` });
    expect((await hit(base, { 'X-Forwarded-For': '2001:db8:7:7:abcd::1' })).status).toBe(429);
    expect((await hit(base, { 'X-Forwarded-For': '2001:db8:7:8::1' })).status).toBe(200);
  });

  it('limits each forwarded client apart when the peer is a trusted proxy', async () => {
    const { base } = await serve({ config: { ...limited, trustedProxies: ['127.0.0.0/8'] } });
    for (let i = 0; i < 10; i += 1) await hit(base, { 'X-Forwarded-For': '203.0.113.1' });
    expect((await hit(base, { 'X-Forwarded-For': '203.0.113.1' })).status).toBe(429);
    expect((await hit(base, { 'X-Forwarded-For': '198.51.100.1' })).status).toBe(200);
    // A client cannot escape by prepending a forged address; the proxy's entry is the rightmost.
    expect((await hit(base, { 'X-Forwarded-For': '192.0.2.99, 203.0.113.1' })).status).toBe(429);
  });

  it('rejects an invalid trusted proxy at start-up', () => {
    expect(() =>
      createStatusApp({ store: new StatusStore(), config: { trustedProxies: ['10.0.0.0/99'] } }),
    ).toThrow(/invalid trusted proxy/);
  });
});

describe('request metrics hook', () => {
  it('reports each request by route template, never by raw path', async () => {
    const observations: RequestObservation[] = [];
    let expected = 0;
    let notify: () => void = () => undefined;
    const observed = (count: number) =>
      new Promise<void>((resolve) => {
        expected = count;
        notify = () => observations.length >= expected && resolve();
        notify();
      });
    const { base } = await serve({
      config: { rateLimit: { enabled: true, burst: 4 } },
      observeRequest: (o) => {
        observations.push(o);
        notify();
      },
    });
    for (const path of ['/api/v1/notices/3', '/api/notices/4?x=1', '/secret/token-123', '/v1/components']) {
      await (await fetch(`${base}${path}`)).arrayBuffer();
    }
    await (await fetch(`${base}/api/v1/status`, { method: 'POST' })).arrayBuffer();
    await observed(5);
    expect(observations.map(({ method, route, status }) => ({ method, route, status }))).toEqual([
      { method: 'GET', route: '/api/v1/notices/:id', status: 200 },
      { method: 'GET', route: '/api/notices/:id', status: 200 },
      { method: 'GET', route: 'unmatched', status: 404 },
      { method: 'GET', route: '/v1/components', status: 200 },
      { method: 'POST', route: '/api/v1/status', status: 429 },
    ]);
    expect(observations.every((o) => o.durationSeconds >= 0 && o.durationSeconds < 10)).toBe(true);
  });

  it('reports answers from memory too, once each, refused ones with their status', async () => {
    const observations: RequestObservation[] = [];
    const { base } = await serve({
      config: { rateLimit: { enabled: true, burst: 2, requestsPerSecond: 0.001 } },
      observeRequest: (o) => observations.push(o),
    });
    // The first is routed; the same URL again is answered from memory, the third refused there.
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await fetch(`${base}/api/v1/status`)).status);
    expect(statuses).toEqual([200, 200, 429]);
    await waitFor('three observations', async () => (observations.length >= 3 ? true : undefined));
    expect(observations.map(({ route, status }) => ({ route, status }))).toEqual([
      { route: '/api/v1/status', status: 200 },
      { route: '/api/v1/status', status: 200 },
      { route: '/api/v1/status', status: 429 },
    ]);
  });
});
