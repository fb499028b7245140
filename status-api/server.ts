// The public HTTP server of the status API (docs/status-api.md). One pipeline per request:
//
//   request id, observe → CORS headers → rate limit (429) → an answer already made for this exact
//   URL, snapshot and time slice, from memory → else Express routes it: 301 for a page with a
//   trailing slash, 405 for other methods, 503 until the store has synced, the answer (made once
//   and remembered), 404 for any other path → one error handler.
//
// Express is the router; what every request shares runs once, before it, so an answer served
// from memory costs no routing (Express's routing cost 20-30% of a bare node:http server's rate
// on the hot JSON routes).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { pino, type Logger } from 'pino';
import { clientAddress, limitKey, parseTrustedProxies } from '../lib/client-address.ts';
import { keepAliveBehindProxies } from '../lib/keep-alive.ts';
import { requestId } from '../lib/request-id.ts';
import { apiRoutes, queryOf, routeTemplate } from './api-routes.ts';
import { statusApiConfigSchema, type StatusApiConfigInput } from './config.ts';
import { notFound } from './errors.ts';
import { AnswerCache, prepareAnswer, type PreparedAnswer } from './http/answer-cache.ts';
import { observeRequests, pathOf, type RequestObservation } from './http/observe.ts';
import { TokenBucketLimiter } from './http/rate-limiter.ts';
import { sendError, sendPrepared, type HeaderList } from './http/respond.ts';
import type { StatusSnapshot } from './model/snapshot.ts';
import { loadingPage, pageRoutes } from './page/routes.ts';

/** What the server reads; StatusStore is one. */
export interface StatusSource {
  /** Once true, stays true. */
  readonly synced: boolean;
  snapshot(): StatusSnapshot;
}

export type { RequestObservation } from './http/observe.ts';
export { UNMATCHED_ROUTE, routeTemplate } from './api-routes.ts';

export interface StatusAppOptions {
  store: StatusSource;
  /** Decides timeline states, page state and rate-limit refill; tests pass a fixed one. */
  clock?: () => Date;
  config?: StatusApiConfigInput;
  logger?: Logger;
  /** Called once per finished request, e.g. to feed a prom-client histogram. */
  observeRequest?: (observation: RequestObservation) => void;
}

const ALLOW = 'GET, HEAD, OPTIONS';
const EXPOSED_HEADERS =
  'ETag, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy';

/** Headers of every answer: anyone may read it from a browser, as JSON, never sniffed. */
const COMMON_HEADERS: HeaderList = [
  'Access-Control-Allow-Origin',
  '*',
  'Access-Control-Expose-Headers',
  EXPOSED_HEADERS,
  'X-Content-Type-Options',
  'nosniff',
];

/** What a route answers until the store has synced: the API a 503, the page a loading page. */
const LOADING_API: PreparedAnswer = {
  ok: false,
  error: { status: 503, code: 'not_ready', message: 'the status data is still loading' },
};
const LOADING_PAGE: PreparedAnswer = { ok: true, body: loadingPage };
const RETRY_SOON: HeaderList = ['Retry-After', 1];

/** Sets a header list one by one (before Express routes a request, and on errors). */
function applyHeaders(res: ServerResponse, headers: HeaderList): void {
  for (let i = 0; i < headers.length; i += 2) res.setHeader(String(headers[i]), headers[i + 1]!);
}

/** Any method but GET/HEAD on a known path: the API and the page are read-only. */
function readOnly(req: Request, res: Response): void {
  res.setHeader('Allow', ALLOW);
  if (req.method === 'OPTIONS') {
    // A CORS preflight or a client asking what it may do.
    res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD');
    res.setHeader('Access-Control-Allow-Headers', 'If-None-Match');
    res.setHeader('Access-Control-Max-Age', '86400');
    res.status(204).end();
    return;
  }
  sendError(res, {
    status: 405,
    code: 'method_not_allowed',
    message: `${req.method} is not allowed here; the status API is read-only (GET)`,
  });
}

