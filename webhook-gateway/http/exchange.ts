// One request and its response, and the helpers every route uses to answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LINGER_AFTER_ERROR_MS } from '../limits.ts';
import type { HttpError } from './http-error.ts';
import type { RequestObservation } from './ports.ts';

export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** The client sent `Expect: 100-continue` and waits for our go-ahead before sending the body. */
  awaitingContinue: boolean;
  observation: Pick<RequestObservation, 'route' | 'provider' | 'result'>;
  /** Extra fields for the request's log line. Never a secret, token or Authorization header. */
  log: Record<string, unknown>;
}

/** The client broke off the request; there is nobody left to answer. */
export class ClientGoneError extends Error {
  override name = 'ClientGoneError';
}

/** Call before reading the body: lets a client that sent `Expect: 100-continue` go ahead. */
export function startBody(exchange: Exchange): void {
  if (exchange.awaitingContinue) {
    exchange.awaitingContinue = false;
    exchange.res.writeContinue();
  }
}

export function sendJson(
  exchange: Exchange,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const { res } = exchange;
  if (res.headersSent || res.destroyed) return;
  const payload = JSON.stringify(body);
  settleUnreadBody(exchange);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(payload)),
    'Cache-Control': 'no-store',
  });
  res.end(payload);
}

export function sendError(exchange: Exchange, error: HttpError): void {
  exchange.observation.result = 'rejected';
  sendJson(exchange, error.status, { error: { code: error.code, message: error.message } }, error.headers);
}

/**
 * When we answer before the body was read (a refusal), the client must still see the answer
 * rather than a connection reset. A client waiting for 100-continue never sends the body, so the
 * connection is closed after the answer. Otherwise the connection stays open (closing it with
 * unread data in flight makes the kernel send a reset, which can swallow the answer) and the
 * rest of the body is read and dropped for a short while before the socket is destroyed.
 */
function settleUnreadBody(exchange: Exchange): void {
  const { req, res } = exchange;
  if (req.complete || req.destroyed) return;
  if (exchange.awaitingContinue) {
    res.setHeader('Connection', 'close');
    return;
  }
  for (const destination of pipedDestinations(req)) req.unpipe(destination);
  req.removeAllListeners('data');
  const timer = setTimeout(() => req.socket.destroy(), LINGER_AFTER_ERROR_MS);
  timer.unref();
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => clearTimeout(timer));
  req.resume();
}

function pipedDestinations(req: IncomingMessage): NodeJS.WritableStream[] {
  const pipes = (req as unknown as { _readableState?: { pipes?: NodeJS.WritableStream[] } })._readableState
    ?.pipes;
  return Array.isArray(pipes) ? [...pipes] : [];
}
