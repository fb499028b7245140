// One outbound HTTP call (a provider's API, a notification receiver), retried as the receiver
// asks (retry.ts): a timeout per attempt, no redirects followed (a 3xx is a failure), only to
// addresses the fetch given lets through (guarded-fetch.ts), and of a refusing answer only its
// status code and the code's standard reason are kept, never its body (what a tenant reads in a
// condition must not be a banner of whatever answered).
import { STATUS_CODES } from 'node:http';
import type { ApiRequest } from '../../providers/report.ts';
import { AddressRefused } from './address-guard.ts';
import { MAX_ATTEMPTS, retryable, retryDelayMs, type Answer } from './retry.ts';

const CALL_TIMEOUT_MS = 10_000;

export type CallResult =
  | { ok: true; answer?: unknown }
  /** refused: an answer not worth retrying; else the attempts ran out. */
  | { ok: false; refused: boolean; problem: string };

export interface CallOptions {
  fetch: typeof fetch;
  /** Values that must never appear in what is kept (tokens, URLs with credentials). */
  secrets: readonly string[];
  sleep: (ms: number) => Promise<void>;
  stopped: () => boolean;
  /** An answer that counts as taken although it is not 2xx (GitLab's "cannot transition"). */
  alreadyDone?: (status: number, text: string) => boolean;
  /** Tries at most (MAX_ATTEMPTS by default). */
  attempts?: number;
}

export async function call(request: ApiRequest, options: CallOptions): Promise<CallResult> {
  const cut = (text: string) =>
    options.secrets.reduce((t, secret) => (secret ? t.replaceAll(secret, '…') : t), text);
  let problem = '';
  const attempts = options.attempts ?? MAX_ATTEMPTS;
  for (let attempt = 1; attempt <= attempts && !options.stopped(); attempt += 1) {
    let answer: Answer | undefined;
    try {
      const res = await options.fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body: typeof request.body === 'string' ? request.body : JSON.stringify(request.body),
        redirect: 'manual',
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
      const raw = await res.text();
      if (res.status >= 200 && res.status < 300) return { ok: true, answer: parseJson(raw) };
      if (options.alreadyDone?.(res.status, raw)) return { ok: true };
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
    if (attempt === attempts) break;
    await options.sleep(retryDelayMs(answer, attempt, Date.now()));
  }
  return { ok: false, refused: false, problem: `${problem} (after ${attempts} attempts)` };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
