// Archives in an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, Cloudflare R2, ...), the
// configured alternative to the filesystem store for gateways without a shared volume. An upload
// is staged and validated in a local temporary file like the filesystem store's (staging.ts),
// then PUT in one request as `{prefix}{key}`, and the temporary file deleted; a refused upload
// never reaches the bucket. Requests are path-style (`{endpoint}/{bucket}/{object}`), signed with
// SigV4 by the AWS SDK's signer with credentials from its provider chain (s3-signer.ts), and
// bodies stream both ways. Build Jobs still download through the gateway's signed
// /archives URLs, so the S3 credentials stay in the gateway.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { fetch, type Response } from 'undici';
import type { ArchiveLimits } from './archive-limits.ts';
import { s3Credentials, S3Signer, type S3Credentials } from './s3-signer.ts';
import { removeStaleTemporaryFiles, stageArchive } from './staging.ts';
import { archiveKey, isArchiveKey } from '../../rules/archive-url.ts';
import type { ArchiveStore, StoredArchive, StoredKey } from './store.ts';

export interface S3ArchiveStoreOptions {
  /** `http(s)://host[:port]` of the service, optionally with a base path. */
  endpoint: string;
  bucket: string;
  region: string;
  /** Put verbatim before every archive key, e.g. `slipway/` (empty: keys at the bucket root). */
  prefix?: string;
  /**
   * Static keys (both, and a session token for temporary ones); without them, the AWS SDK's
   * provider chain (environment, IRSA, Pod Identity, profiles, instance metadata).
   */
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  /** Credentials or a provider of them, instead of the keys above. */
  credentials?: S3Credentials;
  /** Local directory uploads are staged in while they are validated. */
  stagingDir: string;
  now?: () => Date;
}

/** A request the object store refused or that did not reach it. */
export class S3StoreError extends Error {
  override name = 'S3StoreError';
  /** HTTP status, or undefined when the service was not reached. */
  readonly status: number | undefined;
  /** The service's error code (`SignatureDoesNotMatch`, `NoSuchBucket`, ...), when it sent one. */
  readonly code: string | undefined;

  constructor(message: string, status?: number, code?: string, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
    this.code = code;
  }
}

const MAX_ERROR_BODY_BYTES = 64 * 1024;
const CREDENTIAL_CODES = new Set([
  'SignatureDoesNotMatch',
  'InvalidAccessKeyId',
  'AccessDenied',
  'InvalidToken',
  'AuthorizationHeaderMalformed',
  'RequestTimeTooSkewed',
]);

export class S3ArchiveStore implements ArchiveStore {
  readonly stagingDir: string;
  readonly #endpoint: string;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly #signer: S3Signer;
  readonly #now: () => Date;

