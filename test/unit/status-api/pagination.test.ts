// Pagination: 25 per page, meta.count/total_count/next_page, empty pages past the end.
import { describe, expect, it } from '@jest/globals';
import { componentsEndpoint, noticesEndpoint, type EndpointResult } from '../../../status-api/endpoints.ts';
import { pageHref, paginate } from '../../../status-api/model/pagination.ts';
import { HOUR, NOW, componentObject, iso, noticeObject, snapshotOf } from './builders.ts';

const records = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('paginate', () => {
  it.each([
    // records, page, count, first item, next page
    [0, 1, 0, undefined, null],
    [1, 1, 1, 1, null],
    [25, 1, 25, 1, null],
    [25, 2, 0, undefined, null],
    [26, 1, 25, 1, 2],
    [26, 2, 1, 26, null],
    [51, 1, 25, 1, 2],
    [51, 2, 25, 26, 3],
    [51, 3, 1, 51, null],
    [51, 4, 0, undefined, null],
    [51, 1000, 0, undefined, null],
  ])('%d records, page %d: %d on the page', (total, page, count, first, next) => {
    const result = paginate(records(total), page);
    expect(result.count).toBe(count);
    expect(result.items).toHaveLength(count);
    expect(result.items[0]).toBe(first);
    expect(result.totalCount).toBe(total);
    expect(result.nextPage).toBe(next);
  });
});

describe('pageHref', () => {
  it('ends with the page and keeps the filters before it', () => {
    expect(pageHref('/api/v1/notices', [], 2)).toBe('/api/v1/notices?page=2');
    expect(pageHref('/v1/notices', ['filter[type_eq]=planned', 'filter[timeline_state_eq]=future'], 3)).toBe(
      '/v1/notices?filter[type_eq]=planned&filter[timeline_state_eq]=future&page=3',
    );
  });
});

function body(result: EndpointResult): { meta: unknown; [key: string]: unknown } {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return result.body as { meta: unknown };
}

describe('list endpoints', () => {
  const components = (n: number) => records(n).map((i) => componentObject(`c${i}`, { id: i, position: i }));
  const query = (text: string) => new URLSearchParams(text);

  it.each([
    [0, '', { count: 0, total_count: 0, next_page: null }],
    [1, '', { count: 1, total_count: 1, next_page: null }],
    [25, '', { count: 25, total_count: 25, next_page: null }],
    [26, '', { count: 25, total_count: 26, next_page: '/api/v1/components?page=2' }],
    [26, 'page=2', { count: 1, total_count: 26, next_page: null }],
    [51, 'page=2', { count: 25, total_count: 51, next_page: '/api/v1/components?page=3' }],
    [51, 'page=3', { count: 1, total_count: 51, next_page: null }],
    [51, 'page=9', { count: 0, total_count: 51, next_page: null }],
  ])('%d components, ?%s', (n, text, meta) => {
    const result = body(
      componentsEndpoint(snapshotOf({ components: components(n) }), query(text), '/api/v1/components'),
    );
    expect(result.meta).toEqual(meta);
    expect(result.components).toHaveLength(meta.count);
  });

  it('pages hold consecutive records in order', () => {
    const snapshot = snapshotOf({ components: components(51) });
    const ids = ['page=1', 'page=2', 'page=3'].flatMap((text) =>
      (body(componentsEndpoint(snapshot, query(text), '/v1/components')).components as { id: number }[]).map(
        (c) => c.id,
      ),
    );
    expect(ids).toEqual(records(51));
  });

  it('next_page keeps the filters and the path the client used', () => {
    const children = records(30).map((i) => componentObject(`child${i}`, { id: i + 1, parent: 'root' }));
    const snapshot = snapshotOf({ components: [componentObject('root', { id: 1 }), ...children] });
    const result = body(componentsEndpoint(snapshot, query('filter[parent_id_eq]=1'), '/v1/components'));
    expect(result.meta).toEqual({
      count: 25,
      total_count: 30,
      next_page: '/v1/components?filter[parent_id_eq]=1&page=2',
    });
  });

  it('notices keep both filters in next_page', () => {
    const notices = records(27).map((i) =>
      noticeObject(`n${i}`, 'unplanned', { id: i, updates: [{ state: 'identified', at: iso(-i * HOUR) }] }),
    );
    const result = body(
      noticesEndpoint(
        snapshotOf({ notices }),
        query('filter[timeline_state_eq]=present&filter[type_eq]=unplanned'),
        '/api/v1/notices',
        NOW,
      ),
    );
    expect(result.meta).toEqual({
      count: 25,
      total_count: 27,
      next_page: '/api/v1/notices?filter[type_eq]=unplanned&filter[timeline_state_eq]=present&page=2',
    });
  });
});
