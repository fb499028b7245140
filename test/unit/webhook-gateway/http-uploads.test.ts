import { readdir } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { signArchiveUrl } from '../../../rules/archive-url.ts';
import { TEST_SECRET } from './support/fixtures.ts';
import { bundleStatusUrl } from '../../../rules/bundle-status-url.ts';
import { SIGNING_KEY, multipart, send, startGateway, type Harness } from './support/gateway.ts';
import { NAMESPACE, PROJECT, spec, webhook } from '../../support/builders.ts';
import { startS3, type S3Fixture } from './support/s3.ts';
import { CANONICAL_BASE_NAMES, baseDirectory, readTarGz, sha256, tarGz } from './support/tarballs.ts';

let gateway: Harness;

const fields = { commit: '0123abc', branch: 'feature/login', comment: 'Add the login form' };

async function upload(
  archive: Buffer,
  options: { fields?: Record<string, string>; secret?: string; slug?: string; expectContinue?: boolean } = {},
) {
  const form = multipart(options.fields ?? fields, { content: archive });
  return send(gateway.baseUrl, `/uploads/${options.slug ?? PROJECT}`, {
    headers: { 'content-type': form.contentType, authorization: `Bearer ${options.secret ?? TEST_SECRET}` },
    body: form.body,
    expectContinue: options.expectContinue,
  });
}

