// One try of one outbound HTTP call (a provider's API, a notification receiver, a subscriber
// webhook): a timeout, no redirects followed (a 3xx is a failure), only to addresses the fetch
// given lets through (outbound/guarded-fetch.ts). Of a refusing answer only its status code and
// the code's standard reason are kept, never its body (what a tenant reads in a condition must
// not be a banner of whatever answered). Whether and when to try again (retry.ts) is the
// engine's to act on: a wait never holds a worker.
//
// An answer is read through a byte cap, or not at all: a body Slipway uses (a provider's list of
// open pull requests, the id of what a call made) up to ANSWER_LIMIT_BYTES, which fits a full
// page, and the call fails past it; a refusal up to REFUSAL_LIMIT_BYTES when its text tells
// whether it counts as done; any other body is let go unread (a receiver's 2xx, a 4xx or 5xx).
import { STATUS_CODES } from 'node:http';
import type { OutboundRequest } from '../../lib/outbound-request.ts';
import { AddressRefused } from '../outbound/address-guard.ts';
import { cappedText, discard } from '../outbound/capped-body.ts';
import { retryable, retryDelayMs, type Answer } from './retry.ts';

const CALL_TIMEOUT_MS = 10_000;
/**
 * The most of an answer whose body is used: a page of 100 pull requests is 2 to 3 MiB on GitHub
 * (two repositories and the users in each), more with long descriptions.
 */
export const ANSWER_LIMIT_BYTES = 16 * 1024 * 1024;
/** The most of a refusal read to tell whether it counts as done (GitLab's one sentence). */
export const REFUSAL_LIMIT_BYTES = 64 * 1024;

export type AttemptResult =
  | { ok: true; answer?: unknown }
  /**
   * refused: an answer not worth another try; else `retryInMs` says when the next try may go
   * (what the receiver asked for, or back-off after `attempt`).
   */
  | { ok: false; refused: true; problem: string }
  | { ok: false; refused: false; problem: string; retryInMs: number };

export interface AttemptOptions {
  fetch: typeof fetch;
  /** Values that must never appear in what is kept (tokens, URLs with credentials). */
  secrets: readonly string[];
  /** Which try this is, from 1: the back-off grows with it. */
  attempt: number;
  now: number;
  /** An answer that counts as taken although it is not 2xx (GitLab's "cannot transition"). */
  alreadyDone?: (status: number, text: string) => boolean;
  /** Whether a 2xx answer's body is used (then read up to ANSWER_LIMIT_BYTES); else let go unread. */
  readsAnswer?: boolean;
}

export async function attempt(request: OutboundRequest, options: AttemptOptions): Promise<AttemptResult> {
  const cut = (text: string) =>
    options.secrets.reduce((t, secret) => (secret ? t.replaceAll(secret, '…') : t), text);
  let answer: Answer | undefined;
  let problem: string;
  try {
    const res = await options.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: typeof request.body === 'string' ? request.body : JSON.stringify(request.body),
      redirect: 'manual',
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    if (res.status >= 200 && res.status < 300) {
      if (!options.readsAnswer) {
        await discard(res);
        return { ok: true };
      }
      const raw = await cappedText(res, ANSWER_LIMIT_BYTES);
      if (raw === undefined)
        return {
          ok: false,
          refused: true,
          problem: `its answer is over ${ANSWER_LIMIT_BYTES / 1024 / 1024} MiB`,
        };
      return { ok: true, answer: parseJson(raw) };
    }
    if (options.alreadyDone) {
      const raw = await cappedText(res, REFUSAL_LIMIT_BYTES);
      if (raw !== undefined && options.alreadyDone(res.status, raw)) return { ok: true };
    } else await discard(res);
    problem = `HTTP ${res.status}${STATUS_CODES[res.status] ? ` ${STATUS_CODES[res.status]}` : ''}`;
    if (!retryable(res)) return { ok: false, refused: true, problem };
    answer = res;
  } catch (err) {
    // fetch says only "fetch failed"; the cause says what (ECONNREFUSED, a timeout, DNS).
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    // Not tried again: the address stays what it is until someone changes the URL or the list.
    if (cause instanceof AddressRefused) return { ok: false, refused: true, problem: cut(cause.message) };
    // The code alone (ECONNREFUSED, ENOTFOUND): a cause's text can quote what answered (a
    // certificate's names).
    const why = cause?.code;
    problem = cut(`${String((err as Error).message ?? err)}${why ? ` (${why})` : ''}`);
  }
  return {
    ok: false,
    refused: false,
    problem,
    retryInMs: retryDelayMs(answer, options.attempt, options.now),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
