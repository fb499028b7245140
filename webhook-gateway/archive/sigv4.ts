// AWS Signature Version 4, so the S3 archive store needs no AWS SDK. Pure: the clock is a
// parameter. Follows AWS's "Create a signed AWS API request" steps with S3's rule for the path
// (each segment URI-encoded once, not twice as for other services).
import { createHash, createHmac } from 'node:crypto';

export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface SigV4Scope {
  region: string;
  /** `s3` for object stores. */
  service: string;
}

export interface SigV4Request {
  method: string;
  url: URL;
  /** Headers to send and sign, besides host (from the URL) and x-amz-date (added). */
  headers?: Record<string, string>;
  /** Hex SHA-256 of the body; S3 also wants it in `x-amz-content-sha256`. */
  payloadHash: string;
}

export interface SignedRequest {
  /**
   * The headers to send: the request's (lower-cased), x-amz-date and authorization. Not host:
   * the HTTP client derives it from the URL exactly as it was signed.
   */
  headers: Record<string, string>;
  canonicalRequest: string;
  stringToSign: string;
  signature: string;
}

export const EMPTY_PAYLOAD_SHA256 = sha256Hex('');
const ALGORITHM = 'AWS4-HMAC-SHA256';

export function signRequest(
  request: SigV4Request,
  credentials: SigV4Credentials,
  scope: SigV4Scope,
  now: Date,
): SignedRequest {
  const amzDate = toAmzDate(now);
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
  headers['x-amz-date'] = amzDate;
  const signed: Record<string, string> = { ...headers, host: request.url.host };

  const names = Object.keys(signed).sort();
  const signedHeaders = names.join(';');
  const canonicalHeaders = names.map((name) => `${name}:${canonicalHeaderValue(signed[name]!)}\n`).join('');
  const canonicalRequest = [
    request.method.toUpperCase(),
    canonicalUri(request.url.pathname),
    canonicalQuery(request.url.searchParams),
    canonicalHeaders,
    signedHeaders,
    request.payloadHash,
  ].join('\n');

  const credentialScope = `${day}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = [ALGORITHM, amzDate, credentialScope, sha256Hex(canonicalRequest)].join('\n');
  const key = signingKey(credentials.secretAccessKey, day, scope.region, scope.service);
  const signature = createHmac('sha256', key).update(stringToSign).digest('hex');

  headers.authorization =
    `${ALGORITHM} Credential=${credentials.accessKeyId}/${credentialScope}, ` +
    `SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { headers, canonicalRequest, stringToSign, signature };
}

/** `20150830T123600Z`. */
export function toAmzDate(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** RFC 3986 percent-encoding: everything but `A-Za-z0-9-._~` (encodeURIComponent spares `!'()*` too). */
export function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** An object path as sent and signed: each segment encoded, slashes kept. */
export function encodePath(path: string): string {
  return path.split('/').map(uriEncode).join('/');
}

function canonicalUri(pathname: string): string {
  if (pathname === '') return '/';
  // The server re-encodes what it received, so `$` sent bare is signed as %24.
  return pathname
    .split('/')
    .map((segment) => uriEncode(safeDecode(segment)))
    .join('/');
}

function canonicalQuery(params: URLSearchParams): string {
  return [...params]
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

function canonicalHeaderValue(value: string): string {
  return value.trim().replace(/\s+/g, ' ');
}

function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  const dateKey = createHmac('sha256', `AWS4${secret}`).update(day).digest();
  const regionKey = createHmac('sha256', dateKey).update(region).digest();
  const serviceKey = createHmac('sha256', regionKey).update(service).digest();
  return createHmac('sha256', serviceKey).update('aws4_request').digest();
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
