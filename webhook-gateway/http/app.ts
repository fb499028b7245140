// The gateway's public HTTP interface (docs/providers.md, docs/upload-script.md). Plain node:http: provider signatures are
// computed over the exact raw body and uploads are streamed, neither of which wants a body parser.
import { keepAliveBehindProxies } from '../../lib/keep-alive.ts';
import { requestId } from '../../lib/request-id.ts';
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { ArchiveError } from '../archive/errors.ts';
import { HEADERS_TIMEOUT_MS, MAX_CONCURRENT_UPLOADS, MAX_REQUEST_DURATION_MS } from '../limits.ts';
import { handleArchiveDownload } from './archives.ts';
import { BUNDLE_LOGS_PATH, handleBundleLogs } from './bundle-logs.ts';
import { BUNDLE_STATUS_PATH, handleBundleStatus } from './bundle-status.ts';
import { gatewayContext, type GatewayContext, type GatewayDependencies } from './context.ts';
import { ClientGoneError, sendError, type Exchange } from './exchange.ts';
import { handleHook } from './hooks.ts';
import { HttpError } from './http-error.ts';
import type { RequestObservation } from './ports.ts';
import {
  handleRegistryToken,
  REGISTRY_JWKS_PATH,
  REGISTRY_TOKEN_PATH,
  serveRegistryJwks,
} from './registry-token.ts';
import { handleUpload } from './uploads.ts';

export interface Gateway {
  /** The `request` listener. */
  handleRequest: RequestListener;
  /** The `checkContinue` listener: refusals are sent before the client uploads its body. */
  handleCheckContinue: RequestListener;
}

export function createGateway(deps: GatewayDependencies): Gateway {
  const ctx = gatewayContext(deps, MAX_CONCURRENT_UPLOADS);
  return {
    handleRequest: (req, res) => void serve(ctx, req, res, false),
    handleCheckContinue: (req, res) => void serve(ctx, req, res, true),
  };
}

/** An http.Server running the gateway, with timeouts suited to large uploads. Call listen() on it. */
export function createGatewayServer(deps: GatewayDependencies): Server {
  const gateway = createGateway(deps);
  const server = createServer(
    { requestTimeout: MAX_REQUEST_DURATION_MS, headersTimeout: HEADERS_TIMEOUT_MS },
    gateway.handleRequest,
  );
  server.on('checkContinue', gateway.handleCheckContinue);
  return keepAliveBehindProxies(server);
}

// /hooks/{slug}/{token}, or /hooks/{slug} (status.webhook.url as pasted) for signed deliveries.
const HOOK_PATH = /^\/hooks\/([^/]+)(?:\/([^/]+))?\/?$/;
const UPLOAD_PATH = /^\/uploads\/([^/]+)\/?$/;

