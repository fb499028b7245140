// Query parameters of the list endpoints: `page` and `filter[<predicate>]`.
// Strict where a mistake would silently return the wrong records: an unknown filter, a bad
// value, a repeated parameter or a bad page is a 400. Other parameters (cache busters such as
// `?_=1700000000`) are ignored.
import { noticeTypes } from '../../crds/index.ts';
import { MAX_ECHOED_QUERY_CHARS } from '../limits.ts';
import { timelineStates } from '../../rules/notice-timeline.ts';

type ValueParser = (raw: string) => unknown;
type FilterSpec = Record<string, ValueParser>;
export type FilterValues<F extends FilterSpec> = {
  [K in keyof F]?: Exclude<ReturnType<F[K]>, undefined>;
};

export interface ListQuery<F extends FilterSpec> {
  page: number;
  filters: FilterValues<F>;
  /** The filters as `filter[name]=value` pairs, in a fixed order, for links to other pages. */
  filterParams: string[];
}

export interface QueryError {
  code: 'invalid_filter' | 'invalid_page';
  message: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: QueryError };

const booleanValue = (raw: string): boolean | undefined =>
  raw === 'true' ? true : raw === 'false' ? false : undefined;
const idValue = (raw: string): number | undefined =>
  /^[1-9][0-9]{0,9}$/.test(raw) && Number(raw) <= 2147483647 ? Number(raw) : undefined;
const oneOf =
  <T extends string>(values: readonly T[]) =>
  (raw: string): T | undefined =>
    (values as readonly string[]).includes(raw) ? (raw as T) : undefined;

export const componentFilters = { parent_id_null: booleanValue, parent_id_eq: idValue };
export const noticeFilters = { type_eq: oneOf(noticeTypes), timeline_state_eq: oneOf(timelineStates) };

export type ComponentsQuery = ListQuery<typeof componentFilters>;
export type NoticesQuery = ListQuery<typeof noticeFilters>;

const echo = (text: string): string =>
  text.length > MAX_ECHOED_QUERY_CHARS ? `${text.slice(0, MAX_ECHOED_QUERY_CHARS)}…` : text;

const fail = (code: QueryError['code'], message: string) => ({
  ok: false as const,
  error: { code, message },
});

function parseQuery<F extends FilterSpec>(
  params: URLSearchParams,
  spec: F,
  paged: boolean,
): Parsed<ListQuery<F>> {
  const allowed = Object.keys(spec).map((name) => `filter[${name}]`);
  const filters: Record<string, unknown> = {};
  let page = 1;
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    if (key === 'page') {
      if (!paged) return fail('invalid_page', 'this endpoint is not paginated: remove the page parameter');
      const raw = values[0] ?? '';
      if (values.length > 1 || !/^[1-9][0-9]*$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
        return fail('invalid_page', `page must be one positive integer, got '${echo(values.join(','))}'`);
      }
      page = Number(raw);
    } else if (key.startsWith('filter')) {
      const name = /^filter\[([a-z_]+)\]$/.exec(key)?.[1];
      const parse = name !== undefined && Object.hasOwn(spec, name) ? spec[name] : undefined;
      if (name === undefined || parse === undefined) {
        const accepted =
          allowed.length > 0 ? `accepted: ${allowed.join(', ')}` : 'this endpoint takes no filters';
        return fail('invalid_filter', `unknown filter '${echo(key)}'; ${accepted}`);
      }
      const value = values.length === 1 ? parse(values[0] ?? '') : undefined;
      if (value === undefined) {
        return fail('invalid_filter', `invalid value '${echo(values.join(','))}' for ${key}`);
      }
      filters[name] = value;
    }
  }
  const filterParams = Object.keys(spec)
    .filter((name) => filters[name] !== undefined)
    .map((name) => `filter[${name}]=${String(filters[name])}`);
  return { ok: true, value: { page, filters: filters as FilterValues<F>, filterParams } };
}

export function parseComponentsQuery(params: URLSearchParams): Parsed<ComponentsQuery> {
  return parseQuery(params, componentFilters, true);
}

export function parseNoticesQuery(params: URLSearchParams): Parsed<NoticesQuery> {
  return parseQuery(params, noticeFilters, true);
}

/** For the endpoints that take no query: any filter or page is a mistake. */
export function parseEmptyQuery(params: URLSearchParams): Parsed<ListQuery<Record<never, ValueParser>>> {
  return parseQuery(params, {}, false);
}
