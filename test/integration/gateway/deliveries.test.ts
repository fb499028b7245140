// End to end on a real API server: the operator publishes the webhook URL and secret, real
// provider deliveries (re-signed for that secret) reach the gateway on a real port, Bundles
// appear with what the push said, and the real upload.sh uploads a real cluster with curl.
import { execFile } from 'node:child_process';
import { DEFAULT_BUILD_NAMESPACE } from '../../../rules/build-namespace.ts';
import { createHash } from 'node:crypto';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BundleObject } from '../../../crds/index.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import { logger } from '../../../lib/log.ts';
import { bundleWriter, ClusterAdapter } from '../../../webhook-gateway/cluster-adapter.ts';
import { PartialCreationError } from '../../../webhook-gateway/index.ts';
import { FilesystemArchiveStore } from '../../../webhook-gateway/index.ts';
import { publishedWebhook, startGatewayAndOperator, type GatewayAndOperator } from './support.ts';
import * as build from '../../support/builders.ts';
import {
  createNamespace,
  kubectl,
  kubectlPatch,
  testKubeConfig,
  waitFor,
  kubectlApply,
} from '../../support/cluster.ts';
import { loadFixture, signedFixture } from '../../unit/webhook-gateway/support/fixtures.ts';
import { LABEL_PROJECT, labelValue } from '../../../crds/labels.ts';
import { archiveKeyFromPath } from '../../../rules/archive-url.ts';
import { collectOrphanArchives } from '../../../webhook-gateway/archive/collector.ts';

const run = promisify(execFile);
const kc = testKubeConfig();
const api = slipwayApi(kc);
const log = logger.child({ test: 'gateway' });
let ns: { name: string; remove: () => Promise<void> };
let slipway: GatewayAndOperator;
let cluster: ClusterAdapter;
let archiveDir: string;
let baseUrl: string;
let hookUrl: string;
let bareUrl: string;
let secret: string;

const apply = (...objects: unknown[]) => kubectlApply(objects);

