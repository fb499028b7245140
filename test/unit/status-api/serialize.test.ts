// The JSON a client receives: fields per type, links, timestamps, ordering, which objects show.
import { describe, expect, it } from '@jest/globals';
import type { StatusNoticeObject } from '../../../crds/index.ts';
import {
  noticeEndpoint,
  noticesEndpoint,
  statusEndpoint,
  componentsEndpoint,
} from '../../../status-api/endpoints.ts';
import type { EndpointResult } from '../../../status-api/endpoints.ts';
import type { StatusSnapshot } from '../../../status-api/model/snapshot.ts';
import { DAY, HOUR, NOW, componentObject, iso, noticeObject, pageObject, snapshotOf } from './builders.ts';

const none = new URLSearchParams();
type Json = Record<string, unknown>;

function ok(result: EndpointResult): Json {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return result.body as Json;
}

const listNotices = (snapshot: StatusSnapshot, query = '') =>
  ok(noticesEndpoint(snapshot, new URLSearchParams(query), '/api/v1/notices', NOW)).notices as Json[];
const noticeDetail = (snapshot: StatusSnapshot, id: number) =>
  ok(noticeEndpoint(snapshot, none, String(id), NOW)).notice as Json;
const listComponents = (snapshot: StatusSnapshot, query = '') =>
  ok(componentsEndpoint(snapshot, new URLSearchParams(query), '/api/v1/components')).components as Json[];

const general = noticeObject('note', 'general', {
  id: 1,
  subject: 'New region',
  tags: ['eu'],
  updates: [{ content: 'We opened a region', at: iso(-HOUR) }],
});
const planned = noticeObject('maint', 'planned', {
  id: 2,
  subject: 'Database upgrade',
  beginsAt: iso(-HOUR),
  endsAt: iso(HOUR),
  components: ['db'],
  updates: [
    { state: 'scheduled', content: 'Planned', at: iso(-DAY) },
    { state: 'underway', content: 'Started', at: iso(-HOUR) },
  ],
});
const unplanned = noticeObject('outage', 'unplanned', {
  id: 3,
  subject: 'API errors',
  components: ['api', 'db', 'missing'],
  updates: [
    { state: 'investigating', content: 'Looking', at: iso(-2 * HOUR) },
    { content: 'Still looking', at: iso(-90 * 60_000) },
    { state: 'resolved', content: 'Fixed', at: iso(-HOUR) },
  ],
});
const components = [
  componentObject('platform', { id: 10, position: 1, description: 'Everything' }),
  componentObject('api', { id: 11, parent: 'platform', position: 2, state: 'degraded' }),
  componentObject('db', { id: 12, parent: 'platform', position: 3 }),
];
const snapshot = snapshotOf({ components, notices: [general, planned, unplanned] });

describe('page', () => {
  it('has exactly the fields of spec 2.3', () => {
    expect(ok(statusEndpoint(snapshot, none, NOW))).toEqual({
      page: {
        name: 'Acme Cloud',
        state: 'under-maintenance',
        state_text: 'Maintenance in progress',
        url: 'https://status.acme.test',
        links: {
          components: { href: '/api/v1/components', count: 3 },
          notices: { href: '/api/v1/notices', count: 3 },
        },
        created_at: iso(-30 * DAY),
        updated_at: iso(-HOUR),
      },
    });
  });

  it('is a 404 while the namespace has no StatusPage', () => {
    const result = statusEndpoint(snapshotOf({ pages: [] }), none, NOW);
    expect(result.ok ? 200 : result.error.status).toBe(404);
  });

  it('is the oldest StatusPage when there are several', () => {
    const older = pageObject({ name: 'Older' }, 'b');
    older.metadata.creationTimestamp = iso(-40 * DAY);
    const body = ok(
      statusEndpoint(snapshotOf({ pages: [pageObject({ name: 'Newer' }, 'a'), older] }), none, NOW),
    );
    expect((body.page as Json).name).toBe('Older');
  });
});