async function serve(
  ctx: GatewayContext,
  req: IncomingMessage,
  res: ServerResponse,
  awaitingContinue: boolean,
) {
  const started = performance.now();
  const id = requestId(req);
  res.setHeader('X-Request-Id', id);
  const exchange: Exchange = {
    req,
    res,
    awaitingContinue,
    observation: { route: 'unmatched' },
    log: { requestId: id },
  };
  const closed = new Promise((resolve) => res.once('close', resolve));

  try {
    // The path holds the URL token: it is matched here and never logged.
    const url = new URL(req.url ?? '/', 'http://gateway.invalid');
    const path = url.pathname;
    let match: RegExpExecArray | null;
    if ((match = HOOK_PATH.exec(path))) {
      exchange.observation.route = match[2] === undefined ? '/hooks/:slug' : '/hooks/:slug/:token';
      requireMethod(req, ['POST']);
      exchange.log.slug = decodeSegment(match[1]!);
      const token = match[2] === undefined ? undefined : decodeSegment(match[2]);
      await handleHook(ctx, exchange, decodeSegment(match[1]!), token);
    } else if ((match = UPLOAD_PATH.exec(path))) {
      exchange.observation.route = '/uploads/:slug';
      requireMethod(req, ['POST']);
      exchange.log.slug = decodeSegment(match[1]!);
      await handleUpload(ctx, exchange, decodeSegment(match[1]!));
    } else if (path === '/upload.sh') {
      exchange.observation.route = '/upload.sh';
      requireMethod(req, ['GET', 'HEAD']);
      serveUploadScript(ctx, exchange);
    } else if ((match = BUNDLE_LOGS_PATH.exec(path))) {
      exchange.observation.route = '/bundles/:namespace/:name/logs/:token';
      requireMethod(req, ['GET']);
      await handleBundleLogs(ctx, exchange, {
        namespace: decodeSegment(match[1]!),
        name: decodeSegment(match[2]!),
        token: decodeSegment(match[3]!),
      });
    } else if ((match = BUNDLE_STATUS_PATH.exec(path))) {
      exchange.observation.route = '/bundles/:namespace/:name/:token';
      requireMethod(req, ['GET']);
      handleBundleStatus(ctx, exchange, {
        namespace: decodeSegment(match[1]!),
        name: decodeSegment(match[2]!),
        token: decodeSegment(match[3]!),
      });
    } else if (path === REGISTRY_TOKEN_PATH) {
      exchange.observation.route = REGISTRY_TOKEN_PATH;
      requireMethod(req, ['GET', 'POST']);
      await handleRegistryToken(ctx, exchange, url);
    } else if (path === REGISTRY_JWKS_PATH) {
      exchange.observation.route = REGISTRY_JWKS_PATH;
      requireMethod(req, ['GET']);
      serveRegistryJwks(ctx, exchange);
    } else if (path.startsWith('/archives/')) {
      exchange.observation.route = '/archives/:key';
      requireMethod(req, ['GET', 'HEAD']);
      await handleArchiveDownload(ctx, exchange, url);
    } else {
      throw new HttpError(404, 'not_found', 'no such endpoint');
    }
  } catch (error) {
    answerFailure(ctx, exchange, error);
  }
  // Reported once the handler is done (an abandoned upload's file is gone by then) and the response is closed.
  await closed;
  report(ctx, exchange, started);
}

function answerFailure(ctx: GatewayContext, exchange: Exchange, error: unknown): void {
  if (error instanceof HttpError) return sendError(exchange, error);
  if (error instanceof ArchiveError)
    return sendError(exchange, new HttpError(error.status, error.code, error.message));
  if (error instanceof ClientGoneError || exchange.req.destroyed) {
    exchange.observation.result = 'abandoned';
    exchange.res.destroy();
    return;
  }
  ctx.logger.error({ err: error, route: exchange.observation.route, ...exchange.log }, 'request failed');
  sendError(exchange, new HttpError(500, 'internal_error', 'internal error'));
}

function serveUploadScript(ctx: GatewayContext, exchange: Exchange): void {
  const body = Buffer.from(ctx.uploadScript);
  exchange.res.writeHead(200, {
    'Content-Type': 'text/x-shellscript; charset=utf-8',
    'Content-Length': String(body.length),
    'Cache-Control': 'no-cache',
  });
  exchange.res.end(exchange.req.method === 'HEAD' ? undefined : body);
}

function requireMethod(req: IncomingMessage, allowed: string[]): void {
  if (!allowed.includes(req.method ?? '')) {
    throw new HttpError(405, 'method_not_allowed', `use ${allowed.join(' or ')}`, {
      Allow: allowed.join(', '),
    });
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(404, 'not_found', 'no such endpoint');
  }
}

/** 499 (nginx's "client closed request") when the client went away before the answer. */
function report(ctx: GatewayContext, exchange: Exchange, started: number): void {
  const { req, res, observation } = exchange;
  const status = res.writableFinished ? res.statusCode : 499;
  const record: RequestObservation = {
    ...observation,
    method: req.method ?? '',
    status,
    durationSeconds: (performance.now() - started) / 1000,
  };
  ctx.observe(record);
  const fields = { ...record, ...exchange.log };
  if (status >= 500) ctx.logger.warn(fields, 'request answered with a server error');
  else ctx.logger.info(fields, 'request answered');
}
