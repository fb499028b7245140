// When to try an outbound call again (pure): what the provider asked for (Retry-After, or a rate
// limit's reset time when none is left), else exponential back-off; whether to try at all.

export const MAX_ATTEMPTS = 6;
/** Tries of one delivery in a round unless its sink says otherwise (1 s and 2 s apart, or as Retry-After asks). */
export const ATTEMPTS_PER_ROUND = 3;
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 5 * 60_000;
/** A provider asking for a longer wait is waited for this long at most, then asked again. */
const MAX_ASKED_MS = 15 * 60_000;

export interface Answer {
  status: number;
  headers: { get(name: string): string | null };
}

/** 408, 429 and 5xx are worth another try; so is a 403 that is GitHub's rate limit. */
export function retryable(answer: Answer): boolean {
  if (answer.status === 408 || answer.status === 429 || answer.status >= 500) return true;
  return (
    answer.status === 403 &&
    (answer.headers.get('retry-after') !== null || answer.headers.get('x-ratelimit-remaining') === '0')
  );
}

/** How long to wait before attempt `attempt + 1` (attempt counts from 1), in ms. */
export function retryDelayMs(answer: Answer | undefined, attempt: number, now: number): number {
  const backoff = Math.min(FIRST_DELAY_MS * 2 ** (attempt - 1), MAX_DELAY_MS);
  if (!answer) return backoff;
  const retryAfter = answer.headers.get('retry-after');
  if (retryAfter !== null) {
    const seconds = Number(retryAfter);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - now;
    if (Number.isFinite(ms)) return Math.min(Math.max(ms, 0), MAX_ASKED_MS);
  }
  // GitHub's and Azure DevOps' x-ratelimit-reset, GitLab's ratelimit-reset: epoch seconds.
  const remaining = answer.headers.get('x-ratelimit-remaining') ?? answer.headers.get('ratelimit-remaining');
  const reset = answer.headers.get('x-ratelimit-reset') ?? answer.headers.get('ratelimit-reset');
  if (remaining === '0' && reset !== null && Number.isFinite(Number(reset)))
    return Math.min(Math.max(Number(reset) * 1000 - now, 0), MAX_ASKED_MS);
  return backoff;
}

const ROUND_FIRST_DELAY_MS = 60_000;
const ROUND_MAX_DELAY_MS = 3600_000;
/** A lane failing this long is tried every 6 hours. */
export const FAILING_LONG_MS = 24 * 3600_000;
const ROUND_LONG_DELAY_MS = 6 * 3600_000;

/**
 * When a lane whose round failed (its tries used up, or refused) is tried again: 1 min after
 * its first failed round, twice as late after each next one up to 1 h, every 6 h once it has
 * failed for a day.
 */
export function roundDelayMs(failures: number, failingForMs: number): number {
  if (failingForMs >= FAILING_LONG_MS) return ROUND_LONG_DELAY_MS;
  return Math.min(ROUND_FIRST_DELAY_MS * 2 ** (Math.max(failures, 1) - 1), ROUND_MAX_DELAY_MS);
}
