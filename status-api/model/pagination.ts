// Splitting a list into pages of at most PAGE_SIZE records (docs/status-api.md, docs/limits.md).
import { PAGE_SIZE } from '../limits.ts';

export interface PageOf<T> {
  items: T[];
  /** Records on this page. */
  count: number;
  /** Records over all pages. */
  totalCount: number;
  /** The next page's number; null on the last page and past the end. */
  nextPage: number | null;
}

/** `page` counts from 1; a page past the end is empty. */
export function paginate<T>(items: readonly T[], page: number, pageSize = PAGE_SIZE): PageOf<T> {
  const start = (page - 1) * pageSize;
  const slice = items.slice(start, start + pageSize);
  return {
    items: slice,
    count: slice.length,
    totalCount: items.length,
    nextPage: start + pageSize < items.length ? page + 1 : null,
  };
}

/** A relative link to a page of a list that keeps the request's filters: `/v1/x?filter[a]=b&page=2`. */
export function pageHref(path: string, filterParams: readonly string[], page: number): string {
  return `${path}?${[...filterParams, `page=${page}`].join('&')}`;
}