async function deliver(fixture: string, secretForSignature = secret, url = hookUrl) {
  const { headers, body } = signedFixture(fixture, secretForSignature);
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const bundlesOf = async (labelSelector = '') =>
  (await api.list<BundleObject>('Bundle', ns.name, labelSelector)).filter(
    (b) => b.spec.trigger.type !== 'Manual',
  );

beforeAll(async () => {
  ns = await createNamespace(kc, 'gateway');
  slipway = await startGatewayAndOperator(kc, ns.name, log);
  ({ baseUrl, archiveDir, cluster } = slipway);

  const slug = `shop-${ns.name.slice(-6)}`;
  await apply(
    build.project(
      'shop',
      build.inNamespace(ns.name),
      build.spec({ slug, repository: { url: 'https://git.example.com/acme/shop.git' } }),
    ),
    build.environment('staging', build.inNamespace(ns.name)),
    build.webhook(
      'master-to-staging',
      build.inNamespace(ns.name),
      build.spec({ branch: 'master', environmentRef: { name: 'staging' } }),
    ),
    build.webhook(
      'features',
      build.inNamespace(ns.name),
      build.spec({ branch: 'feature/', matchMode: 'StartsWith' }),
    ),
  );
  const published = await publishedWebhook(kc, ns.name, 'shop');
  ({ url: hookUrl, secret } = published);
  bareUrl = published.project.status!.webhook!.url;
});

afterAll(async () => {
  await slipway?.stop();
  await ns?.remove();
});

describe('provider deliveries', () => {
  it('refuses a push before the project has a manual bundle, saying so', async () => {
    const { status, body } = await deliver('github-push');
    expect(status).toBe(422);
    expect(JSON.stringify(body)).toMatch(/manual bundle/i);
    expect(await bundlesOf()).toHaveLength(0);
  });

  it('turns a GitHub push into one Bundle per matching webhook, copying the manual build settings', async () => {
    await apply(build.bundle('shop-manual-1', build.inNamespace(ns.name)));
    const { status, body } = await waitFor('the manual bundle to be seen', async () => {
      const r = await deliver('github-push');
      return r.status === 422 ? undefined : r;
    });
    expect(status).toBe(201);
    expect(body.result).toBe('created');
    const bundles = await bundlesOf();
    expect(bundles).toHaveLength(1); // "master" matches Exact master, not StartsWith feature/
    const [bundle] = bundles;
    expect(bundle!.spec).toMatchObject({
      source: { git: { commit: 'fd489864e7642b48eaad6e3f155c10e46810ec72', branch: 'master' } },
      baseSoftware: { image: 'php:8.3-fpm' },
      directoryMap: { web: 'web', config: 'config', templates: 'templates' },
      trigger: { type: 'Webhook', provider: 'github', webhookRef: { name: 'master-to-staging' } },
      deploy: { environmentRef: { name: 'staging' }, backupBeforeDeploy: false },
    });
  });

  it('answers a redelivery with duplicate and creates nothing', async () => {
    const before = (await bundlesOf()).length;
    const { status, body } = await deliver('github-push');
    expect(status).toBe(200);
    expect(body.result).toBe('duplicate');
    expect(await bundlesOf()).toHaveLength(before);
  });

  it("binds a bundle's status URL to the bundle: one made again under the same name does not open to the old URL", async () => {
    const first = await waitFor('the push bundle', async () => {
      const r = await deliver('github-push');
      return r.status < 300 ? r : undefined;
    });
    const { name, statusUrl } = (first.body.bundles as Array<{ name: string; statusUrl: string }>)[0]!;
    const shown = await waitFor('the gateway to serve its status', async () => {
      const res = await fetch(statusUrl);
      return res.status === 200 ? ((await res.json()) as { name: string }) : undefined;
    });
    expect(shown.name).toBe(name);
    // The bundle goes, and the same push makes it again: the same name, another uid.
    await api.delete('Bundle', ns.name, name);
    const again = await waitFor('the bundle made again', async () => {
      const r = await deliver('github-push');
      return r.status === 201 ? r : undefined;
    });
    const [remade] = again.body.bundles as Array<{ name: string; statusUrl: string }>;
    expect(remade!.name).toBe(name);
    expect(remade!.statusUrl).not.toBe(statusUrl);
    await waitFor('the new URL to answer', async () =>
      (await fetch(remade!.statusUrl)).status === 200 ? true : undefined,
    );
    expect((await fetch(statusUrl)).status).toBe(404);
  });

  it('rejects a wrong signature with 401 and creates nothing', async () => {
    const before = (await bundlesOf()).length;
    const { status, body } = await deliver('gitlab-push', 'not-the-secret');
    expect(status).toBe(401);
    expect(JSON.stringify(body)).not.toContain(secret);
    expect(await bundlesOf()).toHaveLength(before);
  });

  it.each([
    ['gitlab-push', 201, 'created', 'gitlab'],
    ['azure-devops-git-push', 201, 'created', 'azure-devops'],
    // Its branch, name-of-branch, matches no webhook of the project.
    ['bitbucket-repo-push', 202, 'ignored', undefined],
  ])('answers %s with %i %s', async (fixture, code, result, provider) => {
    const { status, body } = await deliver(fixture);
    expect(status).toBe(code);
    expect(body.result).toBe(result);
    if (provider) {
      const made = await bundlesOf();
      expect(made.some((b) => b.spec.trigger.provider === provider)).toBe(true);
    }
  });

  it("takes a signed push on the Project's status.webhook.url as pasted, and refuses a wrong signature there", async () => {
    expect(bareUrl).toMatch(/\/hooks\/shop-[0-9a-f]{6}$/);
    // Its bundle exists already (the test above): taken, and found made.
    const { status, body } = await deliver('gitlab-push', secret, bareUrl);
    expect(status).toBe(200);
    expect(body.result).toBe('duplicate');
    expect((await deliver('github-push', 'not-the-secret', bareUrl)).status).toBe(401);
  });

  it('ignores a ping and a branch deletion with 202 and a reason', async () => {
    for (const fixture of ['github-ping', 'github-push-branch-deleted']) {
      const { status, body } = await deliver(fixture);
      expect(status).toBe(202);
      expect(body).toMatchObject({ result: 'ignored', reason: expect.any(String) });
    }
  });
});

describe('upload script', () => {
  it('uploads a real cluster with curl and creates an archive bundle', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'craft-'));
    mkdirSync(join(dir, 'web'));
    mkdirSync(join(dir, 'config'));
    writeFileSync(join(dir, 'web', 'index.php'), '<?php echo "hello";\n');
    writeFileSync(join(dir, 'config', 'general.php'), '<?php return [];\n');
    const script = await (await fetch(`${baseUrl}/upload.sh`)).text();
    const scriptFile = join(dir, '..', `upload-${ns.name}.sh`);
    writeFileSync(scriptFile, script);
    const slug = `shop-${ns.name.slice(-6)}`;
    // As CI runs it: it waits for the bundle (a build only: no webhook deploys feature/ here).
    const { stdout } = await run(
      'sh',
      [scriptFile, slug, secret, 'c0ffee1234', dir, 'Deploy from CI', 'feature/upload'],
      { env: { ...process.env, SLIPWAY_WAIT_INTERVAL: '1' } },
    );
    expect(stdout).toMatch(/^bundle (\S+) created \(webhook features, no deployment\)$/m);
    expect(stdout).toMatch(/^bundle \S+: Built \(Succeeded\): built image \S+$/m);
    const uploads = (await bundlesOf()).filter((b) => b.spec.trigger.type === 'Upload');
    expect(uploads.length).toBeGreaterThan(0);
    expect(uploads[0]!.spec.source.archive).toMatchObject({ commit: 'c0ffee1234', branch: 'feature/upload' });
    expect(uploads[0]!.spec.comment).toBe('Deploy from CI');

    // The build Job downloads the archive from the gateway at a signed URL; the unsigned one is refused.
    const archive = uploads[0]!.spec.source.archive!;
    expect((await fetch(archive.url)).status).toBe(403);
    const job = await waitFor(
      'the build Job',
      async () => {
        // In the build namespace, labelled with the bundle's namespace (docs/adr/0004).
        const { stdout: out } = await kubectl([
          'get',
          'jobs',
          '-n',
          DEFAULT_BUILD_NAMESPACE,
          '-l',
          `slipway.dev/bundle-namespace=${ns.name}`,
          '-o',
          'json',
        ]);
        const jobs = JSON.parse(out).items as Array<{
          spec: {
            template: { spec: { initContainers?: Array<{ env?: Array<{ name: string; value?: string }> }> } };
          };
        }>;
        return jobs
          .flatMap((j) => j.spec.template.spec.initContainers ?? [])
          .flatMap((c) => c.env ?? [])
          .find((e) => e.name === 'ARCHIVE_URL' && e.value?.includes('signature='));
      },
      90_000,
    );
    const download = await fetch(job.value!);
    expect(download.status).toBe(200);
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes.length).toBe(archive.sizeBytes);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(archive.sha256);
    rmSync(dir, { recursive: true, force: true });
    rmSync(scriptFile, { force: true });
  });
});

