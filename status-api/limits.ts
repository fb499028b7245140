// Every number the status API promises, in one place (docs/status-api.md, docs/limits.md).

/** Records per page of the components and notices lists. */
export const PAGE_SIZE = 25;

// RECENT_PAST_MS (when a past notice stops being recent) is part of the notice timeline,
// rules/notice-timeline.ts, which the operator shares.

/** Requests per second each client may make, and the burst it may save up. */
export const DEFAULT_REQUESTS_PER_SECOND = 10;
export const DEFAULT_BURST = 10;

/** Rate-limit buckets kept in memory; the least recently seen client is forgotten first. */
export const DEFAULT_MAX_TRACKED_CLIENTS = 10_000;

/** How long clients and shared caches may reuse a response without asking again. */
export const DEFAULT_CACHE_MAX_AGE_SECONDS = 5;

/** Longest piece of a client's query echoed back in an error message. */
export const MAX_ECHOED_QUERY_CHARS = 64;

/** Distinct URLs whose answers are kept per snapshot and time slice. */
export const MAX_CACHED_ANSWERS = 1024;
