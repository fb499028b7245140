// Writing responses: JSON bodies with a strong ETag and conditional GET, and JSON errors.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody, type ApiError } from '../errors.ts';

/** A strong validator: the same bytes always give the same tag, on every replica. */
export function entityTag(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/** If-None-Match uses the weak comparison (RFC 9110 13.1.2): W/"x" matches "x". */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

function writeBody(res: ServerResponse, status: number, json: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

export function sendJson(
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  maxAgeSeconds: number,
): void {
  const json = JSON.stringify(body);
  const etag = entityTag(json);
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', `public, max-age=${maxAgeSeconds}`);
  if (matchesIfNoneMatch(req.headers['if-none-match'], etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  writeBody(res, 200, json);
}

export function sendError(res: ServerResponse, error: ApiError): void {
  res.setHeader('Cache-Control', 'no-store');
  writeBody(res, error.status, JSON.stringify(errorBody(error)));
}
