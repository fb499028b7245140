// A real S3-compatible server on 127.0.0.1 for the S3 archive store's tests: s3rver (in-process,
// port 0, a temporary directory) behind a front that checks every request's SigV4 signature the
// way AWS does. s3rver 3.7.1 checks only that a SigV4 request names a known access key id and
// skips the signature ("Signature version 4 calculation is unimplemented"), so without the front
// a wrong secret key would go unnoticed. The front's canonicalisation is written here from the
// specification, independently of the AWS SDK signer the store uses, and reads what actually
// arrived on the wire: path, headers and a hash of the received body. It also knows one set of
// temporary credentials, which only sign with their session token.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { S3ArchiveStore, type S3ArchiveStoreOptions } from '../../../../webhook-gateway/archive/s3-store.ts';

/** s3rver's built-in account: it accepts this id and no other. */
export const S3_ACCESS_KEY_ID = 'S3RVER';
/** The secret the front checks signatures with. */
export const S3_SECRET_ACCESS_KEY = 'slipway-test-secret/K7MDENG+EXAMPLEKEY';
/**
 * Temporary credentials (as STS, IRSA or Pod Identity hand out): the same key id with another
 * secret, valid only together with this session token in a signed `x-amz-security-token`.
 */
export const S3_TEMPORARY_SECRET_ACCESS_KEY = 'slipway-test-temporary/Q2K8EXAMPLEKEY';
export const S3_SESSION_TOKEN = 'IQoJb3JpZ2luX2VjEXAMPLE-session-token//test';
export const S3_BUCKET = 'slipway-archives';
export const S3_REGION = 'eu-test-1';

const OBJECT_SUFFIX = '._S3rver_object';
const MAX_BODY_BYTES = 32 * 1024 * 1024;
const MAX_CLOCK_SKEW_MS = 15 * 60_000;

export interface S3Request {
  method: string;
  path: string;
  status: number;
}

export interface S3Fixture {
  /** The checking front: what the store under test talks to. */
  endpoint: string;
  /** Every request the front answered, in order. */
  requests: S3Request[];
  /** The next PUT reaches s3rver (the object is stored) but is answered 500, as after a lost reply. */
  failNextPutAfterStoring(): void;
  /** An S3 store on this server; options override the fixture's credentials and bucket. */
  store(options: Partial<S3ArchiveStoreOptions> & { stagingDir: string }): S3ArchiveStore;
  /** The bucket's objects whose keys start with `prefix`, by key. */
  objects(prefix?: string): Promise<Map<string, Buffer>>;
  close(): Promise<void>;
}

