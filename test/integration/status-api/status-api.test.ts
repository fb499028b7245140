// The status API served from informer caches of resources applied with kubectl to a real API server.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { logger } from '../../../lib/log.ts';
import { createStatusApp } from '../../../status-api/server.ts';
import { StatusStore } from '../../../status-api/store.ts';
import { watchStatusResources } from '../../../status-api/watch.ts';
import * as build from '../../support/builders.ts';
import { createNamespace, kubectl, testKubeConfig, waitFor, kubectlApply } from '../../support/cluster.ts';

let ns: { name: string; remove: () => Promise<void> };
let server: Server;
let base: string;
let watch: { stop: () => Promise<unknown> };
const log = logger.child({ test: 'status-api' });

const apply = (...objects: unknown[]) => kubectlApply(objects);

// Response bodies are read as a client would: untyped JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, { headers });
  const body: Json = res.status === 304 ? undefined : await res.json();
  return { status: res.status, headers: res.headers, body };
}

beforeAll(async () => {
  const kc = testKubeConfig();
  ns = await createNamespace(kc, 'status');
  await apply(
    build.statusPage(
      'status',
      build.inNamespace(ns.name),
      build.spec({ name: 'Acme Hosting', url: 'https://status.acme.example' }),
    ),
    build.statusComponent(
      'platform',
      build.inNamespace(ns.name),
      build.spec({ name: 'Platform', id: 1, position: 1 }),
    ),
    build.statusComponent(
      'databases',
      build.inNamespace(ns.name),
      build.spec({
        name: 'Databases',
        id: 2,
        parentRef: { name: 'platform' },
      }),
    ),
    build.statusNotice(
      'outage',
      build.inNamespace(ns.name),
      build.spec({
        id: 10,
        componentRefs: [{ name: 'databases' }],
        updates: [
          {
            state: 'identified',
            content: 'Disk I/O saturated.',
            at: new Date(Date.now() - 60_000).toISOString(),
          },
        ],
      }),
    ),
  );
  const store = new StatusStore();
  // Rate limit on, at the spec's 10/s, so the last test sees it.
  const app = createStatusApp({ store, logger: log });
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  watch = await watchStatusResources(kc, ns.name, store, log);
});

afterAll(async () => {
  await watch?.stop();
  server?.close();
  await ns?.remove();
});

describe('status API on real resources', () => {
  it('derives the page from the applied notices', async () => {
    const { status, body } = await get('/api/v1/status');
    expect(status).toBe(200);
    expect(body.page).toMatchObject({
      name: 'Acme Hosting',
      state: 'degraded',
      url: 'https://status.acme.example',
      links: {
        components: { href: '/api/v1/components', count: 2 },
        notices: { href: '/api/v1/notices', count: 1 },
      },
    });
  });

  it('lists the component tree', async () => {
    const top = await get('/api/v1/components?filter[parent_id_null]=true');
    expect(top.body.components.map((c: { name: string }) => c.name)).toEqual(['Platform']);
    expect(top.body.components[0].links.children).toEqual({
      href: '/v1/components?filter[parent_id_eq]=1',
      count: 1,
    });
    const children = await get('/v1/components?filter[parent_id_eq]=1');
    expect(children.body.components).toEqual([
      expect.objectContaining({ id: 2, parent_id: 1, name: 'Databases' }),
    ]);
  });

  it('shows a notice detail with its components and updates', async () => {
    const { body } = await get('/api/notices/10');
    expect(body.notice).toMatchObject({
      id: 10,
      type: 'unplanned',
      state: 'identified',
      timeline_state: 'present',
      links: { self: '/api/notices/10' },
      components: [expect.objectContaining({ id: 2, name: 'Databases' })],
      updates: [expect.objectContaining({ state: 'identified', content: 'Disk I/O saturated.' })],
    });
  });

  it('shows a change made with kubectl', async () => {
    await kubectl([
      'patch',
      'statusnotice',
      'outage',
      '-n',
      ns.name,
      '--type=json',
      '-p',
      JSON.stringify([
        {
          op: 'add',
          path: '/spec/updates/-',
          value: { state: 'resolved', content: 'Fixed.', at: new Date().toISOString() },
        },
      ]),
    ]);
    const page = await waitFor('the page to become operational', async () => {
      const { body } = await get('/api/v1/status');
      return body.page.state === 'operational' ? body.page : undefined;
    });
    expect(page.state_text).toBeTruthy();
    const { body } = await get('/api/v1/notices?filter[timeline_state_eq]=past_recent');
    expect(body.notices.map((n: { id: number }) => n.id)).toEqual([10]);
  });

  it("moves updated_at when a component's spec is edited (from managedFields, kept in the cache)", async () => {
    const before = (await get('/api/v1/components?filter[parent_id_eq]=1')).body.components[0];
    expect(before.updated_at).toBe(before.created_at);
    // The API server stamps managedFields to the second: edit in a later second than the creation.
    await waitFor('a second after the creation', async () =>
      Date.now() >= Date.parse(before.created_at) + 1_100 ? true : undefined,
    );
    await kubectl([
      'patch',
      'statuscomponent',
      'databases',
      '-n',
      ns.name,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { description: 'Primary and replicas.' } }),
    ]);
    const after = await waitFor('updated_at to move', async () => {
      const c = (await get('/api/v1/components?filter[parent_id_eq]=1')).body.components[0];
      return c.updated_at !== before.updated_at ? c : undefined;
    });
    expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(after.created_at));
  });

  it('answers 304 to a matching ETag and 404 to an unknown notice', async () => {
    const first = await get('/api/v1/components');
    const again = await get('/api/v1/components', { 'If-None-Match': first.headers.get('etag')! });
    expect(again.status).toBe(304);
    const missing = await get('/api/v1/notices/999');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ status: 404 });
  });

  it('limits one client to 10 requests per second', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 25 }, () => get('/api/v1/status').then((r) => r)),
    );
    const limited = statuses.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited[0]!.headers.get('ratelimit-limit')).toBe('10');
  });
});
