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
import {
  S3_ACCESS_KEY_ID,
  S3_BUCKET,
  S3_SECRET_ACCESS_KEY,
  S3_SESSION_TOKEN,
  S3_TEMPORARY_SECRET_ACCESS_KEY,
  startS3,
  type S3Fixture,
} from './support/s3.ts';
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

  it('stores a valid upload as one object under {prefix}{key}, byte for byte; the same upload again is alreadyStored (and renewed)', async () => {
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
    // Written again: the same bytes, with a fresh time for the collector's grace period.
    expect(requestsSince(again)).toEqual(['HEAD 200', 'PUT 200']);
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
        '403 no details in a HEAD response; check the credentials (access key id, secret access key, session token or role) and their permissions on the bucket',
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

  it('temporary credentials sign with their session token, and only with it', async () => {
    const temporary = {
      stagingDir,
      prefix,
      secretAccessKey: S3_TEMPORARY_SECRET_ACCESS_KEY,
      sessionToken: S3_SESSION_TOKEN,
    };
    const archive = await tarGz(baseDirectory());
    const stored = await s3.store(temporary).receive(Readable.from([archive]), target, archiveLimits());
    expect([...(await objects()).keys()]).toEqual([`${prefix}${stored.key}`]);
    const download = await s3.store(temporary).open(stored.key);
    expect(download?.sizeBytes).toBe(stored.sizeBytes);
    download?.stream.destroy();

    const { sessionToken: _token, ...withoutToken } = temporary;
    await expect(s3.store(withoutToken).open(stored.key)).rejects.toThrow('403 SignatureDoesNotMatch');
    await expect(s3.store({ ...temporary, sessionToken: 'expired-token' }).open(stored.key)).rejects.toThrow(
      '400 InvalidToken',
    );
  });

  it('without static keys, takes credentials from the AWS chain: a Pod Identity endpoint', async () => {
    // EKS Pod Identity (and ECS) hand out temporary credentials from an HTTP endpoint named in
    // AWS_CONTAINER_CREDENTIALS_FULL_URI, asked with the token in AWS_CONTAINER_AUTHORIZATION_TOKEN.
    const agentToken = 'pod-identity-agent-token';
    const asked: Array<string | undefined> = [];
    const agent = createServer((req, res) => {
      asked.push(req.headers.authorization);
      if (req.headers.authorization !== agentToken) {
        res.writeHead(403).end();
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          AccessKeyId: S3_ACCESS_KEY_ID,
          SecretAccessKey: S3_TEMPORARY_SECRET_ACCESS_KEY,
          Token: S3_SESSION_TOKEN,
          Expiration: new Date(Date.now() + 3_600_000).toISOString(),
        }),
      );
    });
    await new Promise<void>((resolve) => agent.listen(0, '127.0.0.1', resolve));
    const saved = { ...process.env };
    for (const name of Object.keys(process.env)) if (name.startsWith('AWS_')) delete process.env[name];
    Object.assign(process.env, {
      AWS_CONTAINER_CREDENTIALS_FULL_URI: `http://127.0.0.1:${(agent.address() as AddressInfo).port}/v1/credentials`,
      AWS_CONTAINER_AUTHORIZATION_TOKEN: agentToken,
      // Nothing from this machine's own AWS set-up, if it has one.
      AWS_CONFIG_FILE: join(stagingDir, 'no-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(stagingDir, 'no-aws-credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    try {
      const chained = s3.store({ stagingDir, prefix, accessKeyId: undefined, secretAccessKey: undefined });
      const archive = await tarGz(baseDirectory());
      const stored = await chained.receive(Readable.from([archive]), target, archiveLimits());
      expect([...(await objects()).keys()]).toEqual([`${prefix}${stored.key}`]);
      await chained.remove(stored.key);
      expect(await objects()).toEqual(new Map());
      // Asked once and cached, not once per request.
      expect(asked).toEqual([agentToken]);
    } finally {
      process.env = saved;
      agent.close();
    }
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
        'SLIPWAY_S3_BUCKET is required when SLIPWAY_ARCHIVE_STORE=s3: the bucket that holds the archives',
    );
  });

  it('takes static keys with a session token, or neither (the AWS credential chain), never one key alone', () => {
    const { SLIPWAY_S3_ACCESS_KEY_ID: _id, SLIPWAY_S3_SECRET_ACCESS_KEY: _secret, ...keyless } = s3Env;
    const chain = loadArchiveStoreConfig(keyless);
    expect(chain).not.toHaveProperty('accessKeyId');
    expect(createArchiveStore(chain)).toBeInstanceOf(S3ArchiveStore);
    expect(loadArchiveStoreConfig({ ...s3Env, SLIPWAY_S3_SESSION_TOKEN: 'token' })).toMatchObject({
      accessKeyId: 'gateway',
      sessionToken: 'token',
    });
    expect(() =>
      loadArchiveStoreConfig({ ...keyless, SLIPWAY_S3_SECRET_ACCESS_KEY: 'very-secret-value' }),
    ).toThrow('SLIPWAY_S3_ACCESS_KEY_ID and SLIPWAY_S3_SECRET_ACCESS_KEY go together');
    expect(() => loadArchiveStoreConfig({ ...keyless, SLIPWAY_S3_SESSION_TOKEN: 'token' })).toThrow(
      'SLIPWAY_S3_SESSION_TOKEN needs SLIPWAY_S3_ACCESS_KEY_ID and SLIPWAY_S3_SECRET_ACCESS_KEY',
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
