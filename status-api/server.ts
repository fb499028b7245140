// The public HTTP server of the status API (docs/status-api.md).
// Order per request: metrics timing → CORS headers → rate limit → route (405 for other
// methods) → 503 until the store has synced → the endpoint → 404 for any other path. A GET of a
// URL already answered for the current snapshot takes the same steps from memory, before
// Express routes it (fromMemory below).
import { keepAliveBehindProxies } from '../lib/keep-alive.ts';
import { requestId } from '../lib/request-id.ts';
import { AnswerCache, prepareAnswer, type PreparedAnswer } from './http/answer-cache.ts';
import { loadingPage, pageRoutes } from './page/routes.ts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { pino, type Logger } from 'pino';
import { statusApiConfigSchema, type StatusApiConfigInput } from './config.ts';
import {
  componentEndpoint,
  componentsEndpoint,
  noticeEndpoint,
  noticesEndpoint,
  statusEndpoint,
  type EndpointResult,
} from './endpoints.ts';
import { notFound } from './errors.ts';
import { statuspageBodies, statuspageEndpoint } from './statuspage-endpoints.ts';
import { clientAddress, limitKey, parseTrustedProxies } from '../lib/client-address.ts';
import { TokenBucketLimiter } from './http/rate-limiter.ts';
import { observeRequests, pathOf, type RequestObservation } from './http/observe.ts';
import { sendError, sendPrepared, type HeaderList } from './http/respond.ts';
import type { StatusSnapshot } from './model/snapshot.ts';

/** What the server reads; StatusStore is one. */
export interface StatusSource {
  readonly synced: boolean;
  snapshot(): StatusSnapshot;
}

export type { RequestObservation } from './http/observe.ts';

export interface StatusAppOptions {
  store: StatusSource;
  /** Decides timeline states, page state and rate-limit refill; tests pass a fixed one. */
  clock?: () => Date;
  config?: StatusApiConfigInput;
  logger?: Logger;
  /** Called once per finished request, e.g. to feed a prom-client histogram. */
  observeRequest?: (observation: RequestObservation) => void;
}

export const UNMATCHED_ROUTE = 'unmatched';
const ALLOW = 'GET, HEAD, OPTIONS';
const EXPOSED_HEADERS =
  'ETag, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy';

interface Route {
  templates: string[];
  /** Large answers (the v2 summary holds every component): gzip for clients that accept it. */
  compressible?: boolean;
  /** Answers that move with the clock between notice changes (today's uptime): made again each minute. */
  timely?: boolean;
  answer(
    snapshot: StatusSnapshot,
    query: URLSearchParams,
    req: Request,
    now: Date,
    template: string,
  ): EndpointResult;
}

const routes: Route[] = [
  {
    templates: ['/api/v1/status', '/v1/status'],
    answer: (snapshot, query, _req, now) => statusEndpoint(snapshot, query, now),
  },
  {
    templates: ['/api/v1/components', '/v1/components'],
    answer: (snapshot, query, _req, _now, template) => componentsEndpoint(snapshot, query, template),
  },
  {
    templates: ['/api/v1/components/:id', '/v1/components/:id'],
    timely: true,
    answer: (snapshot, query, req, now) => componentEndpoint(snapshot, query, String(req.params.id), now),
  },
  {
    templates: ['/api/v1/notices', '/v1/notices'],
    answer: (snapshot, query, _req, now, template) => noticesEndpoint(snapshot, query, template, now),
  },
  {
    templates: ['/api/v1/notices/:id', '/v1/notices/:id', '/api/notices/:id'],
    answer: (snapshot, query, req, now) => noticeEndpoint(snapshot, query, String(req.params.id), now),
  },
  // Atlassian Statuspage's public format (statuspage-endpoints.ts).
  ...Object.keys(statuspageBodies).map((path): Route => ({
    templates: [path],
    compressible: true,
    // Components carry their 90-day uptime, which counts up to now.
    timely: true,
    answer: (snapshot, query, _req, now) => statuspageEndpoint(path, snapshot, query, now),
  })),
];

/** The query string exactly as sent; `filter[type_eq]` stays one key. */
function queryOf(req: Request): URLSearchParams {
  const start = req.originalUrl.indexOf('?');
  return new URLSearchParams(start >= 0 ? req.originalUrl.slice(start + 1) : '');
}