describe('components', () => {
  it('have exactly the fields of spec 2.4, with links to their children', () => {
    expect(listComponents(snapshot)).toEqual([
      {
        id: 10,
        state: 'operational',
        name: 'PLATFORM',
        description: 'Everything',
        parent_id: null,
        links: { children: { href: '/v1/components?filter[parent_id_eq]=10', count: 2 } },
        created_at: iso(-30 * DAY),
        updated_at: iso(-30 * DAY),
      },
      {
        id: 11,
        state: 'degraded',
        name: 'API',
        description: 'The api',
        parent_id: 10,
        links: { children: { href: '/v1/components?filter[parent_id_eq]=11', count: 0 } },
        created_at: iso(-30 * DAY),
        updated_at: iso(-30 * DAY),
      },
      expect.objectContaining({ id: 12, parent_id: 10 }),
    ]);
  });

  it('are ordered by position, then id; those without a position come last', () => {
    const ordered = snapshotOf({
      components: [
        componentObject('e', { id: 5 }),
        componentObject('d', { id: 4 }),
        componentObject('c', { id: 3, position: 2 }),
        componentObject('b', { id: 2, position: 1 }),
        componentObject('a', { id: 1, position: 2 }),
      ],
    });
    expect(listComponents(ordered).map((c) => c.id)).toEqual([2, 1, 3, 4, 5]);
  });

  it('show the id from status before spec, and hide objects without one or being deleted', () => {
    const shown = snapshotOf({
      components: [
        componentObject('a', { id: 1, statusId: 7 }),
        componentObject('b'),
        componentObject('c', { id: 3, deleting: true }),
      ],
    });
    expect(listComponents(shown).map((c) => c.id)).toEqual([7]);
  });

  it('keep an id for the older object when two claim it', () => {
    const clash = snapshotOf({
      components: [
        componentObject('newer', { id: 1, created: iso(-DAY) }),
        componentObject('older', { id: 1, created: iso(-2 * DAY) }),
      ],
    });
    expect(listComponents(clash).map((c) => c.name)).toEqual(['OLDER']);
  });

  it('are top-level when their parent is missing, has no id yet, or is themselves', () => {
    const orphans = snapshotOf({
      components: [
        componentObject('gone-parent', { id: 1, parent: 'nobody' }),
        componentObject('pending', {}),
        componentObject('waiting', { id: 2, parent: 'pending' }),
        componentObject('self', { id: 3, parent: 'self' }),
      ],
    });
    expect(listComponents(orphans).map((c) => c.parent_id)).toEqual([null, null, null]);
  });

  it('report the last spec change as updated_at, not status writes', () => {
    const edited = componentObject('a', { id: 1 });
    Object.assign(edited.metadata, {
      managedFields: [
        { manager: 'kubectl', operation: 'Update', time: iso(-DAY), fieldsV1: { 'f:spec': {} } },
        { manager: 'slipway', operation: 'Update', subresource: 'status', time: iso(-HOUR), fieldsV1: {} },
        { manager: 'slipway', operation: 'Update', time: iso(-HOUR), fieldsV1: { 'f:metadata': {} } },
      ],
    });
    expect(listComponents(snapshotOf({ components: [edited] }))[0]?.updated_at).toBe(iso(-DAY));
  });
});

