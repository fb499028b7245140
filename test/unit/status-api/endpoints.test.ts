// Filters and lookups of the endpoints, in combination.
import { describe, expect, it } from '@jest/globals';
import {
  componentsEndpoint,
  noticeEndpoint,
  noticesEndpoint,
  type EndpointResult,
} from '../../../status-api/endpoints.ts';
import { DAY, HOUR, NOW, componentObject, iso, noticeObject, snapshotOf } from './builders.ts';

const q = (text: string) => new URLSearchParams(text);
const ids = (result: EndpointResult, key: string): number[] => {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return ((result.body as Record<string, Array<{ id: number }>>)[key] ?? []).map((item) => item.id);
};
const errorOf = (result: EndpointResult) => (result.ok ? null : result.error);

describe('components filters', () => {
  const snapshot = snapshotOf({
    components: [
      componentObject('web', { id: 1, position: 1 }),
      componentObject('web-eu', { id: 2, parent: 'web', position: 2 }),
      componentObject('web-us', { id: 3, parent: 'web', position: 3 }),
      componentObject('db', { id: 4, position: 4 }),
      componentObject('db-eu', { id: 5, parent: 'db', position: 5 }),
    ],
  });
  const list = (text: string) =>
    ids(componentsEndpoint(snapshot, q(text), '/api/v1/components'), 'components');

  it.each([
    ['', [1, 2, 3, 4, 5]],
    ['filter[parent_id_null]=true', [1, 4]],
    ['filter[parent_id_null]=false', [2, 3, 5]],
    ['filter[parent_id_eq]=1', [2, 3]],
    ['filter[parent_id_eq]=4', [5]],
    ['filter[parent_id_eq]=2', []],
    ['filter[parent_id_eq]=999', []],
    ['filter[parent_id_eq]=1&filter[parent_id_null]=false', [2, 3]],
    ['filter[parent_id_eq]=1&filter[parent_id_null]=true', []],
    ['filter[parent_id_null]=true&page=2', []],
  ])('?%s → %j', (text, expected) => {
    expect(list(text)).toEqual(expected);
  });

  it('answers a bad filter with a 400', () => {
    expect(errorOf(componentsEndpoint(snapshot, q('filter[parent_id_eq]=x'), '/api/v1/components'))).toEqual(
      expect.objectContaining({ status: 400, code: 'invalid_filter' }),
    );
  });
});

describe('notices filters', () => {
  // One notice per timeline state for each type that can reach it.
  const snapshot = snapshotOf({
    notices: [
      noticeObject('u-future', 'unplanned', { id: 1, updates: [{ at: iso(HOUR) }] }),
      noticeObject('u-present', 'unplanned', { id: 2, updates: [{ state: 'identified', at: iso(-HOUR) }] }),
      noticeObject('u-recent', 'unplanned', { id: 3, updates: [{ state: 'resolved', at: iso(-DAY) }] }),
      noticeObject('u-distant', 'unplanned', { id: 4, updates: [{ state: 'resolved', at: iso(-30 * DAY) }] }),
      noticeObject('p-future', 'planned', { id: 5, beginsAt: iso(DAY), endsAt: iso(DAY + HOUR) }),
      noticeObject('p-present', 'planned', { id: 6, beginsAt: iso(-HOUR), endsAt: iso(HOUR) }),
      noticeObject('p-recent', 'planned', { id: 7, beginsAt: iso(-DAY - HOUR), endsAt: iso(-DAY) }),
      noticeObject('p-distant', 'planned', { id: 8, beginsAt: iso(-31 * DAY), endsAt: iso(-30 * DAY) }),
      noticeObject('g-future', 'general', { id: 9, beginsAt: iso(DAY) }),
      noticeObject('g-present', 'general', { id: 10 }),
      noticeObject('g-recent', 'general', { id: 11, beginsAt: iso(-2 * DAY), endsAt: iso(-DAY) }),
      noticeObject('g-distant', 'general', { id: 12, beginsAt: iso(-31 * DAY), endsAt: iso(-30 * DAY) }),
    ],
  });
  const list = (text: string) => ids(noticesEndpoint(snapshot, q(text), '/api/v1/notices', NOW), 'notices');
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

  it('lists past, present and future notices together', () => {
    expect(sorted(list(''))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  const byType = { unplanned: [1, 2, 3, 4], planned: [5, 6, 7, 8], general: [9, 10, 11, 12] };
  const byTimeline = {
    future: [1, 5, 9],
    present: [2, 6, 10],
    past_recent: [3, 7, 11],
    past_distant: [4, 8, 12],
  };

  it.each(Object.entries(byType))('filter[type_eq]=%s', (type, expected) => {
    expect(sorted(list(`filter[type_eq]=${type}`))).toEqual(expected);
  });

  it.each(Object.entries(byTimeline))('filter[timeline_state_eq]=%s', (timeline, expected) => {
    expect(sorted(list(`filter[timeline_state_eq]=${timeline}`))).toEqual(expected);
  });

  const combinations = Object.entries(byType).flatMap(([type, typeIds]) =>
    Object.entries(byTimeline).map(
      ([timeline, timelineIds]) =>
        [type, timeline, typeIds.filter((id) => timelineIds.includes(id))] as const,
    ),
  );
  it.each(combinations)('type %s and timeline %s must both hold', (type, timeline, expected) => {
    expect(list(`filter[type_eq]=${type}&filter[timeline_state_eq]=${timeline}`)).toEqual(expected);
  });

  it('moves a notice between timeline filters as the clock moves', () => {
    const later = new Date(NOW.getTime() + DAY + HOUR / 2);
    const present = noticesEndpoint(
      snapshot,
      q('filter[timeline_state_eq]=present'),
      '/api/v1/notices',
      later,
    );
    expect(sorted(ids(present, 'notices'))).toEqual([1, 2, 5, 9, 10]);
  });
});

describe('notice lookup', () => {
  const snapshot = snapshotOf({ notices: [noticeObject('n', 'general', { id: 7 })] });

  it('finds a notice by id', () => {
    const result = noticeEndpoint(snapshot, q(''), '7', NOW);
    expect(result.ok && (result.body as { notice: { id: number } }).notice.id).toBe(7);
  });

  it.each(['8', '0', '07', 'abc', '7.0', '-7', '99999999999'])('answers id %s with a 404', (id) => {
    expect(errorOf(noticeEndpoint(snapshot, q(''), id, NOW))).toEqual(
      expect.objectContaining({ status: 404, code: 'not_found' }),
    );
  });

  it('rejects a page parameter on the detail', () => {
    expect(errorOf(noticeEndpoint(snapshot, q('page=2'), '7', NOW))?.status).toBe(400);
  });
});