export async function startS3(): Promise<S3Fixture> {
  const directory = await mkdtemp(join(tmpdir(), 'slipway-s3rver-'));
  const s3rver = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: S3_BUCKET }],
  });
  const upstream = await s3rver.run();
  const requests: S3Request[] = [];
  const faults = { failNextPut: false };

  const front: Server = createServer((req, res) => {
    res.on('finish', () =>
      requests.push({ method: req.method ?? '', path: req.url ?? '', status: res.statusCode }),
    );
    const failAfter = req.method === 'PUT' && faults.failNextPut;
    if (failAfter) faults.failNextPut = false;
    forward(req, res, upstream, failAfter).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, req, 500, 'InternalError', String(error));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;

  return {
    endpoint,
    requests,
    failNextPutAfterStoring: () => {
      faults.failNextPut = true;
    },
    store: (options) =>
      new S3ArchiveStore({
        endpoint,
        bucket: S3_BUCKET,
        region: S3_REGION,
        accessKeyId: S3_ACCESS_KEY_ID,
        secretAccessKey: S3_SECRET_ACCESS_KEY,
        ...options,
      }),
    objects: async (prefix = '') => {
      const root = join(directory, S3_BUCKET);
      const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
      const objects = new Map<string, Buffer>();
      for (const entry of entries) {
        if (!entry.isFile() || !entry.name.endsWith(OBJECT_SUFFIX)) continue;
        const path = join(entry.parentPath, entry.name);
        const key = path.slice(root.length + 1, -OBJECT_SUFFIX.length);
        if (key.startsWith(prefix)) objects.set(key, await readFile(path));
      }
      return objects;
    },
    close: async () => {
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await s3rver.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

async function forward(
  req: IncomingMessage,
  res: ServerResponse,
  upstream: AddressInfo,
  failAfterStoring: boolean,
): Promise<void> {
  const body = await readBody(req);
  if (body === undefined) return sendError(res, req, 400, 'EntityTooLarge', 'test bodies are small');
  const refusal = checkRequest(req, body);
  if (refusal) return sendError(res, req, refusal.status, refusal.code, refusal.message);

  await new Promise<void>((resolve, reject) => {
    const proxied = httpRequest(
      {
        host: upstream.address,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: `${upstream.address}:${upstream.port}` },
      },
      (answer) => {
        if (failAfterStoring) {
          answer.resume();
          answer.on('end', () => {
            sendError(res, req, 500, 'InternalError', 'We encountered an internal error. Please try again.');
            resolve();
          });
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', resolve);
        answer.on('error', reject);
      },
    );
    proxied.on('error', reject);
    proxied.end(body);
  });
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

interface Refusal {
  status: number;
  code: string;
  message: string;
}

/** AWS's checks of a header-signed request, in the order S3 reports them. */
function checkRequest(req: IncomingMessage, body: Buffer): Refusal | undefined {
  if (req.method === 'PUT' && req.headers['content-length'] === undefined) {
    return {
      status: 411,
      code: 'MissingContentLength',
      message: 'You must provide the Content-Length HTTP header.',
    };
  }
  const authorization =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
      req.headers.authorization ?? '',
    );
  if (!authorization) {
    return { status: 403, code: 'AccessDenied', message: 'A SigV4 Authorization header is required.' };
  }
  const [, accessKeyId, day, region, signedHeaders, signature] = authorization as unknown as string[];
  if (accessKeyId !== S3_ACCESS_KEY_ID) {
    return {
      status: 403,
      code: 'InvalidAccessKeyId',
      message: 'The AWS Access Key Id you provided does not exist in our records.',
    };
  }
  if (region !== S3_REGION) {
    return {
      status: 400,
      code: 'AuthorizationHeaderMalformed',
      message: `the region '${region}' is wrong; expecting '${S3_REGION}'`,
    };
  }
  const amzDate = headerValue(req, 'x-amz-date');
  const sentAt = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!sentAt || !amzDate.startsWith(day!)) {
    return {
      status: 403,
      code: 'AccessDenied',
      message: 'x-amz-date is missing or does not match the scope.',
    };
  }
  const [, y, mo, d, h, mi, s] = sentAt.map(Number) as number[];
  if (Math.abs(Date.UTC(y!, mo! - 1, d, h, mi, s) - Date.now()) > MAX_CLOCK_SKEW_MS) {
    return {
      status: 403,
      code: 'RequestTimeTooSkewed',
      message: 'The difference between the request time and the current time is too large.',
    };
  }
  const names = signedHeaders!.split(';');
  for (const required of ['host', 'x-amz-date', 'x-amz-content-sha256']) {
    if (!names.includes(required)) {
      return { status: 403, code: 'AccessDenied', message: `the header ${required} must be signed` };
    }
  }
  const sessionToken = req.headers['x-amz-security-token'];
  if (
    sessionToken !== undefined &&
    (sessionToken !== S3_SESSION_TOKEN || !names.includes('x-amz-security-token'))
  ) {
    return {
      status: 400,
      code: 'InvalidToken',
      message: 'The provided token is malformed or otherwise invalid.',
    };
  }
  const secretAccessKey = sessionToken === undefined ? S3_SECRET_ACCESS_KEY : S3_TEMPORARY_SECRET_ACCESS_KEY;
  const payloadHash = headerValue(req, 'x-amz-content-sha256');
  if (payloadHash !== createHash('sha256').update(body).digest('hex')) {
    return {
      status: 400,
      code: 'XAmzContentSHA256Mismatch',
      message: "The provided 'x-amz-content-sha256' header does not match what was computed.",
    };
  }

  const url = new URL(req.url ?? '/', 'http://front');
  const canonicalRequest = [
    req.method,
    url.pathname
      .split('/')
      .map((segment) => percentEncode(decodeURIComponent(segment)))
      .join('/'),
    [...url.searchParams]
      .map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`)
      .sort()
      .join('&'),
    names.map((name) => `${name}:${headerValue(req, name).trim().replace(/ +/g, ' ')}\n`).join(''),
    signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${day}/${region}/s3/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${createHash('sha256').update(canonicalRequest).digest('hex')}`;
  let key: Buffer = Buffer.from(`AWS4${secretAccessKey}`);
  for (const part of [day!, region!, 's3', 'aws4_request'])
    key = createHmac('sha256', key).update(part).digest();
  const expected = createHmac('sha256', key).update(stringToSign).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature!, 'hex'))) {
    return {
      status: 403,
      code: 'SignatureDoesNotMatch',
      message:
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    };
  }
  return undefined;
}

function headerValue(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

/** RFC 3986 unreserved characters stay, every other UTF-8 byte becomes %XX. */
function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function sendError(
  res: ServerResponse,
  req: IncomingMessage,
  status: number,
  code: string,
  message: string,
): void {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</Message></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml) });
  res.end(req.method === 'HEAD' ? undefined : xml);
}
