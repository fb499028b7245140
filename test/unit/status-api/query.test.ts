// Query parsing: accepted filters and pages, and the 400s for everything else.
import { describe, expect, it } from '@jest/globals';
import { parseComponentsQuery, parseEmptyQuery, parseNoticesQuery } from '../../../status-api/model/query.ts';

const q = (text: string) => new URLSearchParams(text);

describe('components query', () => {
  it.each([
    ['', 1, {}, []],
    ['page=3', 3, {}, []],
    ['filter[parent_id_null]=true', 1, { parent_id_null: true }, ['filter[parent_id_null]=true']],
    ['filter[parent_id_null]=false', 1, { parent_id_null: false }, ['filter[parent_id_null]=false']],
    ['filter[parent_id_eq]=42&page=2', 2, { parent_id_eq: 42 }, ['filter[parent_id_eq]=42']],
    [
      'filter[parent_id_eq]=4&filter[parent_id_null]=false',
      1,
      { parent_id_null: false, parent_id_eq: 4 },
      ['filter[parent_id_null]=false', 'filter[parent_id_eq]=4'],
    ],
    ['filter%5Bparent_id_eq%5D=5', 1, { parent_id_eq: 5 }, ['filter[parent_id_eq]=5']],
    ['_=1700000000&utm_source=x', 1, {}, []],
  ])('?%s', (text, page, filters, filterParams) => {
    expect(parseComponentsQuery(q(text))).toEqual({ ok: true, value: { page, filters, filterParams } });
  });

  it.each([
    ['filter[parent_id_null]=yes', 'invalid_filter'],
    ['filter[parent_id_null]=', 'invalid_filter'],
    ['filter[parent_id_eq]=abc', 'invalid_filter'],
    ['filter[parent_id_eq]=0', 'invalid_filter'],
    ['filter[parent_id_eq]=-1', 'invalid_filter'],
    ['filter[parent_id_eq]=1.5', 'invalid_filter'],
    ['filter[parent_id_eq]=99999999999', 'invalid_filter'],
    ['filter[parent_id_eq]=1&filter[parent_id_eq]=2', 'invalid_filter'],
    ['filter[type_eq]=planned', 'invalid_filter'],
    ['filter[name_cont]=api', 'invalid_filter'],
    ['filter=1', 'invalid_filter'],
    ['filter[parent_id_eq][x]=1', 'invalid_filter'],
    ['page=0', 'invalid_page'],
    ['page=-1', 'invalid_page'],
    ['page=two', 'invalid_page'],
    ['page=1.5', 'invalid_page'],
    ['page=', 'invalid_page'],
    ['page=01', 'invalid_page'],
    ['page=1&page=2', 'invalid_page'],
    ['page=99999999999999999999', 'invalid_page'],
  ])('?%s is rejected as %s', (text, code) => {
    const parsed = parseComponentsQuery(q(text));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error.code).toBe(code);
      expect(parsed.error.message.length).toBeGreaterThan(0);
    }
  });

  it('names the accepted filters when one is unknown', () => {
    const parsed = parseComponentsQuery(q('filter[nope]=1'));
    expect(parsed.ok ? '' : parsed.error.message).toBe(
      "unknown filter 'filter[nope]'; accepted: filter[parent_id_null], filter[parent_id_eq]",
    );
  });

  it('does not echo long input back whole', () => {
    const parsed = parseComponentsQuery(q(`filter[${'a'.repeat(500)}]=1`));
    expect(parsed.ok ? 0 : parsed.error.message.length).toBeLessThan(200);
  });
});

describe('notices query', () => {
  it.each(['general', 'planned', 'unplanned'])('filter[type_eq]=%s', (type) => {
    expect(parseNoticesQuery(q(`filter[type_eq]=${type}`))).toEqual({
      ok: true,
      value: { page: 1, filters: { type_eq: type }, filterParams: [`filter[type_eq]=${type}`] },
    });
  });

  it.each(['future', 'present', 'past_recent', 'past_distant'])('filter[timeline_state_eq]=%s', (state) => {
    const parsed = parseNoticesQuery(q(`filter[timeline_state_eq]=${state}`));
    expect(parsed.ok && parsed.value.filters).toEqual({ timeline_state_eq: state });
  });

  it('combines both filters, in a fixed order', () => {
    expect(
      parseNoticesQuery(q('page=2&filter[timeline_state_eq]=past_recent&filter[type_eq]=planned')),
    ).toEqual({
      ok: true,
      value: {
        page: 2,
        filters: { type_eq: 'planned', timeline_state_eq: 'past_recent' },
        filterParams: ['filter[type_eq]=planned', 'filter[timeline_state_eq]=past_recent'],
      },
    });
  });

  it.each([
    'filter[type_eq]=incident',
    'filter[type_eq]=Planned',
    'filter[timeline_state_eq]=past',
    'filter[parent_id_null]=true',
    'filter[state_eq]=resolved',
  ])('?%s is an invalid filter', (text) => {
    const parsed = parseNoticesQuery(q(text));
    expect(parsed.ok ? 'ok' : parsed.error.code).toBe('invalid_filter');
  });
});

describe('endpoints without a query', () => {
  it('ignore unrelated parameters', () => {
    expect(parseEmptyQuery(q('_=123')).ok).toBe(true);
  });

  it.each([
    ['page=1', 'invalid_page'],
    ['filter[type_eq]=planned', 'invalid_filter'],
  ])('reject ?%s', (text, code) => {
    const parsed = parseEmptyQuery(q(text));
    expect(parsed.ok ? 'ok' : parsed.error.code).toBe(code);
  });
});
