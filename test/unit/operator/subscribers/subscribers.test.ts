// The payloads subscriber webhooks get (operator/subscribers/payloads.ts), checked against the
// keys of Statuspage's own webhook deliveries, and how each webhook is shown on the StatusPage
// (subscriber-health.ts).
import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import {
  componentPayload,
  incidentPayload,
  webhookRequest,
} from '../../../../operator/subscribers/payloads.ts';
import { FAILING_LONG_MS } from '../../../../operator/delivery/retry.ts';
import { webhookPageStatus } from '../../../../operator/subscribers/subscriber-health.ts';
import { noticeAt, noticeFromObject } from '../../../../rules/notice-timeline.ts';
import { componentCore, incidentCore, incidentStatus } from '../../../../rules/statuspage.ts';
import { spec, statusNotice, stored } from '../../../support/builders.ts';

const NOW = new Date('2026-11-26T12:00:00Z');
const incident = (...updates: Array<{ state?: string; content: string; at: string }>) =>
  statusNotice('outage', stored(), spec({ id: 7, updates, tags: [] }));

// The keys of Statuspage's own webhook deliveries (support.atlassian.com, "Enable webhook
// notifications", and a delivery kept as a fixture by Zulip's Statuspage integration).
const STATUSPAGE_KEYS = {
  meta: ['documentation', 'generated_at', 'unsubscribe'],
  page: ['id', 'status_description', 'status_indicator'],
  component: [
    'created_at',
    'description',
    'group_id',
    'id',
    'name',
    'page_id',
    'position',
    'showcase',
    'status',
    'updated_at',
  ],
  component_update: ['component_id', 'component_type', 'created_at', 'id', 'new_status', 'old_status'],
  incident: [
    'created_at',
    'id',
    'impact',
    'incident_updates',
    'monitoring_at',
    'name',
    'resolved_at',
    'shortlink',
    'status',
    'updated_at',
  ],
  incident_update: ['body', 'created_at', 'display_at', 'id', 'incident_id', 'status', 'updated_at'],
};
const keysOf = (o: object) => Object.keys(o).sort();
const page = { id: 'status', state: 'degraded' as const, url: 'https://status.example.com' };

describe("Statuspage's webhook payloads", () => {
  const api = componentCore(
    { id: 1, name: 'API', description: '', state: 'degraded', parentId: null, createdAt: 0, updatedAt: 0 },
    'status',
    1,
  );

  it('tells of a component change with the keys Statuspage sends', () => {
    const payload = componentPayload(
      page,
      api,
      { oldStatus: 'operational', newStatus: 'degraded_performance', at: '2026-11-26T11:30:00.000Z' },
      NOW,
    );
    expect(keysOf(payload)).toEqual(['component', 'component_update', 'meta', 'page']);
    expect(keysOf(payload.meta)).toEqual(STATUSPAGE_KEYS.meta);
    expect(keysOf(payload.page)).toEqual(STATUSPAGE_KEYS.page);
    expect(keysOf(payload.component)).toEqual(expect.arrayContaining(STATUSPAGE_KEYS.component));
    expect(keysOf(payload.component_update)).toEqual(STATUSPAGE_KEYS.component_update);
    expect(payload.page).toEqual({
      id: 'status',
      status_indicator: 'minor',
      status_description: 'Partially Degraded Service',
    });
    expect(payload.component_update).toEqual({
      id: `1-${Date.parse('2026-11-26T11:30:00.000Z')}`,
      component_id: '1',
      component_type: 'Component',
      old_status: 'operational',
      new_status: 'degraded_performance',
      created_at: '2026-11-26T11:30:00.000Z',
    });
  });

  it('tells of an incident with the keys Statuspage sends, its newest update first', () => {
    const object = incident(
      { state: 'investigating', content: 'Looking.', at: '2026-11-26T10:00:00Z' },
      { state: 'recovering', content: 'Fixed; watching.', at: '2026-11-26T11:00:00Z' },
    );
    const notice = noticeFromObject(object)!;
    const at = noticeAt(notice, NOW);
    const core = incidentCore(notice, at, incidentStatus(notice, at), {
      shortlink: 'https://status.example.com/notices/7',
      pageId: 'status',
    });
    const payload = incidentPayload(page, { ...core, components: [api] }, NOW);
    expect(keysOf(payload)).toEqual(['incident', 'meta', 'page']);
    expect(keysOf(payload.incident)).toEqual(expect.arrayContaining(STATUSPAGE_KEYS.incident));
    expect(keysOf(payload.incident.incident_updates[0]!)).toEqual(
      expect.arrayContaining(STATUSPAGE_KEYS.incident_update),
    );
    expect(payload.incident).toMatchObject({
      id: '7',
      status: 'monitoring',
      monitoring_at: '2026-11-26T11:00:00.000Z',
      incident_updates: [
        { id: '7-2', status: 'monitoring' },
        { id: '7-1', status: 'investigating' },
      ],
      components: [{ id: '1', name: 'API' }],
    });
  });

  it('signs the body when the webhook has a key, and only then', () => {
    const signed = webhookRequest('https://hooks.example/x', 'key', { a: 1 });
    expect(signed.headers['x-signature']).toBe(
      `sha256=${createHmac('sha256', 'key')
        .update(signed.body as string)
        .digest('hex')}`,
    );
    expect(
      webhookRequest('https://hooks.example/x', undefined, { a: 1 }).headers['x-signature'],
    ).toBeUndefined();
  });
});

describe('how each webhook is shown on the StatusPage', () => {
  const hooks = [{ name: 'ops' }, { name: 'chat' }];
  const shown = [{ name: 'ops', since: '2026-11-20T00:00:00.000Z', deliveredAt: '2026-11-25T00:00:00.000Z' }];

  it('keeps since, dates a new webhook now, and says all take what is sent', () => {
    const { webhooks, condition } = webhookPageStatus(hooks, shown, () => undefined, NOW.getTime());
    expect(webhooks).toEqual([shown[0], { name: 'chat', since: NOW.toISOString() }]);
    expect(condition).toMatchObject({
      status: 'True',
      reason: 'Delivered',
      message: '2 subscriber webhooks take what is sent',
    });
  });

  it('names a failing webhook, why and since when, and a failing day after 24 hours', () => {
    const failingSince = NOW.getTime() - 3600_000;
    const health = (name: string) =>
      name === 'chat'
        ? {
            failingSince,
            problem: {
              reason: 'WebhookFailing' as const,
              message: 'webhook chat did not take notice x: HTTP 302',
            },
          }
        : undefined;
    const hour = webhookPageStatus(hooks, shown, health, NOW.getTime());
    expect(hour.webhooks?.[1]).toEqual({
      name: 'chat',
      since: NOW.toISOString(),
      failingSince: new Date(failingSince).toISOString(),
      lastError: 'webhook chat did not take notice x: HTTP 302',
    });
    expect(hour.condition).toMatchObject({ status: 'False', reason: 'WebhookFailing' });
    expect(hour.condition.message).toMatch(/HTTP 302 \(failing since .*; tried again with back-off\)$/);
    const day = webhookPageStatus(hooks, shown, health, failingSince + FAILING_LONG_MS);
    expect(day.condition.message).toMatch(/failing for a day, tried every 6 hours/);
  });

  it('removes the list when the page has no webhooks left', () => {
    expect(webhookPageStatus([], shown, () => undefined, NOW.getTime())).toMatchObject({
      webhooks: null,
      condition: { status: 'True', message: 'no subscriber webhooks' },
    });
  });
});