describe("the project's provider", () => {
  it('deletes an uploaded archive once no bundle refers to it', async () => {
    const store = new FilesystemArchiveStore(archiveDir);
    const uploads = (await bundlesOf()).filter((b) => b.spec.trigger.type === 'Upload');
    expect(uploads.length).toBeGreaterThan(0);
    const key = archiveKeyFromPath(new URL(uploads[0]!.spec.source.archive!.url).pathname)!;
    const stored = async () => {
      const keys: string[] = [];
      for await (const k of store.list(ns.name)) keys.push(k.key);
      return keys;
    };
    expect(await stored()).toContain(key);
    const collect = () =>
      collectOrphanArchives({
        store,
        referencedKeys: cluster.referencedArchiveKeys,
        namespace: ns.name,
        graceMs: 60 * 60_000,
        // As the gateway's periodic sweep would run it two hours from now.
        now: () => new Date(Date.now() + 2 * 60 * 60_000),
      });
    expect((await collect()).removed).toEqual([]);
    for (const b of uploads) await api.delete('Bundle', ns.name, b.metadata.name);
    await waitFor(
      'the gateway to see the bundles go',
      async () => !cluster.referencedArchiveKeys()?.has(key),
    );
    expect((await collect()).removed).toEqual([key]);
    expect(await stored()).not.toContain(key);
  });

  it('a Bitbucket project connected with the URL alone (no secret in its form) builds on push', async () => {
    const inNs = build.inNamespace(ns.name);
    await apply(
      build.project(
        'bb',
        inNs,
        build.spec({
          slug: `bb-${ns.name.slice(-6)}`,
          repository: { url: 'https://bitbucket.org/acme/bb.git' },
        }),
      ),
      build.webhook('bb-push', inNs, build.spec({ projectRef: { name: 'bb' }, branch: 'name-of-branch' })),
      build.bundle('bb-manual-1', inNs, build.spec({ projectRef: { name: 'bb' } })),
    );
    const { url } = await publishedWebhook(kc, ns.name, 'bb');
    // As Bitbucket sends it without a secret: no X-Hub-Signature at all.
    const { headers, body } = loadFixture('bitbucket-repo-push');
    delete headers['x-hub-signature'];
    delete headers['content-length'];
    const created = await waitFor('the gateway to take the unsigned delivery', async () => {
      const res = await fetch(url, { method: 'POST', headers, body });
      return res.status === 201 ? ((await res.json()) as { bundles: Array<{ name: string }> }) : undefined;
    });
    const made = await api.get<BundleObject>('Bundle', ns.name, created.bundles[0]!.name);
    expect(made.spec.trigger).toMatchObject({
      type: 'Webhook',
      provider: 'bitbucket',
      webhookRef: { name: 'bb-push' },
    });
    // With spec.requireSignature the same delivery is refused; signed, it is taken.
    await kubectlPatch('project', 'bb', ns.name, { spec: { requireSignature: true } });
    await waitFor('the gateway to require signatures', async () =>
      (await fetch(url, { method: 'POST', headers, body })).status === 401 ? true : undefined,
    );
  });

  it('a GitHub project refuses a Bitbucket-dressed delivery without a signature, and any other provider, with 401', async () => {
    await kubectlPatch('project', 'shop', ns.name, {
      spec: { repository: { url: 'https://github.com/acme/shop.git' } },
    });
    const bitbucket = signedFixture('bitbucket-repo-push', secret);
    const unsigned = Object.fromEntries(
      Object.entries(bitbucket.headers).filter(([name]) => name.toLowerCase() !== 'x-hub-signature'),
    );
    // The gateway sees the new repository URL through its informer.
    const refused = await waitFor('the gateway to bind the project to GitHub', async () => {
      const res = await fetch(hookUrl, { method: 'POST', headers: unsigned, body: bitbucket.body });
      return res.status === 401 ? ((await res.json()) as Record<string, unknown>) : undefined;
    });
    expect(refused).toEqual({
      error: { code: 'unauthenticated', message: 'the request could not be authenticated' },
    });
    expect((await deliver('gitlab-push')).status).toBe(401);
    expect((await deliver('github-push')).status).toBeLessThan(300);
  });
  it('delivers to a project with a 70-character name and a short slug (labels within 63 characters)', async () => {
    const name = `shop-${'x'.repeat(60)}-long`.slice(0, 70);
    expect(name).toHaveLength(70);
    const slug = `long-${ns.name.slice(-6)}`;
    await apply(
      build.project(
        name,
        build.inNamespace(ns.name),
        build.spec({ slug, repository: { url: 'https://git.example.com/acme/shop.git' } }),
      ),
      build.webhook(
        'long-master',
        build.inNamespace(ns.name),
        build.spec({ projectRef: { name }, branch: 'master' }),
      ),
      build.bundle('long-manual-1', build.inNamespace(ns.name), build.spec({ projectRef: { name } })),
    );
    const { url: longUrl, secret: longSecret } = await publishedWebhook(kc, ns.name, name);
    const { headers, body } = signedFixture('github-push', longSecret);
    const created = await waitFor('the long project to take a delivery', async () => {
      const res = await fetch(longUrl, { method: 'POST', headers, body });
      return res.status === 201 ? ((await res.json()) as Record<string, unknown>) : undefined;
    });
    expect(created.result).toBe('created');
    const bundles = await api.list<BundleObject>('Bundle', ns.name, `${LABEL_PROJECT}=${labelValue(name)}`);
    expect(bundles.map((b) => b.spec.trigger.webhookRef?.name)).toContain('long-master');
  });

  it('says which bundles were made when a later create fails, so nothing they refer to is removed', async () => {
    const made = build.bundle('partly-1', build.inNamespace(ns.name));
    // Refused by the API server (a manual bundle needs its build settings): the second create fails.
    const refused = build.bundle('partly-2', build.inNamespace(ns.name));
    delete (refused.spec as Record<string, unknown>).baseSoftware;
    const failure = await bundleWriter(api)([made, refused]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PartialCreationError);
    expect((failure as PartialCreationError).created).toEqual(['partly-1']);
    expect((await api.get<BundleObject>('Bundle', ns.name, 'partly-1')).metadata.name).toBe('partly-1');
  });
});