/** The status API's request listener; listen() serves it on a port with node:http. */
export interface StatusApp {
  (req: IncomingMessage, res: ServerResponse): void;
  listen(port: number, host: string, onListening?: () => void): Server;
  listen(port: number, onListening?: () => void): Server;
}

export function createStatusApp(options: StatusAppOptions): StatusApp {
  const { store, observeRequest } = options;
  const config = statusApiConfigSchema.parse(options.config ?? {});
  const clock = options.clock ?? (() => new Date());
  const logger = options.logger ?? pino({ level: 'silent' });
  const trustedProxies = config.trustedProxies.length > 0 ? parseTrustedProxies(config.trustedProxies) : null;
  const limiter = config.rateLimit.enabled ? new TokenBucketLimiter(config.rateLimit) : null;
  const observe = observeRequests(observeRequest, logger, routeTemplate);
  const policy = limiter
    ? `${config.rateLimit.burst};w=${Math.max(1, Math.round(config.rateLimit.burst / config.rateLimit.requestsPerSecond))}`
    : '';

  /** The request's own headers (its id, CORS, the rate limit); undefined once a 429 is sent. */
  const begin = (
    req: IncomingMessage,
    res: ServerResponse,
    nowMs: number,
    id: string,
  ): HeaderList | undefined => {
    const headers: HeaderList = ['X-Request-Id', id, ...COMMON_HEADERS];
    if (limiter === null) return headers;
    const client = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], trustedProxies);
    // IPv6 clients by their /64: rotating addresses inside it does not buy more requests.
    const decision = limiter.take(limitKey(client), nowMs);
    headers.push(
      'RateLimit-Policy',
      policy,
      'RateLimit-Limit',
      decision.limit,
      'RateLimit-Remaining',
      decision.remaining,
      'RateLimit-Reset',
      decision.resetSeconds,
    );
    if (decision.allowed) return headers;
    headers.push('Retry-After', decision.retryAfterSeconds);
    applyHeaders(res, headers);
    sendError(res, {
      status: 429,
      code: 'rate_limited',
      message: `too many requests: at most ${config.rateLimit.requestsPerSecond} per second per client`,
    });
    return undefined;
  };

  /** An answer made once (or its error), as every route sends it; `headers` not yet applied. */
  const send = (
    req: IncomingMessage,
    res: ServerResponse,
    answer: PreparedAnswer,
    headers?: HeaderList,
  ): void => {
    if (answer.ok) return sendPrepared(req, res, answer.body, config.cacheMaxAgeSeconds, headers);
    if (headers) applyHeaders(res, headers);
    sendError(res, answer.error);
  };

  /** Every failure of a request, from the pipeline or from Express, answered here. */
  const failed = (error: unknown, req: IncomingMessage, res: ServerResponse): void => {
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      sendError(res, { status, code: 'bad_request', message: 'the request could not be understood' });
      return;
    }
    logger.error(
      { err: error, method: req.method, route: routeTemplate(pathOf(req.url ?? '/')) },
      'status API request failed',
    );
    if (res.headersSent) res.destroy();
    else sendError(res, { status: 500, code: 'internal', message: 'internal error' });
  };

  const answers = new AnswerCache();
  // Uptime counts up to now: those answers are also made again every minute.
  const timelyAnswers = new AnswerCache({ refreshMs: 60_000 });
  // The pages show relative times ("3 hours ago"): made again every minute too.
  const pages = new AnswerCache({ refreshMs: 60_000 });
  const caches = [answers, timelyAnswers, pages];

  /** The snapshot to answer from; undefined until the store has synced (no answer is made before). */
  const loaded = (): StatusSnapshot | undefined => (store.synced ? store.snapshot() : undefined);

  /** The answer already made for this exact URL, snapshot and time slice: no routing needed. */
  const remembered = (req: IncomingMessage, nowMs: number): PreparedAnswer | undefined => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.url === undefined) return undefined;
    const snapshot = loaded();
    if (snapshot === undefined) return undefined;
    for (const cache of caches) {
      const known = cache.urlAnswer(snapshot, nowMs, req.url);
      if (known !== undefined) return known;
    }
    return undefined;
  };

  /**
   * A routed request's answer: `whileLoading` until the store has synced, then the answer under
   * `key` for this snapshot and time, made once by `make` and remembered under the request's URL.
   */
  const answer = (
    req: Request,
    res: Response,
    cache: AnswerCache,
    whileLoading: PreparedAnswer,
    key: string,
    make: (snapshot: StatusSnapshot, now: Date) => PreparedAnswer,
  ): void => {
    const snapshot = loaded();
    if (snapshot === undefined) return send(req, res, whileLoading, [...RETRY_SOON]);
    const now = clock();
    send(
      req,
      res,
      cache.answer(snapshot, now.getTime(), key, () => make(snapshot, now), req.originalUrl),
    );
  };
  const idOf = (req: Request) => (typeof req.params.id === 'string' ? req.params.id : undefined);

  const router = express();
  router.disable('x-powered-by');
  router.set('etag', false);
  for (const route of apiRoutes) {
    const cache = route.timely ? timelyAnswers : answers;
    for (const template of route.templates) {
      router.get(template, (req, res) =>
        answer(req, res, cache, LOADING_API, req.originalUrl, (snapshot, now) =>
          prepareAnswer(route.answer(snapshot, queryOf(req), idOf(req), now, template), route.compressible),
        ),
      );
      router.all(template, readOnly);
    }
  }
  // The human status page (page/routes.ts): the same snapshot, other representations. Its pages
  // link relatively (they work under a path prefix), so /history/ would resolve its links one
  // level too deep: send it to /history, relatively too.
  router.use((req, res, next) => {
    const path = req.path;
    if ((req.method !== 'GET' && req.method !== 'HEAD') || path.length < 2 || !path.endsWith('/'))
      return next();
    const bare = path.replace(/\/+$/, '');
    if (!pageRoutes.some((r) => routeTemplate(bare) === r.template)) return next();
    const query = req.originalUrl.indexOf('?');
    res.redirect(
      301,
      `${'../'.repeat(path.length - bare.length)}${bare.slice(bare.lastIndexOf('/') + 1)}${query >= 0 ? req.originalUrl.slice(query) : ''}`,
    );
  });
  for (const route of pageRoutes) {
    router.get(route.template, (req, res) => {
      const id = idOf(req);
      const query = queryOf(req);
      // Keyed by what the answer depends on: `/?anything` is the same page, from the cache.
      const key = [
        route.template,
        id ?? '',
        ...(route.reads ?? []).map((name) => query.get(name) ?? ''),
      ].join('\n');
      answer(req, res, pages, LOADING_PAGE, key, (snapshot, now) => ({
        ok: true,
        body: route.render(snapshot, id, query, now),
      }));
    });
    router.all(route.template, readOnly);
  }
  router.use((_req, res) => sendError(res, notFound('no such path')));
  // Express 5 signals an error handler by its four parameters.
  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => failed(error, req, res));

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const nowMs = clock().getTime();
    const id = requestId(req);
    const report = observe(req, res, id);
    try {
      const headers = begin(req, res, nowMs, id);
      if (headers !== undefined) {
        const known = remembered(req, nowMs);
        if (known !== undefined) send(req, res, known, headers);
        else {
          applyHeaders(res, headers);
          router(req, res);
        }
      }
    } catch (error) {
      failed(error, req, res);
    }
    // Reported once answered: at once when it was answered here (no listener per request).
    if (res.writableEnded) report();
    else res.once('close', report);
  };
  return Object.assign(listener, {
    listen(port: number, host?: string | (() => void), onListening?: () => void): Server {
      const server = keepAliveBehindProxies(createServer(listener));
      return typeof host === 'string' ? server.listen(port, host, onListening) : server.listen(port, host);
    },
  });
}
