// Subscriber webhooks (StatusPage spec.webhooks) on a real API server, with receivers on a real
// port: Statuspage's incident and component payloads, signed; only what happened after a webhook
// was added; a webhook limited to some components; a receiver that redirects shown on the
// StatusPage (failing for a day after 24 hours), and the change delivered once it takes it,
// across restarts, never twice.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { StatusComponentObject, StatusNoticeObject, StatusPageObject } from '../../../../crds/index.ts';
import type { Operator } from '../../../../operator/operator.ts';
import * as build from '../../../support/builders.ts';
import { createNamespace, testKubeConfig, waitFor, kubectlApply } from '../../../support/cluster.ts';
import { runPlugin } from '../../../support/plugin.ts';
import { startReceiver, type Receiver } from '../../../support/receiver.ts';
import { clients, startOperator } from '../support.ts';

const HMAC_KEY = 'status-webhook-key';
const DAY_MS = 24 * 3600_000;

const kc = testKubeConfig();
const api = clients(kc).slipway;
let ns: { name: string; remove: () => Promise<void> };
let operator: Operator | undefined;
let receiver: Receiver;

const to = (path: string) => receiver.to(path);
const about = (path: string, kind: 'incident' | 'component', id: number) =>
  to(path).filter((d) => d.body[kind]?.id === String(id));

const apply = (...objects: unknown[]) => kubectlApply(objects);

const page = () => api.get<StatusPageObject>('StatusPage', ns.name, 'status');
const component = (name: string) => api.get<StatusComponentObject>('StatusComponent', ns.name, name);
const notice = (name: string) => api.get<StatusNoticeObject>('StatusNotice', ns.name, name);
const deliveryCondition = async () =>
  (await page()).status?.conditions?.find((c) => c.type === 'WebhooksDelivered');

async function deliveredTo(
  get: () => Promise<{ status?: { announced?: { deliveredTo: string[] } } }>,
  names: string[],
) {
  await waitFor(`status.announced.deliveredTo to be ${names.join(', ')}`, async () => {
    const got = (await get()).status?.announced?.deliveredTo ?? [];
    return JSON.stringify(got) === JSON.stringify(names) ? true : undefined;
  });
}

const hooks = (...extra: object[]) => [
  { name: 'all', secretRef: { name: 'all' } },
  { name: 'db-only', secretRef: { name: 'db-only' }, components: [ids.db] },
  ...extra,
];
const ids = { api: 0, db: 0 };

beforeAll(async () => {
  receiver = await startReceiver();
  const base = receiver.base;
  ns = await createNamespace(kc, 'status-hooks');
  const secret = (name: string, data: Record<string, string>) =>
    clients(kc).core.createNamespacedSecret({
      namespace: ns.name,
      body: { metadata: { name }, stringData: data },
    });
  await secret('all', { url: `${base}/all/token-all`, hmacKey: HMAC_KEY });
  await secret('db-only', { url: `${base}/db/token-db` });
  await secret('flaky', { url: `${base}/flaky/token-flaky` });
  // A notice from before the page had webhooks: no news to them.
  await apply(
    build.statusPage('status', build.inNamespace(ns.name)),
    build.statusComponent('api', build.inNamespace(ns.name)),
    build.statusComponent('db', build.inNamespace(ns.name)),
    build.statusNotice('earlier', build.inNamespace(ns.name)),
  );
  operator = await startOperator(kc, ns.name);
  ids.api = (await waitFor('api id', async () => (await component('api')).status?.id)) as number;
  ids.db = (await waitFor('db id', async () => (await component('db')).status?.id)) as number;
  // Webhooks are told of what is created from the second they are added on.
  const created = Date.parse((await notice('earlier')).metadata.creationTimestamp!);
  await waitFor('the next second', async () => (Date.now() >= created + 1000 ? true : undefined));
  await api.patch('StatusPage', ns.name, 'status', { spec: { webhooks: hooks() } });
  await waitFor('both webhooks on the StatusPage since now', async () =>
    (await page()).status?.webhooks?.length === 2 ? true : undefined,
  );
  await waitFor('the earlier notice recorded', async () => (await notice('earlier')).status?.announced);
});

afterAll(async () => {
  await operator?.stop();
  receiver?.close();
  await ns?.remove();
});

