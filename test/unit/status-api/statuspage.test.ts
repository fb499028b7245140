// The Statuspage v2 public format (/api/v2/*.json) over HTTP on a real port, read by a published
// third-party client of that format (npm `statuspage.io`), checked field by field against the
// format's words, and against what /api/v1 says of the same snapshot.
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { createStatusApp } from '../../../status-api/server.ts';
import { DAY, HOUR, NOW, componentObject, iso, noticeObject, pageObject, storeOf } from './builders.ts';

// The client is CommonJS.
const { Statuspage } = createRequire(import.meta.url)('statuspage.io') as {
  Statuspage: new (pageId: string) => {
    setApiUrl(url: string): void;
    api: {
      getSummary(): Promise<unknown>;
      getStatus(): Promise<unknown>;
      getComponents(): Promise<unknown>;
      incidents: { getAll(): Promise<unknown>; getUnresolved(): Promise<unknown> };
      scheduledMaintenances: { getUpcoming(): Promise<unknown> };
    };
  };
};

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A degraded page: a group with a degraded child, an open incident, maintenance upcoming and underway. */
function objects() {
  return {
    pages: [pageObject()],
    components: [
      componentObject('web', { id: 1, position: 1 }),
      componentObject('api', {
        id: 2,
        position: 2,
        parent: 'web',
        state: 'degraded',
        description: 'The API',
      }),
      componentObject('cdn', { id: 3, position: 3, parent: 'web' }),
      componentObject('db', { id: 4, position: 4, state: 'under-maintenance' }),
    ],
    notices: [
      noticeObject('slow-api', 'unplanned', {
        id: 10,
        subject: 'Slow API',
        components: ['api'],
        updates: [
          { state: 'investigating', at: iso(-2 * HOUR), content: 'Looking' },
          { state: 'identified', at: iso(-HOUR), content: 'Found it' },
        ],
      }),
      noticeObject('old-outage', 'unplanned', {
        id: 11,
        updates: [
          { state: 'investigating', at: iso(-3 * DAY) },
          { state: 'recovering', at: iso(-3 * DAY + HOUR) },
          { state: 'resolved', at: iso(-3 * DAY + 2 * HOUR) },
        ],
      }),
      noticeObject('db-upgrade', 'planned', {
        id: 12,
        components: ['db'],
        beginsAt: iso(-HOUR),
        endsAt: iso(HOUR),
        updates: [{ state: 'underway', at: iso(-HOUR) }],
      }),
      noticeObject('next-week', 'planned', { id: 13, beginsAt: iso(7 * DAY), endsAt: iso(7 * DAY + HOUR) }),
      noticeObject('hello', 'general', { id: 14, beginsAt: iso(-DAY) }),
    ],
  };
}

