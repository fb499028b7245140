import { ClientGoneError, startBody, type Exchange } from './exchange.ts';
import { HttpError } from './http-error.ts';

/** Reads a small body whole. 413 past `limit`, 408 when it does not arrive within `timeoutMs`. */
export function readBody(exchange: Exchange, limit: number, timeoutMs: number): Promise<Buffer> {
  const { req } = exchange;
  startBody(exchange);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (error: Error | undefined, body?: Buffer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      if (error) reject(error);
      else resolve(body as Buffer);
    };
    const timer = setTimeout(
      () => settle(new HttpError(408, 'request_timeout', 'the request body did not arrive in time')),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit)
        settle(new HttpError(413, 'body_too_large', `the body is larger than ${limit} bytes`));
      else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => settle(undefined, Buffer.concat(chunks, size)));
    req.once('close', () => {
      if (!req.complete) settle(new ClientGoneError('the client closed the connection'));
    });
    req.once('error', () => settle(new ClientGoneError('the client connection failed')));
  });
}

/** 413 before reading anything when the declared length is already over `limit`. */
export function rejectDeclaredLength(exchange: Exchange, limit: number): void {
  const declared = exchange.req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    throw new HttpError(413, 'body_too_large', `the body is larger than ${limit} bytes`);
  }
}

/** The media type of the request, lower-case, without parameters. */
export function mediaType(exchange: Exchange): string {
  return (exchange.req.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
}