describe('status page subscriber webhooks', () => {
  let outageId = 0;

  it('tells every subscriber of a new incident in Statuspage’s format, signed when a key is set', async () => {
    const at = new Date(Date.now() - 60_000).toISOString();
    await apply(
      build.statusNotice(
        'outage',
        build.inNamespace(ns.name),
        build.spec({
          subject: 'API errors',
          componentRefs: [{ name: 'api' }],
          updates: [{ state: 'investigating', content: 'Looking into API errors.', at }],
        }),
      ),
    );
    outageId = (await waitFor('outage id', async () => (await notice('outage')).status?.id)) as number;
    const [sent] = await waitFor('the incident at /all', async () => {
      const got = about('/all/token-all', 'incident', outageId);
      return got.length > 0 ? got : undefined;
    });
    expect(sent!.headers['content-type']).toBe('application/json');
    expect(sent!.headers['x-signature']).toBe(
      `sha256=${createHmac('sha256', HMAC_KEY).update(sent!.raw).digest('hex')}`,
    );
    expect(sent!.body).toMatchObject({
      meta: { documentation: 'https://status.example.com', generated_at: expect.any(String) },
      page: { id: 'status', status_indicator: 'minor', status_description: 'Partially Degraded Service' },
      incident: {
        id: String(outageId),
        name: 'API errors',
        status: 'investigating',
        impact: 'minor',
        shortlink: `https://status.example.com/notices/${outageId}`,
        page_id: 'status',
        incident_updates: [{ status: 'investigating', body: 'Looking into API errors.', display_at: at }],
        components: [{ id: String(ids.api), name: 'api', status: 'operational' }],
      },
    });
    await deliveredTo(() => notice('outage'), ['all']);
    await operator!.deliveries.idle();
    // db-only wants db alone; the earlier notice was there before the webhooks.
    expect(to('/db/token-db')).toEqual([]);
    const earlierId = (await notice('earlier')).status!.id!;
    expect(receiver.deliveries.filter((d) => d.body.incident?.id === String(earlierId))).toEqual([]);
  });

  it('sends `kubectl slipway notice update` once, its newest update first', async () => {
    const updated = await runPlugin(
      ns.name,
      'notice',
      'update',
      'outage',
      '--state',
      'identified',
      '--message',
      'A bad deploy; rolling back.',
    );
    expect(updated.code).toBe(0);
    const update = await waitFor('the update at /all', async () =>
      about('/all/token-all', 'incident', outageId).find((d) => d.body.incident.status === 'identified'),
    );
    expect(update.body.incident.incident_updates.map((u: { status: string }) => u.status)).toEqual([
      'identified',
      'investigating',
    ]);
    await deliveredTo(() => notice('outage'), ['all']);
    await operator!.deliveries.idle();
    expect(about('/all/token-all', 'incident', outageId)).toHaveLength(2);
  });

  it('tells of a component change, old and new status, only the webhooks that want that component', async () => {
    await api.patch('StatusComponent', ns.name, 'db', { spec: { state: 'degraded' } });
    for (const path of ['/all/token-all', '/db/token-db']) {
      const sent = await waitFor(`db's change at ${path}`, async () => about(path, 'component', ids.db)[0]);
      expect(sent.body).toMatchObject({
        page: { id: 'status' },
        component_update: {
          component_id: String(ids.db),
          old_status: 'operational',
          new_status: 'degraded_performance',
        },
        component: { id: String(ids.db), name: 'db', status: 'degraded_performance', page_id: 'status' },
      });
    }
    await deliveredTo(() => component('db'), ['all', 'db-only']);
    await api.patch('StatusComponent', ns.name, 'api', { spec: { state: 'degraded' } });
    await waitFor("api's change at /all", async () => about('/all/token-all', 'component', ids.api)[0]);
    await deliveredTo(() => component('api'), ['all']);
    await operator!.deliveries.idle();
    expect(about('/db/token-db', 'component', ids.api)).toEqual([]);
    expect((await deliveryCondition())?.status).toBe('True');
  });

  it('tells of a group when one of its parts changes what it shows: the worst state of its parts', async () => {
    await apply(
      build.statusComponent('platform', build.inNamespace(ns.name)),
      build.statusComponent(
        'web',
        build.inNamespace(ns.name),
        build.spec({ parentRef: { name: 'platform' } }),
      ),
    );
    const platformId = (await waitFor('platform recorded', async () => {
      const c = await component('platform');
      return c.status?.announced ? c.status.id : undefined;
    })) as number;
    await waitFor('web recorded', async () => (await component('web')).status?.announced);
    await api.patch('StatusComponent', ns.name, 'web', { spec: { state: 'under-maintenance' } });
    // The group's own state is still operational; it shows, and subscribers are told, its part's.
    const sent = await waitFor(
      "platform's change at /all",
      async () => about('/all/token-all', 'component', platformId)[0],
    );
    expect(sent.body).toMatchObject({
      component_update: { old_status: 'operational', new_status: 'under_maintenance' },
      component: { id: String(platformId), name: 'platform', status: 'under_maintenance' },
    });
    expect((await component('platform')).spec.state ?? 'operational').toBe('operational');
  });

  it('shows a receiver that redirects on the StatusPage, marks a failing day, and delivers once it takes it', async () => {
    const path = '/flaky/token-flaky';
    receiver.answers.set(path, [{ status: 302, headers: { location: 'https://elsewhere.example/' } }]);
    await api.patch('StatusPage', ns.name, 'status', {
      spec: { webhooks: hooks({ name: 'flaky', secretRef: { name: 'flaky' } }) },
    });
    await waitFor('flaky on the StatusPage', async () =>
      (await page()).status?.webhooks?.some((w) => w.name === 'flaky') ? true : undefined,
    );
    await api.patch('StatusComponent', ns.name, 'api', { spec: { state: 'under-maintenance' } });
    const failing = await waitFor('WebhooksDelivered=False', async () => {
      const c = await deliveryCondition();
      return c?.status === 'False' ? c : undefined;
    });
    expect(failing.reason).toBe('WebhookFailing');
    expect(failing.message).toMatch(/webhook flaky did not take component api: HTTP 302/);
    expect(failing.message).not.toContain('token-flaky');
    const entry = (await page()).status?.webhooks?.find((w) => w.name === 'flaky');
    expect(entry).toMatchObject({
      failingSince: expect.any(String),
      lastError: expect.stringMatching(/HTTP 302/),
    });
    // The others are not held up by it.
    await deliveredTo(() => component('api'), ['all']);
    expect(to(path)).toHaveLength(1);

    // A day later (the operator restarted with a clock 25 hours ahead), still failing.
    await operator!.stop();
    receiver.answers.set(path, [{ status: 500 }, { status: 500 }, { status: 500 }]);
    operator = await startOperator(kc, ns.name, {}, { now: () => new Date(Date.now() + DAY_MS + 3600_000) });
    const day = await waitFor('a failing day on the StatusPage', async () => {
      const c = await deliveryCondition();
      return c?.message.includes('failing for a day') ? c : undefined;
    });
    expect(day.reason).toBe('WebhookFailing');
    await operator!.deliveries.idle();
    expect(to(path)).toHaveLength(4);

    // After the next restart it takes the change: once, and nobody else gets it again.
    await operator.stop();
    const allBefore = to('/all/token-all').length;
    operator = await startOperator(kc, ns.name);
    await deliveredTo(() => component('api'), ['all', 'flaky']);
    const taken = to(path).at(-1)!;
    expect(taken.body.component_update).toMatchObject({
      old_status: 'degraded_performance',
      new_status: 'under_maintenance',
    });
    await waitFor('WebhooksDelivered=True', async () =>
      (await deliveryCondition())?.status === 'True' ? true : undefined,
    );
    await operator!.deliveries.idle();
    expect(to(path)).toHaveLength(5);
    expect(to('/all/token-all')).toHaveLength(allBefore);
  });

  it('lets the webhooks of a deleted StatusPage go and keeps running: a later change is sent to nobody', async () => {
    await api.delete('StatusPage', ns.name, 'status');
    await waitFor('the operator to see the page go', async () =>
      operator!.context.informers.statusPages.get(ns.name, 'status') ? undefined : true,
    );
    const sent = receiver.deliveries.length;
    await api.patch('StatusComponent', ns.name, 'db', { spec: { state: 'operational' } });
    await waitFor('the operator to see the change', async () =>
      operator!.context.informers.statusComponents.get(ns.name, 'db')?.spec.state === 'operational'
        ? true
        : undefined,
    );
    await operator!.deliveries.idle();
    expect(receiver.deliveries).toHaveLength(sent);
  });
});