async function serve(): Promise<string> {
  const app = createStatusApp({
    store: storeOf(objects()),
    clock: () => NOW,
    config: { rateLimit: { enabled: false } },
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

// The format's words, as strict clients of it check them.
const time = z.iso.datetime();
const componentV2 = z.strictObject({
  id: z.string(),
  name: z.string(),
  status: z.enum([
    'operational',
    'degraded_performance',
    'partial_outage',
    'major_outage',
    'under_maintenance',
  ]),
  created_at: time,
  updated_at: time,
  position: z.number().int(),
  description: z.string().nullable(),
  showcase: z.boolean(),
  start_date: z.string().nullable(),
  group_id: z.string().nullable(),
  page_id: z.string(),
  group: z.boolean(),
  only_show_if_degraded: z.boolean(),
  components: z.array(z.string()).optional(),
  uptime_percent: z.number().min(0).max(100).nullable(),
});
const incidentV2 = z.strictObject({
  id: z.string(),
  name: z.string(),
  status: z.enum([
    'investigating',
    'identified',
    'monitoring',
    'resolved',
    'postmortem',
    'scheduled',
    'in_progress',
    'verifying',
    'completed',
  ]),
  created_at: time,
  updated_at: time,
  monitoring_at: time.nullable(),
  resolved_at: time.nullable(),
  impact: z.enum(['none', 'minor', 'major', 'critical', 'maintenance']),
  shortlink: z.url(),
  started_at: time,
  page_id: z.string(),
  incident_updates: z.array(
    z.strictObject({
      id: z.string(),
      status: z.string(),
      body: z.string(),
      incident_id: z.string(),
      created_at: time,
      updated_at: time,
      display_at: time,
      affected_components: z.null(),
    }),
  ),
  components: z.array(componentV2),
  scheduled_for: time.nullable().optional(),
  scheduled_until: time.nullable().optional(),
});
const pageV2 = z.strictObject({
  id: z.string(),
  name: z.string(),
  url: z.url(),
  time_zone: z.string(),
  updated_at: time,
});
const statusV2 = z.strictObject({
  indicator: z.enum(['none', 'minor', 'major', 'critical', 'maintenance']),
  description: z.string(),
});
const summary = z.strictObject({
  page: pageV2,
  components: z.array(componentV2),
  incidents: z.array(incidentV2),
  scheduled_maintenances: z.array(incidentV2),
  status: statusV2,
});

describe('the Statuspage v2 format', () => {
  it('is what a published Statuspage client reads: the page degraded, its components and its open incident, as /api/v1 says', async () => {
    const base = await serve();
    const client = new Statuspage('slipway');
    client.setApiUrl(base);
    const got = summary.parse(await client.api.getSummary());
    const v1 = (await (await fetch(`${base}/api/v1/status`)).json()) as {
      page: { name: string; state: string; url: string };
    };
    expect(v1.page.state).toBe('degraded');
    expect(got.status).toEqual({ indicator: 'minor', description: 'Partially Degraded Service' });
    expect(got.page).toMatchObject({
      id: 'acme',
      name: v1.page.name,
      url: v1.page.url,
      time_zone: 'Etc/UTC',
    });
    // Components: the group and its children, each with its state in Statuspage's words; the
    // group as its worst part, as Statuspage shows one (/api/v1 keeps its stored state).
    expect(got.components.map((c) => [c.id, c.status, c.group, c.group_id])).toEqual([
      ['1', 'degraded_performance', true, null],
      ['2', 'degraded_performance', false, '1'],
      ['3', 'operational', false, '1'],
      ['4', 'under_maintenance', false, null],
    ]);
    expect(got.components[0]!.components).toEqual(['2', '3']);
    const stored = (await (await fetch(`${base}/api/v1/components/1`)).json()) as {
      component: { state: string };
    };
    expect(stored.component.state).toBe('operational');
    // The open incident, its updates newest first, the component it affects.
    expect(got.incidents).toHaveLength(1);
    expect(got.incidents[0]).toMatchObject({
      id: '10',
      name: 'Slow API',
      status: 'identified',
      impact: 'minor',
      shortlink: 'https://status.acme.test/notices/10',
      started_at: iso(-2 * HOUR),
      resolved_at: null,
      components: [{ id: '2', name: expect.any(String) }],
    });
    expect(got.incidents[0]!.incident_updates.map((u) => [u.id, u.status, u.body])).toEqual([
      ['10-2', 'identified', 'Found it'],
      ['10-1', 'investigating', 'Looking'],
    ]);
    // Maintenance underway and upcoming; the general notice has no counterpart.
    expect(got.scheduled_maintenances.map((m) => [m.id, m.status, m.impact])).toEqual([
      ['13', 'scheduled', 'maintenance'],
      ['12', 'in_progress', 'maintenance'],
    ]);
    expect(got.scheduled_maintenances[1]).toMatchObject({
      scheduled_for: iso(-HOUR),
      scheduled_until: iso(HOUR),
    });

    expect(await client.api.getStatus()).toEqual({ page: got.page, status: got.status });
    expect(await client.api.getComponents()).toEqual({ page: got.page, components: got.components });
  });

  it('lists incidents and maintenances as Statuspage does: all recent ones, the unresolved, the upcoming and the active', async () => {
    const base = await serve();
    const client = new Statuspage('slipway');
    client.setApiUrl(base);
    const ids = (body: unknown, key: string) =>
      (body as Record<string, Array<{ id: string; status: string }>>)[key]!.map((i) => `${i.id}:${i.status}`);
    expect(ids(await client.api.incidents.getAll(), 'incidents')).toEqual(['10:identified', '11:resolved']);
    const old = ((await client.api.incidents.getAll()) as { incidents: unknown[] }).incidents[1];
    expect(incidentV2.parse(old)).toMatchObject({
      monitoring_at: iso(-3 * DAY + HOUR),
      resolved_at: iso(-3 * DAY + 2 * HOUR),
    });
    expect(ids(await client.api.incidents.getUnresolved(), 'incidents')).toEqual(['10:identified']);
    expect(ids(await client.api.scheduledMaintenances.getUpcoming(), 'scheduled_maintenances')).toEqual([
      '13:scheduled',
    ]);
    // (That client asks for upcoming.json for "all" and "active" too: read those directly.)
    const direct = async (path: string) => (await fetch(`${base}${path}`)).json();
    expect(ids(await direct('/api/v2/scheduled-maintenances.json'), 'scheduled_maintenances')).toEqual([
      '13:scheduled',
      '12:in_progress',
    ]);
    expect(ids(await direct('/api/v2/scheduled-maintenances/active.json'), 'scheduled_maintenances')).toEqual(
      ['12:in_progress'],
    );
  });

  it('is served like /api/v1: ETag and 304, CORS, and 400 for a query it does not take', async () => {
    const base = await serve();
    const first = await fetch(`${base}/api/v2/summary.json`);
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    expect(first.headers.get('cache-control')).toBe('public, max-age=5');
    const etag = first.headers.get('etag')!;
    expect((await fetch(`${base}/api/v2/summary.json`, { headers: { 'if-none-match': etag } })).status).toBe(
      304,
    );
    // Compressed for clients that accept it (fetch asks for gzip, and undoes it).
    expect(first.headers.get('content-encoding')).toBe('gzip');
    expect(first.headers.get('vary')).toBe('Accept-Encoding');
    expect((await fetch(`${base}/api/v2/summary.json?page=2`)).status).toBe(400);
    expect((await fetch(`${base}/api/v2/nothing.json`)).status).toBe(404);
  });
});