describe('notices', () => {
  const keys = (json: Json) => Object.keys(json);
  const common = ['id', 'type', 'timeline_state'];

  it.each([
    [
      general,
      [...common, 'subject', 'url', 'created_at', 'updated_at', 'tag_list', 'links', 'latest_update'],
    ],
    [
      planned,
      [
        ...common,
        'state',
        'subject',
        'url',
        'began_at',
        'ended_at',
        'begins_at',
        'ends_at',
        'created_at',
        'updated_at',
        'tag_list',
        'links',
        'latest_update',
      ],
    ],
    [
      unplanned,
      [
        ...common,
        'state',
        'subject',
        'url',
        'began_at',
        'ended_at',
        'created_at',
        'updated_at',
        'tag_list',
        'links',
        'latest_update',
      ],
    ],
  ] as Array<[StatusNoticeObject, string[]]>)(
    'a %s in the list has the fields of its type',
    (obj, expected) => {
      const id = obj.spec.id ?? 0;
      const listed = listNotices(snapshot).find((n) => n.id === id);
      expect(listed && keys(listed)).toEqual(expected);
      const detail = noticeDetail(snapshot, id);
      expect(keys(detail)).toEqual([
        ...expected.filter((k) => k !== 'latest_update'),
        'components',
        'updates',
      ]);
    },
  );

  it('serialises a planned notice in full', () => {
    expect(listNotices(snapshot).find((n) => n.id === 2)).toEqual({
      id: 2,
      type: 'planned',
      timeline_state: 'present',
      state: 'underway',
      subject: 'Database upgrade',
      url: 'https://status.acme.test/notices/2',
      began_at: iso(-HOUR),
      ended_at: null,
      begins_at: iso(-HOUR),
      ends_at: iso(HOUR),
      created_at: iso(-2 * DAY),
      updated_at: iso(-HOUR),
      tag_list: [],
      links: { self: '/api/notices/2' },
      latest_update: {
        state: 'underway',
        content: 'Started',
        created_at: iso(-HOUR),
        updated_at: iso(-HOUR),
      },
    });
  });

  it('gives general notices and their updates no state', () => {
    const listed = listNotices(snapshot).find((n) => n.id === 1);
    expect(listed?.tag_list).toEqual(['eu']);
    expect(listed?.latest_update).toEqual({
      content: 'We opened a region',
      created_at: iso(-HOUR),
      updated_at: iso(-HOUR),
    });
  });

  it('has a null latest_update until the first update', () => {
    const fresh = noticeObject('fresh', 'unplanned', { id: 9 });
    expect(listNotices(snapshotOf({ notices: [fresh] }))[0]?.latest_update).toBeNull();
  });

  it('detail lists impacted components without links, in component order, skipping unknown ones', () => {
    const detail = noticeDetail(snapshot, 3);
    expect(detail.components).toEqual([
      {
        id: 11,
        state: 'degraded',
        name: 'API',
        description: 'The api',
        parent_id: 10,
        created_at: iso(-30 * DAY),
        updated_at: iso(-30 * DAY),
      },
      expect.objectContaining({ id: 12, name: 'DB' }),
    ]);
    expect((detail.components as Json[])[1]).not.toHaveProperty('links');
  });

  it('detail lists the updates newest first; an update without a state shows the state it left', () => {
    expect(noticeDetail(snapshot, 3).updates).toEqual([
      { state: 'resolved', content: 'Fixed', created_at: iso(-HOUR), updated_at: iso(-HOUR) },
      {
        state: 'investigating',
        content: 'Still looking',
        created_at: iso(-90 * 60_000),
        updated_at: iso(-90 * 60_000),
      },
      { state: 'investigating', content: 'Looking', created_at: iso(-2 * HOUR), updated_at: iso(-2 * HOUR) },
    ]);
  });

  it('writes timestamps as UTC with milliseconds, whatever offset the resource used', () => {
    const offset = noticeObject('tz', 'planned', {
      id: 4,
      beginsAt: '2026-03-11T14:30:00+02:00',
      endsAt: '2026-03-11T15:30:00.5+02:00',
    });
    const listed = listNotices(snapshotOf({ notices: [offset] }))[0];
    expect([listed?.begins_at, listed?.ends_at]).toEqual([
      '2026-03-11T12:30:00.000Z',
      '2026-03-11T13:30:00.500Z',
    ]);
  });

  it('builds the url from the page url, with or without a trailing slash or page', () => {
    const one = [noticeObject('x', 'general', { id: 5 })];
    const url = (pages: ReturnType<typeof pageObject>[]) =>
      listNotices(snapshotOf({ pages, notices: one }))[0]?.url;
    expect(url([pageObject({ url: 'https://status.acme.test/' })])).toBe(
      'https://status.acme.test/notices/5',
    );
    expect(url([])).toBe('/notices/5');
  });

  it('are newest first: latest start first, then the higher id', () => {
    const ordered = snapshotOf({
      notices: [
        noticeObject('old-incident', 'unplanned', { id: 1, updates: [{ at: iso(-3 * DAY) }] }),
        noticeObject('next-week', 'planned', { id: 2, beginsAt: iso(7 * DAY), endsAt: iso(7 * DAY + HOUR) }),
        noticeObject('new-incident', 'unplanned', { id: 3, updates: [{ at: iso(-HOUR) }] }),
        noticeObject('same-start-lower-id', 'general', { id: 4, beginsAt: iso(-HOUR) }),
        noticeObject('same-start-higher-id', 'general', { id: 5, beginsAt: iso(-HOUR) }),
      ],
    });
    expect(listNotices(ordered).map((n) => n.id)).toEqual([2, 5, 4, 3, 1]);
  });

  it('hide notices without an id; show the status id first', () => {
    const mixed = snapshotOf({
      notices: [noticeObject('a', 'general'), noticeObject('b', 'general', { id: 2, statusId: 8 })],
    });
    expect(listNotices(mixed).map((n) => n.id)).toEqual([8]);
    expect(noticeEndpoint(mixed, none, '2', NOW).ok).toBe(false);
  });
});
