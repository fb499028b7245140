// The S3 archive store: SigV4 against AWS's published examples, then the store against a real
// S3-compatible server (s3rver on 127.0.0.1 behind a signature-checking front, see support/s3.ts).
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import {
  ArchiveError,
  FilesystemArchiveStore,
  S3ArchiveStore,
  S3StoreError,
  archiveLimits,
  createArchiveStore,
  loadArchiveStoreConfig,
} from '../../../webhook-gateway/archive/index.ts';
import { EMPTY_PAYLOAD_SHA256, signRequest } from '../../../webhook-gateway/archive/sigv4.ts';
import { S3_BUCKET, S3_SECRET_ACCESS_KEY, startS3, type S3Fixture } from './support/s3.ts';
import {
  CANONICAL_BASE_NAMES,
  baseDirectory,
  canonicalSha256,
  readTarGz,
  tarGz,
  type TestEntry,
} from './support/tarballs.ts';

/** A port on 127.0.0.1 nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

describe('SigV4 signing reproduces AWS published signatures', () => {
  // AWS SigV4 test suite, "get-vanilla": GET / with only host and x-amz-date.
  const suite = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
  const suiteScope = { region: 'us-east-1', service: 'service' };
  const suiteNow = new Date('2015-08-30T12:36:00Z');

  it('get-vanilla', () => {
    const signed = signRequest(
      { method: 'GET', url: new URL('https://example.amazonaws.com/'), payloadHash: EMPTY_PAYLOAD_SHA256 },
      suite,
      suiteScope,
      suiteNow,
    );
    expect(signed.canonicalRequest).toBe(
      'GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n' +
        'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(signed.stringToSign).toBe(
      'AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n' +
        'bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63',
    );
    expect(signed.headers).toEqual({
      'x-amz-date': '20150830T123600Z',
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, ' +
        'SignedHeaders=host;x-amz-date, ' +
        'Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    });
  });

  it('get-vanilla-query-order-key-case: query parameters sorted by name', () => {
    const signed = signRequest(
      {
        method: 'GET',
        url: new URL('https://example.amazonaws.com/?Param2=value2&Param1=value1'),
        payloadHash: EMPTY_PAYLOAD_SHA256,
      },
      suite,
      suiteScope,
      suiteNow,
    );
    expect(signed.signature).toBe('b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500');
  });

  // The S3 developer guide's examples (AKIAIOSFODNN7EXAMPLE, 2013-05-24): S3's own header and path rules.
  const s3Example = {
    accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  };
  const s3Scope = { region: 'us-east-1', service: 's3' };
  const s3Now = new Date('2013-05-24T00:00:00Z');

  it('S3 GET Object: x-amz-content-sha256 and Range signed', () => {
    const signed = signRequest(
      {
        method: 'GET',
        url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
        headers: { Range: 'bytes=0-9', 'x-amz-content-sha256': EMPTY_PAYLOAD_SHA256 },
        payloadHash: EMPTY_PAYLOAD_SHA256,
      },
      s3Example,
      s3Scope,
      s3Now,
    );
    expect(signed.stringToSign.split('\n').at(-1)).toBe(
      '7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972',
    );
    expect(signed.headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  it('S3 PUT Object: the payload hash is signed and `$` is encoded once in the path', () => {
    const body = 'Welcome to Amazon S3.';
    expect(sha256(body)).toBe('44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072');
    const signed = signRequest(
      {
        method: 'PUT',
        url: new URL('https://examplebucket.s3.amazonaws.com/test$file.text'),
        headers: {
          Date: 'Fri, 24 May 2013 00:00:00 GMT',
          'x-amz-storage-class': 'REDUCED_REDUNDANCY',
          'x-amz-content-sha256': sha256(body),
        },
        payloadHash: sha256(body),
      },
      s3Example,
      s3Scope,
      s3Now,
    );
    expect(signed.canonicalRequest.split('\n').slice(0, 2)).toEqual(['PUT', '/test%24file.text']);
    expect(signed.signature).toBe('98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd');
  });
});

describe('S3 archive store against a real S3-compatible server', () => {
  const target = { namespace: 'team-web', project: 'shop' };
  let s3: S3Fixture;
  let stagingDir: string;
  let prefix: string;
  let store: S3ArchiveStore;

  beforeAll(async () => {
    s3 = await startS3();
  });
  afterAll(async () => {
    await s3.close();
  });
  beforeEach(async () => {
    stagingDir = await mkdtemp(join(tmpdir(), 'slipway-s3-staging-'));
    // Characters that need percent-encoding, so paths are signed as sent.
    prefix = `run ${randomUUID().slice(0, 8)}/$archives+1/`;
    store = s3.store({ stagingDir, prefix });
  });
  afterEach(async () => {
    await rm(stagingDir, { recursive: true, force: true });
  });

  const stagedFiles = () => readdir(stagingDir);
  const objects = () => s3.objects(prefix);
  const requestsSince = (count: number) => s3.requests.slice(count).map((r) => `${r.method} ${r.status}`);

  it('stores a valid upload as one object under {prefix}{key}, byte for byte; the same upload again is alreadyStored', async () => {
    const archive = await tarGz(baseDirectory());
    const before = s3.requests.length;
    const stored = await store.receive(Readable.from([archive]), target, archiveLimits());
    const key = `team-web/shop/${stored.sha256}.tar.gz`;
    expect(stored).toEqual({
      key,
      sha256: stored.sha256,
      sizeBytes: stored.sizeBytes,
      uploadedBytes: archive.length,
      entries: baseDirectory().length - 1,
      alreadyStored: false,
    });
    expect(requestsSince(before)).toEqual(['HEAD 404', 'PUT 200']);
    // Path-style, each character outside RFC 3986's unreserved set percent-encoded as signed.
    const wirePrefix = prefix.replace(' ', '%20').replace('$', '%24').replace('+', '%2B');
    expect(s3.requests[before]!.path).toBe(`/${S3_BUCKET}/${wirePrefix}${key}`);
    const inBucket = await objects();
    expect([...inBucket.keys()]).toEqual([prefix + key]);
    const object = inBucket.get(prefix + key)!;
    expect(sha256(object)).toBe(stored.sha256);
    expect(object.length).toBe(stored.sizeBytes);
    expect((await readTarGz(object)).map((e) => e.name)).toEqual(CANONICAL_BASE_NAMES);
    expect(await stagedFiles()).toEqual([]);

    const again = before + 2;
    expect(await store.receive(Readable.from([archive]), target, archiveLimits())).toEqual({
      ...stored,
      alreadyStored: true,
    });
    expect(requestsSince(again)).toEqual(['HEAD 200']);
    expect([...(await objects()).keys()]).toEqual([prefix + key]);
    expect(await stagedFiles()).toEqual([]);
  });

  it('open() streams the object back; undefined when there is none; remove() deletes it', async () => {
    const archive = await tarGz([
      ...baseDirectory(),
      { name: './big.bin', content: Buffer.alloc(300_000, 3) },
    ]);
    const {
      key,
      sizeBytes,
      sha256: stored,
    } = await store.receive(Readable.from([archive]), target, archiveLimits());

    const found = await store.open(key);
    expect(found?.sizeBytes).toBe(sizeBytes);
    const chunks: Buffer[] = [];
    for await (const chunk of found!.stream) chunks.push(chunk as Buffer);
    expect(sha256(Buffer.concat(chunks))).toBe(stored);

    await store.remove(key);
    expect(await objects()).toEqual(new Map());
    expect(await store.open(key)).toBeUndefined();
    expect(await store.open('../../etc/passwd')).toBeUndefined();
    await expect(store.remove('not/a/key')).rejects.toThrow('not a valid archive key');
    await store.remove(key); // already gone: not an error
  });

  const hostile: Array<[string, () => Promise<Buffer>, string]> = [
    ['a `..` entry', () => tarGz([...baseDirectory(), { name: '../../etc/cron.d/evil' }]), 'unsafe_path'],
    [
      'a symlink out of the tree',
      () => tarGz([...baseDirectory(), { name: './up', type: 'symlink', linkname: '../../..' }]),
      'unsafe_link',
    ],
    [
      'a device file',
      () => tarGz([...baseDirectory(), { name: './tty', type: 'character-device' } as TestEntry]),
      'unsupported_entry',
    ],
    ['truncated gzip', async () => (await tarGz(baseDirectory())).subarray(0, 60), 'invalid_gzip'],
  ];
  it.each(hostile)(
    '%s: refused with no request to the bucket, no object and no staged file',
    async (_, build, code) => {
      const before = s3.requests.length;
      const error = await store
        .receive(Readable.from([await build()]), target, archiveLimits())
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ArchiveError);
      expect((error as ArchiveError).code).toBe(code);
      expect(requestsSince(before)).toEqual([]);
      expect(await objects()).toEqual(new Map());
      expect(await stagedFiles()).toEqual([]);
    },
  );

  it('an archive over the size limit and an upload that breaks off leave nothing behind', async () => {
    const archive = await tarGz([...baseDirectory(), { name: './noise', content: Buffer.alloc(200_000, 1) }]);
    const tooBig = await store
      .receive(Readable.from([archive]), target, archiveLimits({ maxArchiveBytes: 100 }))
      .catch((e: unknown) => e);
    expect((tooBig as ArchiveError).code).toBe('archive_too_large');

    const brokenOff = new Readable({
      read() {
        this.push(archive.subarray(0, 100));
        this.destroy(new Error('client went away'));
      },
    });
    await expect(store.receive(brokenOff, target, archiveLimits())).rejects.toThrow('client went away');
    expect(await objects()).toEqual(new Map());
    expect(await stagedFiles()).toEqual([]);
  });

  it('a wrong secret key: a clear error naming the object and the credentials, and nothing stored', async () => {
    const wrong = s3.store({ stagingDir, prefix, secretAccessKey: 'not-the-secret' });
    const archive = await tarGz(baseDirectory());
    const error = await wrong
      .receive(Readable.from([archive]), target, archiveLimits())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(S3StoreError);
    expect((error as S3StoreError).status).toBe(403);
    expect((error as Error).message).toBe(
      `S3 HEAD ${s3.endpoint}/${S3_BUCKET}/${prefix}team-web/shop/${await canonicalSha256(archive)}.tar.gz failed: ` +
        '403 no details in a HEAD response; check the access key id, the secret access key and their permissions on the bucket',
    );
    expect(await objects()).toEqual(new Map());
    expect(await stagedFiles()).toEqual([]);

    // Requests with a body say why.
    const { key } = await store.receive(Readable.from([archive]), target, archiveLimits());
    const download = await wrong.open(key).catch((e: unknown) => e);
    expect(download).toBeInstanceOf(S3StoreError);
    expect((download as S3StoreError).code).toBe('SignatureDoesNotMatch');
    expect((download as Error).message).toContain(
      '403 SignatureDoesNotMatch: The request signature we calculated does not match',
    );
    expect((download as Error).message).not.toContain('not-the-secret');
    expect((download as Error).message).not.toContain(S3_SECRET_ACCESS_KEY);
    await expect(wrong.remove(key)).rejects.toThrow('403 SignatureDoesNotMatch');
  });

  it('an unknown access key id, a missing bucket and an unreachable endpoint are named too', async () => {
    const archive = await tarGz(baseDirectory());
    const unknownKey = s3.store({ stagingDir, prefix, accessKeyId: 'NOBODY' });
    await expect(unknownKey.open(`team-web/shop/${sha256(archive)}.tar.gz`)).rejects.toThrow(
      '403 InvalidAccessKeyId: The AWS Access Key Id you provided does not exist in our records.',
    );

    const noBucket = s3.store({ stagingDir, prefix, bucket: 'no-such-bucket' });
    await expect(noBucket.receive(Readable.from([archive]), target, archiveLimits())).rejects.toThrow(
      /failed: 404 NoSuchBucket: The specified bucket does not exist/,
    );

    const closed = await closedPort();
    const nowhere = s3.store({ stagingDir, prefix, endpoint: `http://127.0.0.1:${closed}` });
    await expect(nowhere.receive(Readable.from([archive]), target, archiveLimits())).rejects.toThrow(
      new RegExp(`^S3 HEAD .* failed: cannot reach http://127\\.0\\.0\\.1:${closed} \\(.*ECONNREFUSED`),
    );
    expect(await stagedFiles()).toEqual([]);
  });

  it('a PUT whose outcome is unknown (5xx) is deleted again, so no object is left without a bundle', async () => {
    const archive = await tarGz(baseDirectory());
    s3.failNextPutAfterStoring();
    const before = s3.requests.length;
    await expect(store.receive(Readable.from([archive]), target, archiveLimits())).rejects.toThrow(
      '500 InternalError',
    );
    expect(requestsSince(before)).toEqual(['HEAD 404', 'PUT 500', 'DELETE 204']);
    expect(await objects()).toEqual(new Map());
    expect(await stagedFiles()).toEqual([]);
  });

  it('removes staged files a killed gateway left behind, once they are old', async () => {
    const stale = join(stagingDir, '.incoming-left-over.tmp');
    await writeFile(stale, 'partial');
    const hourAgo = new Date(Date.now() - 60 * 60_000);
    await utimes(stale, hourAgo, hourAgo);
    expect(await store.removeStaleTemporaryFiles(new Date(), 2 * 60 * 60_000)).toBe(0);
    expect(await store.removeStaleTemporaryFiles(new Date(), 30 * 60_000)).toBe(1);
    expect(await stagedFiles()).toEqual([]);
  });
});

describe('archive store configuration', () => {
  const s3Env = {
    SLIPWAY_ARCHIVE_STORE: 's3',
    SLIPWAY_ARCHIVE_DIR: '/scratch',
    SLIPWAY_S3_ENDPOINT: 'http://minio.storage:9000',
    SLIPWAY_S3_BUCKET: 'archives',
    SLIPWAY_S3_ACCESS_KEY_ID: 'gateway',
    SLIPWAY_S3_SECRET_ACCESS_KEY: 'very-secret-value',
  };

  it('defaults to the filesystem store on SLIPWAY_ARCHIVE_DIR', () => {
    expect(loadArchiveStoreConfig({})).toEqual({ type: 'filesystem', dir: '/var/lib/slipway/archives' });
    const config = loadArchiveStoreConfig({
      SLIPWAY_ARCHIVE_STORE: 'filesystem',
      SLIPWAY_ARCHIVE_DIR: '/data',
    });
    expect(createArchiveStore(config)).toBeInstanceOf(FilesystemArchiveStore);
  });

  it('builds an S3 store, staging in SLIPWAY_ARCHIVE_DIR, region us-east-1 unless set', () => {
    const config = loadArchiveStoreConfig({ ...s3Env, SLIPWAY_S3_PREFIX: 'slipway/' });
    expect(config).toEqual({
      type: 's3',
      stagingDir: '/scratch',
      endpoint: 'http://minio.storage:9000',
      bucket: 'archives',
      region: 'us-east-1',
      prefix: 'slipway/',
      accessKeyId: 'gateway',
      secretAccessKey: 'very-secret-value',
    });
    const store = createArchiveStore(config);
    expect(store).toBeInstanceOf(S3ArchiveStore);
    expect((store as S3ArchiveStore).stagingDir).toBe('/scratch');
  });

  it('names every missing S3 setting when s3 is chosen', () => {
    expect(() => loadArchiveStoreConfig({ SLIPWAY_ARCHIVE_STORE: 's3', SLIPWAY_S3_BUCKET: '' })).toThrow(
      'invalid archive store configuration: ' +
        'SLIPWAY_S3_ENDPOINT is required when SLIPWAY_ARCHIVE_STORE=s3: the http(s) address of the S3-compatible service, e.g. https://s3.eu-west-1.amazonaws.com or http://minio.storage:9000; ' +
        'SLIPWAY_S3_BUCKET is required when SLIPWAY_ARCHIVE_STORE=s3: the bucket that holds the archives; ' +
        'SLIPWAY_S3_ACCESS_KEY_ID is required when SLIPWAY_ARCHIVE_STORE=s3: the access key id of a user that may read, write and delete in the bucket; ' +
        'SLIPWAY_S3_SECRET_ACCESS_KEY is required when SLIPWAY_ARCHIVE_STORE=s3: the secret access key that goes with SLIPWAY_S3_ACCESS_KEY_ID',
    );
  });

  it('refuses a bad store type, endpoint, bucket or prefix without echoing the secret', () => {
    expect(() => loadArchiveStoreConfig({ SLIPWAY_ARCHIVE_STORE: 'minio' })).toThrow(
      'SLIPWAY_ARCHIVE_STORE must be filesystem or s3',
    );
    const bad = () =>
      loadArchiveStoreConfig({
        ...s3Env,
        SLIPWAY_S3_ENDPOINT: 'minio.storage:9000',
        SLIPWAY_S3_BUCKET: 'archives/slipway',
        SLIPWAY_S3_PREFIX: '/slipway/../x',
      });
    expect(bad).toThrow('SLIPWAY_S3_ENDPOINT must be an http(s) URL');
    expect(bad).toThrow('SLIPWAY_S3_BUCKET must be a bucket name');
    expect(bad).toThrow("SLIPWAY_S3_PREFIX may not start with '/'");
    expect(bad).not.toThrow('very-secret-value');
  });
});