// After the archive collector's test: its upload stays referenced by its failed bundle.
describe('an upload to an environment that cannot take it', () => {
  it('ends upload.sh non-zero with the reason within the Environment’s waitTimeoutSeconds, printing it while it waits', async () => {
    const inNs = build.inNamespace(ns.name);
    await apply(
      build.environment(
        'nowhere',
        inNs,
        build.spec({ deploymentRef: { name: 'not-there' }, waitTimeoutSeconds: 10 }),
      ),
      build.webhook('ci-to-nowhere', inNs, build.spec({ branch: 'ci', environmentRef: { name: 'nowhere' } })),
    );
    const dir = mkdtempSync(join(tmpdir(), 'nowhere-'));
    mkdirSync(join(dir, 'web'));
    writeFileSync(join(dir, 'web', 'index.html'), 'hi\n');
    const scriptFile = join(dir, '..', `upload-nowhere-${ns.name}.sh`);
    writeFileSync(scriptFile, await (await fetch(`${baseUrl}/upload.sh`)).text());
    const slug = `shop-${ns.name.slice(-6)}`;
    const ended = await run('sh', [scriptFile, slug, secret, 'c0ffee5678', dir, 'To nowhere', 'ci'], {
      env: { ...process.env, SLIPWAY_WAIT_INTERVAL: '1' },
    }).then(
      () => ({ code: 0, stdout: '' }),
      (err: { code: number; stdout: string }) => err,
    );
    rmSync(dir, { recursive: true, force: true });
    expect(ended.code).toBe(3);
    // While it waited, it said what for; then why it gave up.
    expect(ended.stdout).toMatch(/: Built \(DeploymentNotFound\): Deployment not-there does not exist$/m);
    expect(ended.stdout).toMatch(
      /: Failed \(DeploymentNotFound\): Deployment not-there does not exist; gave up after waiting 10 s/m,
    );
  });
});