/** Template matchers for metric labels, run before anything can reject the request. */
const templateMatchers = [
  ...routes.flatMap((route) => route.templates),
  ...pageRoutes.map((r) => r.template),
].map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\./g, '\\.').replace(':id', '[^/]+')}/?$`, 'i'),
}));

export function routeTemplate(path: string): string {
  return templateMatchers.find((m) => m.pattern.test(path))?.template ?? UNMATCHED_ROUTE;
}

/** Headers of every answer: anyone may read it from a browser, as JSON, never sniffed. */
const COMMON_HEADERS: HeaderList = [
  'Access-Control-Allow-Origin',
  '*',
  'Access-Control-Expose-Headers',
  EXPOSED_HEADERS,
  'X-Content-Type-Options',
  'nosniff',
];

/** Sets a header list one by one (the routed path, and errors). */
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

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  const observe = observeRequests(observeRequest, logger, routeTemplate);
  const policy = limiter
    ? `${config.rateLimit.burst};w=${Math.max(1, Math.round(config.rateLimit.burst / config.rateLimit.requestsPerSecond))}`
    : '';

  /**
   * A request's own headers (its id, CORS, the rate limit); undefined when the client is over the
   * rate limit (429 sent).
   */
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
  app.use((req, res, next) => {
    const id = requestId(req);
    res.once('close', observe(req, res, id));
    const headers = begin(req, res, clock().getTime(), id);
    if (headers === undefined) return;
    applyHeaders(res, headers);
    next();
  });

  /** An answer made once (or its error), as every route sends it, with the request's headers. */
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

  const answers = new AnswerCache();
  // Uptime counts up to now: those answers are also made again every minute.
  const timelyAnswers = new AnswerCache({ refreshMs: 60_000 });
  for (const route of routes) {
    const cache = route.timely ? timelyAnswers : answers;
    for (const template of route.templates) {
      app.get(template, (req, res) => {
        if (!store.synced) {
          res.setHeader('Retry-After', 1);
          sendError(res, { status: 503, code: 'not_ready', message: 'the status data is still loading' });
          return;
        }
        const snapshot = store.snapshot();
        const now = clock();
        const result = cache.answer(snapshot, now.getTime(), req.originalUrl, () =>
          prepareAnswer(route.answer(snapshot, queryOf(req), req, now, template), route.compressible),
        );
        send(req, res, result);
      });
      app.all(template, readOnly);
    }
  }

  // The human status page (page/routes.ts): the same snapshot, other representations. Its pages
  // show relative times ("3 hours ago"), so they are also computed again every minute.
  const pages = new AnswerCache({ refreshMs: 60_000 });
  // The pages link relatively (they work under a path prefix), so /history/ would resolve its
  // links one level too deep: send it to /history, relatively too.
  app.use((req, res, next) => {
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
    app.get(route.template, (req, res) => {
      if (!store.synced) {
        res.setHeader('Retry-After', 1);
        sendPrepared(req, res, loadingPage, 0);
        return;
      }
      const snapshot = store.snapshot();
      const now = clock();
      const id = typeof req.params.id === 'string' ? req.params.id : undefined;
      const query = queryOf(req);
      // Keyed by what the answer depends on: `/?anything` is the same page, from the cache.
      const key = [
        route.template,
        id ?? '',
        ...(route.reads ?? []).map((name) => query.get(name) ?? ''),
      ].join('\n');
      const result = pages.answer(
        snapshot,
        now.getTime(),
        key,
        () => ({ ok: true, body: route.render(snapshot, id, query, now) }),
        req.originalUrl,
      );
      send(req, res, result);
    });
    app.all(route.template, readOnly);
  }

  app.use((_req, res) => sendError(res, notFound('no such path')));

  // Express 5 signals an error handler by its four parameters.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      sendError(res, { status, code: 'bad_request', message: 'the request could not be understood' });
      return;
    }
    logger.error(
      { err: error, method: req.method, route: routeTemplate(req.path) },
      'status API request failed',
    );
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendError(res, { status: 500, code: 'internal', message: 'internal error' });
  });

  /**
   * The fast lane: a GET whose exact URL was answered before, for this snapshot and time slice,
   * is answered from memory before Express routes it — the same steps in the same order
   * (observation, headers, rate limit, the prepared answer), without the router. Express
   * itself cost 20-30% of the bare node:http ceiling on the hot JSON routes.
   */
  const fromMemory = (req: IncomingMessage, res: ServerResponse): boolean => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !store.synced || req.url === undefined)
      return false;
    const snapshot = store.snapshot();
    const nowMs = clock().getTime();
    const known =
      answers.urlAnswer(snapshot, nowMs, req.url) ??
      timelyAnswers.urlAnswer(snapshot, nowMs, req.url) ??
      pages.urlAnswer(snapshot, nowMs, req.url);
    if (known === undefined) return false;
    const id = requestId(req);
    // Answered before this returns: reported then, with no 'close' listener per request.
    const report = observe(req, res, id);
    try {
      const headers = begin(req, res, nowMs, id);
      if (headers !== undefined) send(req, res, known, headers);
    } catch (error) {
      // As Express's error handler answers a failure on its path.
      logger.error(
        { err: error, method: req.method, route: routeTemplate(pathOf(req.url)) },
        'status API request failed',
      );
      if (res.headersSent) res.destroy();
      else sendError(res, { status: 500, code: 'internal', message: 'internal error' });
    }
    report();
    return true;
  };
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    if (!fromMemory(req, res)) app(req, res);
  };
  return Object.assign(listener, {
    listen(port: number, host?: string | (() => void), onListening?: () => void): Server {
      const server = keepAliveBehindProxies(createServer(listener));
      return typeof host === 'string' ? server.listen(port, host, onListening) : server.listen(port, host);
    },
  });
}
