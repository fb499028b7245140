// Writing responses: bodies prepared once (JSON, and the pages' HTML, XML and SVG) with a strong
// ETag and conditional GET, and JSON errors.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody, type ApiError } from '../errors.ts';

/** A strong validator: the same bytes always give the same tag, on every replica. */
export function entityTag(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/** A body serialised once: its bytes, their tag and how to send them, written as they are. */
export interface Prepared {
  bytes: Buffer;
  etag: string;
  contentType: string;
  status: number;
  /** Further headers of this kind of answer (the pages' Content-Security-Policy). */
  headers?: Readonly<Record<string, string>>;
  /** Sent gzip-compressed to clients that accept it (the pages: large, repetitive markup; /api/v2). */
  compressible?: boolean;
}

/** Below this, compression saves less than it costs. */
const MIN_COMPRESSED_BYTES = 1024;
/** The gzip form of each compressible body, made on its first request and kept as long as it is. */
const gzipped = new WeakMap<Prepared, { bytes: Buffer; etag: string }>();

function gzipFormOf(body: Prepared): { bytes: Buffer; etag: string } {
  let form = gzipped.get(body);
  if (form === undefined) {
    // A representation of its own, so a tag of its own (RFC 9110 8.8.3).
    form = { bytes: gzipSync(body.bytes), etag: body.etag.replace(/"$/, '-gz"') };
    gzipped.set(body, form);
  }
  return form;
}

/** Whether Accept-Encoding allows gzip: by name with a q-value above 0, else by `*` (RFC 9110 12.5.3). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  let any: boolean | undefined;
  for (const entry of header.split(',')) {
    const [coding = '', ...params] = entry.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const allowed = q === undefined || Number(q.slice(2)) > 0;
    if (coding === 'gzip' || coding === 'x-gzip') return allowed;
    if (coding === '*') any = allowed;
  }
  return any === true;
}

const JSON_TYPE = 'application/json; charset=utf-8';

export function prepareJson(body: unknown, compressible = false): Prepared {
  return prepareText(JSON.stringify(body), JSON_TYPE, 200, undefined, compressible);
}

export function prepareText(
  text: string,
  contentType: string,
  status = 200,
  headers?: Readonly<Record<string, string>>,
  compressible = false,
): Prepared {
  const bytes = Buffer.from(text);
  return {
    bytes,
    etag: entityTag(bytes),
    contentType,
    status,
    ...(headers ? { headers } : {}),
    ...(compressible && bytes.length >= MIN_COMPRESSED_BYTES ? { compressible } : {}),
  };
}

/** If-None-Match uses the weak comparison (RFC 9110 13.1.2): W/"x" matches "x". */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

function writeBody(res: ServerResponse, status: number, contentType: string, body: string | Buffer): void {
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  res.end(body);
}

/** Response headers as name, value, name, value…: written at once by one writeHead. */
export type HeaderList = Array<string | number>;

/**
 * Writes a prepared body (or 304 when the client has it): no serialising or hashing per
 * request, and every header in one writeHead, as a bare node:http server does (each setHeader
 * on its own costs a measurable share of a request served from memory). `headers` are the
 * request's own (id, CORS, rate limit); the list is extended, not copied.
 */
export function sendPrepared(
  req: IncomingMessage,
  res: ServerResponse,
  body: Prepared,
  maxAgeSeconds: number,
  headers: HeaderList = [],
): void {
  let { bytes, etag } = body;
  let gzip = false;
  if (body.compressible) {
    headers.push('Vary', 'Accept-Encoding');
    if (acceptsGzip(req.headers['accept-encoding'])) {
      ({ bytes, etag } = gzipFormOf(body));
      gzip = true;
    }
  }
  // Only a 200 may be kept by caches: a notice's 404 must not outlive the notice's creation.
  headers.push('ETag', etag, 'Cache-Control', body.status === 200 ? cacheControl(maxAgeSeconds) : 'no-store');
  if (body.headers) for (const [name, value] of Object.entries(body.headers)) headers.push(name, value);
  if (body.status === 200 && matchesIfNoneMatch(req.headers['if-none-match'], etag)) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  if (gzip) headers.push('Content-Encoding', 'gzip');
  headers.push('Content-Type', body.contentType, 'Content-Length', bytes.length);
  res.writeHead(body.status, headers);
  res.end(bytes);
}

const cacheControls = new Map<number, string>();
function cacheControl(maxAgeSeconds: number): string {
  let value = cacheControls.get(maxAgeSeconds);
  if (value === undefined) {
    value = `public, max-age=${maxAgeSeconds}`;
    cacheControls.set(maxAgeSeconds, value);
  }
  return value;
}

export function sendError(res: ServerResponse, error: ApiError): void {
  res.setHeader('Cache-Control', 'no-store');
  writeBody(res, error.status, JSON_TYPE, JSON.stringify(errorBody(error)));
}
