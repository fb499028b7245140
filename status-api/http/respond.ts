// Writing responses: JSON bodies with a strong ETag and conditional GET, and JSON errors.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody, type ApiError } from '../errors.ts';

/** A strong validator: the same bytes always give the same tag, on every replica. */
export function entityTag(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/** A JSON body serialised once: its UTF-8 bytes and their tag, to be written as they are. */
export interface PreparedJson {
  bytes: Buffer;
  etag: string;
}

export function prepareJson(body: unknown): PreparedJson {
  const bytes = Buffer.from(JSON.stringify(body));
  return { bytes, etag: entityTag(bytes) };
}

/** If-None-Match uses the weak comparison (RFC 9110 13.1.2): W/"x" matches "x". */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

function writeBody(res: ServerResponse, status: number, json: string | Buffer): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', typeof json === 'string' ? Buffer.byteLength(json) : json.length);
  res.end(json);
}

/** Writes a prepared body (or 304 when the client has it): no serialising or hashing per request. */
export function sendPrepared(
  req: IncomingMessage,
  res: ServerResponse,
  body: PreparedJson,
  maxAgeSeconds: number,
): void {
  res.setHeader('ETag', body.etag);
  res.setHeader('Cache-Control', `public, max-age=${maxAgeSeconds}`);
  if (matchesIfNoneMatch(req.headers['if-none-match'], body.etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  writeBody(res, 200, body.bytes);
}

export function sendError(res: ServerResponse, error: ApiError): void {
  res.setHeader('Cache-Control', 'no-store');
  writeBody(res, error.status, JSON.stringify(errorBody(error)));
}