  constructor(options: S3ArchiveStoreOptions) {
    const endpoint = new URL(options.endpoint);
    if (!['http:', 'https:'].includes(endpoint.protocol) || endpoint.search || endpoint.hash) {
      throw new Error('the S3 endpoint must be an http(s) URL without query or fragment');
    }
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(options.bucket)) {
      throw new Error('the S3 bucket must be a bucket name (letters, digits, dots, hyphens, underscores)');
    }
    const prefix = options.prefix ?? '';
    if (prefix.startsWith('/') || prefix.split('/').some((s) => s === '.' || s === '..')) {
      throw new Error("the S3 key prefix may not start with '/' or contain '.' or '..' segments");
    }
    if (Boolean(options.accessKeyId) !== Boolean(options.secretAccessKey)) {
      throw new Error(
        'the S3 store needs both an access key id and a secret access key, or neither (to use the AWS credential chain)',
      );
    }
    this.#endpoint = `${endpoint.origin}${endpoint.pathname.replace(/\/+$/, '')}`;
    this.#bucket = options.bucket;
    this.#prefix = prefix;
    this.#signer = new S3Signer(options.credentials ?? s3Credentials(options), options.region);
    this.stagingDir = options.stagingDir;
    this.#now = options.now ?? (() => new Date());
  }

  async receive(
    source: Readable,
    target: { namespace: string; project: string },
    limits: ArchiveLimits,
  ): Promise<StoredArchive> {
    const staged = await stageArchive(source, this.stagingDir, limits);
    try {
      const { digest } = staged;
      const key = archiveKey(target.namespace, target.project, digest.sha256);
      const objectKey = this.#prefix + key;
      const alreadyStored = await this.#exists(objectKey);
      try {
        // PUT even when it exists: the same bytes, and a fresh LastModified, so the collector's
        // grace period covers the bundle this upload is about to make.
        await this.#put(objectKey, staged.path, digest.sizeBytes, digest.sha256);
      } catch (error) {
        // A PUT is all or nothing, but after a lost connection or a 5xx we cannot know which.
        const status = error instanceof S3StoreError ? error.status : undefined;
        if (!alreadyStored && (status === undefined || status >= 500)) await this.remove(key).catch(() => {});
        throw error;
      }
      return { key, ...digest, alreadyStored };
    } finally {
      await staged.discard();
    }
  }

  async open(key: string): Promise<{ stream: Readable; sizeBytes: number } | undefined> {
    if (!isArchiveKey(key)) return undefined;
    const response = await this.#request('GET', this.#prefix + key);
    if (response.status === 404) {
      await response.body?.cancel();
      return undefined;
    }
    await this.#expect(response, 'GET', this.#prefix + key, [200]);
    const length = Number(response.headers.get('content-length'));
    if (!response.body || !Number.isSafeInteger(length)) {
      await response.body?.cancel();
      throw new S3StoreError(
        `S3 GET ${this.#describe(this.#prefix + key)} answered without a Content-Length`,
      );
    }
    return { stream: Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), sizeBytes: length };
  }

  async remove(key: string): Promise<void> {
    if (!isArchiveKey(key)) throw new Error(`not a valid archive key: ${key}`);
    const response = await this.#request('DELETE', this.#prefix + key);
    await this.#expect(response, 'DELETE', this.#prefix + key, [200, 204, 404]);
  }

  /** ListObjectsV2, page by page (s3:ListBucket on the prefix). */
  async *list(namespace?: string): AsyncIterable<StoredKey> {
    const prefix = this.#prefix + (namespace ? `${namespace}/` : '');
    let continuation: string | undefined;
    do {
      const query = new URLSearchParams({ 'list-type': '2', prefix });
      if (continuation) query.set('continuation-token', continuation);
      const response = await this.#request('GET', '', undefined, query);
      await this.#expect(response, 'GET', `?${query.toString()}`, [200]);
      const xml = await response.text();
      for (const [, body] of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
        const objectKey = unescapeXml(/<Key>([^<]*)<\/Key>/.exec(body!)?.[1] ?? '');
        const modified = /<LastModified>([^<]*)<\/LastModified>/.exec(body!)?.[1];
        const key = objectKey.slice(this.#prefix.length);
        if (objectKey.startsWith(this.#prefix) && isArchiveKey(key) && modified)
          yield { key, modifiedAt: new Date(modified) };
      }
      const truncated = /<IsTruncated>true<\/IsTruncated>/.test(xml);
      continuation = truncated
        ? unescapeXml(/<NextContinuationToken>([^<]*)</.exec(xml)?.[1] ?? '')
        : undefined;
    } while (continuation);
  }

  /** Deletes staged uploads older than `maxAgeMs`, left by a gateway that was killed mid-upload. */
  removeStaleTemporaryFiles(now: Date, maxAgeMs: number): Promise<number> {
    return removeStaleTemporaryFiles(this.stagingDir, now, maxAgeMs);
  }

  async #exists(objectKey: string): Promise<boolean> {
    const response = await this.#request('HEAD', objectKey);
    if (response.status === 404) {
      await response.body?.cancel();
      return false;
    }
    await this.#expect(response, 'HEAD', objectKey, [200]);
    return true;
  }

  async #put(objectKey: string, path: string, sizeBytes: number, sha256: string): Promise<void> {
    const body = createReadStream(path);
    let response: Response;
    try {
      response = await this.#request('PUT', objectKey, {
        body,
        payloadHash: sha256,
        headers: { 'content-length': String(sizeBytes), 'content-type': 'application/gzip' },
      });
    } finally {
      body.destroy();
    }
    await this.#expect(response, 'PUT', objectKey, [200]);
  }

  async #request(
    method: 'GET' | 'HEAD' | 'PUT' | 'DELETE',
    objectKey: string,
    upload?: { body: Readable; payloadHash: string; headers: Record<string, string> },
    query?: URLSearchParams,
  ): Promise<Response> {
    const url = new URL(`${this.#endpoint}/${encodePath(this.#bucket)}/${encodePath(objectKey)}`);
    if (query) url.search = query.toString();
    const payloadHash = upload?.payloadHash ?? EMPTY_PAYLOAD_SHA256;
    let headers: Record<string, string>;
    try {
      headers = await this.#signer.sign(
        { method, url, headers: { ...upload?.headers, 'x-amz-content-sha256': payloadHash } },
        this.#now(),
      );
    } catch (error) {
      throw new S3StoreError(
        `S3 ${method} ${this.#describe(objectKey)} failed: cannot sign the request with AWS credentials (${(error as Error).message})`,
        undefined,
        undefined,
        { cause: error },
      );
    }
    try {
      return await fetch(url, {
        method,
        headers,
        body: upload?.body,
        duplex: upload ? 'half' : undefined,
        redirect: 'manual',
      });
    } catch (error) {
      throw new S3StoreError(
        `S3 ${method} ${this.#describe(objectKey)} failed: cannot reach ${this.#endpoint} (${networkReason(error)})`,
        undefined,
        undefined,
        { cause: error },
      );
    }
  }

  /** Throws S3StoreError, with the service's code and message, unless the status is one of `ok`. */
  async #expect(response: Response, method: string, objectKey: string, ok: number[]): Promise<void> {
    if (ok.includes(response.status)) {
      if (method !== 'GET') await response.body?.cancel();
      return;
    }
    const { code, message } = parseError(await readBounded(response));
    const detail = code
      ? `${code}: ${message ?? ''}`.trim()
      : method === 'HEAD'
        ? 'no details in a HEAD response'
        : 'no error details';
    const hint =
      response.status === 403 || (code !== undefined && CREDENTIAL_CODES.has(code))
        ? '; check the credentials (access key id, secret access key, session token or role) and their permissions on the bucket'
        : '';
    throw new S3StoreError(
      `S3 ${method} ${this.#describe(objectKey)} failed: ${response.status} ${detail}${hint}`,
      response.status,
      code,
    );
  }

  #describe(objectKey: string): string {
    return `${this.#endpoint}/${this.#bucket}/${objectKey}`;
  }
}