// Once per archive store: the filesystem store, and the S3 store on a real S3-compatible server.
const STORES = ['filesystem', 's3'] as const;
describe.each(STORES)('POST /uploads/{slug} with the %s archive store', (storeType) => {
  let s3: S3Fixture | undefined;
  beforeAll(async () => {
    if (storeType === 's3') s3 = await startS3();
  });
  afterAll(async () => {
    await s3?.close();
  });
  beforeEach(async () => {
    gateway = await startGateway({ archiveLimits: { maxArchiveBytes: 256 * 1024 } }, { s3 });
  });
  afterEach(async () => {
    await gateway.close();
  });

  it('stores the archive and creates a bundle per matching webhook; the build can download it with a signed URL', async () => {
    const archive = await tarGz(baseDirectory());
    const reply = await upload(archive, { expectContinue: true });
    expect(reply.continued).toBe(true);
    expect(reply.status).toBe(201);
    const [bundle] = [...gateway.bundles.values()];
    expect(reply.json).toEqual({
      result: 'created',
      bundles: [
        {
          name: bundle!.metadata.name,
          namespace: NAMESPACE,
          webhook: 'previews',
          environment: 'preview',
          statusUrl: bundleStatusUrl(gateway.baseUrl, SIGNING_KEY, {
            namespace: NAMESPACE,
            name: bundle!.metadata.name,
            uid: `uid-${bundle!.metadata.name}`,
          }),
        },
      ],
    });
    // The bundle names the canonical re-write the gateway stored: its address, sha256 and size.
    const { sha256: canonicalSha256, sizeBytes } = bundle!.spec.source.archive!;
    const key = `${NAMESPACE}/${PROJECT}/${canonicalSha256}.tar.gz`;
    expect(bundle!.spec).toMatchObject({
      source: {
        archive: {
          url: `${gateway.baseUrl}/archives/${key}`,
          commit: '0123abc',
          branch: 'feature/login',
        },
      },
      comment: 'Add the login form',
      trigger: { type: 'Upload', webhookRef: { name: 'previews' } },
      deploy: { environmentRef: { name: 'preview' }, backupBeforeDeploy: false },
    });
    expect(await gateway.storedFiles()).toEqual([key]);
    // With S3 the archive is an object in the bucket; the staging directory is empty again.
    if (s3) expect(await readdir(gateway.storeDir)).toEqual([]);

    const signed = new URL(
      signArchiveUrl(
        bundle!.spec.source.archive!.url,
        SIGNING_KEY,
        new Date(gateway.state.now.getTime() + 60_000),
      ),
    );
    const download = await send(gateway.baseUrl, signed.pathname + signed.search, { method: 'GET' });
    expect(download.status).toBe(200);
    expect(download.headers['content-type']).toBe('application/gzip');
    expect(sha256(download.body)).toBe(canonicalSha256);
    expect(download.body.length).toBe(sizeBytes);
    expect((await readTarGz(download.body)).map((e) => e.name)).toEqual(CANONICAL_BASE_NAMES);
    const unsigned = await send(gateway.baseUrl, `/archives/${key}`, { method: 'GET' });
    expect(unsigned.status).toBe(403);

    const again = await upload(archive);
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ result: 'duplicate' });
    expect(await gateway.storedFiles()).toEqual([key]);
  });

  it('builds once without a deployment when no webhook matches the branch', async () => {
    const reply = await upload(await tarGz(baseDirectory()), { fields: { ...fields, branch: 'develop' } });
    expect(reply.status).toBe(201);
    expect(reply.json).toMatchObject({ bundles: [{ webhook: null, environment: null }] });
    expect([...gateway.bundles.values()][0]!.spec.deploy).toBeUndefined();
  });

  it('401 for a wrong or missing bearer secret, refused before the body is sent', async () => {
    const wrong = await upload(await tarGz(baseDirectory()), { secret: 'wrong', expectContinue: true });
    expect(wrong.status).toBe(401);
    expect(wrong.continued).toBe(false);
    expect(wrong.headers['www-authenticate']).toBe('Bearer realm="slipway"');
    const form = multipart(fields, { content: await tarGz(baseDirectory()) });
    const missing = await send(gateway.baseUrl, `/uploads/${PROJECT}`, {
      headers: { 'content-type': form.contentType },
      body: form.body,
    });
    expect(missing.status).toBe(401);
    expect(await gateway.storedFiles()).toEqual([]);
    expect(gateway.bundles.size).toBe(0);
  });

  it('an unknown project and a wrong secret get the same 401; 415 for a body that is not multipart', async () => {
    const archive = await tarGz(baseDirectory());
    const unknown = await upload(archive, { slug: 'nope' });
    const wrongSecret = await upload(archive, { secret: 'not-the-secret' });
    expect(unknown.status).toBe(401);
    expect(unknown.json).toEqual({
      error: { code: 'unauthenticated', message: 'the request could not be authenticated' },
    });
    expect(wrongSecret.status).toBe(unknown.status);
    expect(wrongSecret.json).toEqual(unknown.json);
    expect(wrongSecret.headers['www-authenticate']).toBe(unknown.headers['www-authenticate']);
    // Even with the wrong media type: the answer comes before anything that needs the project.
    const unknownJson = await send(gateway.baseUrl, '/uploads/nope', {
      headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
      body: '{}',
    });
    const wrongJson = await send(gateway.baseUrl, `/uploads/${PROJECT}`, {
      headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
      body: '{}',
    });
    expect([unknownJson.status, wrongJson.status]).toEqual([401, 401]);
    const json = await send(gateway.baseUrl, `/uploads/${PROJECT}`, {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_SECRET}` },
      body: '{}',
    });
    expect(json.status).toBe(415);
  });

  it('422 for a hostile archive, naming the entry; no file and no bundle left', async () => {
    const reply = await upload(await tarGz([...baseDirectory(), { name: '../../etc/cron.d/evil' }]));
    expect(reply.status).toBe(422);
    expect(reply.json).toEqual({
      error: { code: 'unsafe_path', message: "entry '../../etc/cron.d/evil' contains '..'" },
    });
    expect(await gateway.storedFiles()).toEqual([]);
    expect(gateway.bundles.size).toBe(0);
  });

  it('413 for an archive over the limit, declared or streamed; nothing left', async () => {
    const { randomBytes } = await import('node:crypto');
    const big = await tarGz([{ name: 'noise', content: randomBytes(300 * 1024) }]);
    const declared = await upload(Buffer.concat([big, big]), { expectContinue: true });
    expect(declared.status).toBe(413);
    expect(declared.continued).toBe(false);

    const streamed = await upload(big);
    expect(streamed.status).toBe(413);
    expect(streamed.json).toMatchObject({ error: { code: 'archive_too_large' } });
    expect(await gateway.storedFiles()).toEqual([]);
    expect(gateway.bundles.size).toBe(0);
  });

  it('400 for missing fields or a missing archive; nothing left', async () => {
    const noBranch = await upload(await tarGz(baseDirectory()), { fields: { commit: 'abc' } });
    expect(noBranch.status).toBe(400);
    expect(noBranch.json).toEqual({
      error: { code: 'missing_field', message: 'the field branch is required' },
    });

    const form = multipart(fields);
    const noArchive = await send(gateway.baseUrl, `/uploads/${PROJECT}`, {
      headers: { 'content-type': form.contentType, authorization: `Bearer ${TEST_SECRET}` },
      body: form.body,
    });
    expect(noArchive.status).toBe(400);
    expect(noArchive.json).toMatchObject({ error: { code: 'missing_archive' } });
    expect(await gateway.storedFiles()).toEqual([]);
  });

  it('422 without a manual bundle, before the archive is sent, and nothing is stored', async () => {
    gateway.projects.get(PROJECT)!.latestManualBundle = undefined;
    const reply = await upload(await tarGz(baseDirectory()), { expectContinue: true });
    expect(reply.status).toBe(422);
    expect(reply.continued).toBe(false);
    expect(reply.json).toMatchObject({ error: { code: 'no_manual_bundle' } });
    expect(await gateway.storedFiles()).toEqual([]);
  });

  it('503 when only some bundles could be created: the archive they refer to stays, and a retry makes the rest', async () => {
    const project = gateway.projects.get(PROJECT)!;
    project.webhooks = [
      ...project.webhooks,
      webhook(
        'previews-2',
        spec({ branch: 'feature/', matchMode: 'StartsWith', environmentRef: { name: 'preview-2' } }),
      ),
    ];
    gateway.state.failCreateAfter = 1;
    const archive = await tarGz(baseDirectory());
    const first = await upload(archive);
    expect(first.status).toBe(503);
    expect(gateway.bundles.size).toBe(1);
    const [made] = [...gateway.bundles.values()];
    const stored = await gateway.storedFiles();
    expect(stored).toEqual([made!.spec.source.archive!.url.split('/archives/')[1]]);
    const retry = await upload(archive);
    expect(retry.status).toBe(201);
    expect(gateway.bundles.size).toBe(2);
    expect(await gateway.storedFiles()).toEqual(stored);
  });

  it('503 when the bundles cannot be written, and the archive is removed again', async () => {
    gateway.state.failCreate = true;
    expect((await upload(await tarGz(baseDirectory()))).status).toBe(503);
    expect(await gateway.storedFiles()).toEqual([]);
  });

  it('an upload the client breaks off leaves no file and no bundle', async () => {
    const form = multipart(fields, {
      content: await tarGz([{ name: 'noise', content: Buffer.alloc(100_000, 7) }]),
    });
    const req = httpRequest(`${gateway.baseUrl}/uploads/${PROJECT}`, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': form.contentType,
        'content-length': String(form.body.length),
        authorization: `Bearer ${TEST_SECRET}`,
      },
    });
    req.on('error', () => {});
    req.write(form.body.subarray(0, form.body.length - 200));
    // Break off once the gateway has started storing the archive.
    const started = async () => {
      for (;;) {
        if ((await readdir(gateway.storeDir).catch(() => [])).length > 0) return;
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await started();
    req.destroy();
    const observation = await gateway.observed((o) => o.route === '/uploads/:slug');
    expect(observation).toMatchObject({ status: 499, result: 'abandoned' });
    expect(await gateway.storedFiles()).toEqual([]);
    expect(gateway.bundles.size).toBe(0);
  });
});