const EMPTY_PAYLOAD_SHA256 = createHash('sha256').update('').digest('hex');

/** RFC 3986 percent-encoding: everything but `A-Za-z0-9-._~` (encodeURIComponent spares `!'()*` too). */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** An object path as sent and signed: each segment encoded, slashes kept. */
export function encodePath(path: string): string {
  return path.split('/').map(uriEncode).join('/');
}

/** fetch's own message is "fetch failed"; the reason (ECONNREFUSED, a TLS error, ...) is its cause. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { message?: unknown; code?: unknown } } | null)?.cause;
  const message = typeof cause?.message === 'string' && cause.message ? cause.message : undefined;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  return message ?? code ?? String((error as Error | null)?.message ?? error);
}

async function readBounded(response: Response): Promise<string> {
  if (!response.body) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    chunks.push(Buffer.from(chunk as Uint8Array));
    size += (chunk as Uint8Array).length;
    if (size >= MAX_ERROR_BODY_BYTES) break;
  }
  return Buffer.concat(chunks).subarray(0, MAX_ERROR_BODY_BYTES).toString('utf8');
}

/** The Code and Message of an S3 XML error body. */
function parseError(xml: string): { code: string | undefined; message: string | undefined } {
  const field = (name: string) => {
    const match = new RegExp(`<${name}>([^<]{0,1000})</${name}>`).exec(xml);
    return match ? unescapeXml(match[1]!) : undefined;
  };
  return { code: field('Code'), message: field('Message') };
}

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}
