import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import { createGatewayServer } from '../../../webhook-gateway/index.ts';
import { FilesystemArchiveStore } from '../../../webhook-gateway/archive/index.ts';
import { MAX_DELIVERY_BRANCH_CHANGES, MAX_HOOK_BODY_BYTES } from '../../../webhook-gateway/limits.ts';
import { TEST_SECRET, loadFixture, resign, signedFixture } from './support/fixtures.ts';
import { bundleStatusUrl } from '../../../rules/bundle-status-url.ts';
import { SIGNING_KEY, hookPath, send, startGateway, type Harness } from './support/gateway.ts';
import { NAMESPACE, PROJECT } from '../../support/builders.ts';

let gateway: Harness;
beforeEach(async () => {
  gateway = await startGateway();
});
afterEach(async () => {
  await gateway.close();
});

function deliver(name: string, path = hookPath(), extraHeaders: Record<string, string> = {}) {
  const delivery = signedFixture(name);
  return send(gateway.baseUrl, path, {
    headers: { ...delivery.headers, ...extraHeaders },
    body: delivery.body,
  });
}

describe('POST /hooks/{slug}/{token}', () => {
  it('a GitHub push creates the matching bundle: 201, then 200 duplicate on redelivery', async () => {
    const first = await deliver('github-push');
    expect(first.status).toBe(201);
    const [name] = [...gateway.bundles.keys()];
    expect(first.json).toEqual({
      result: 'created',
      bundles: [
        {
          name,
          namespace: NAMESPACE,
          webhook: 'production',
          environment: 'prod',
          statusUrl: bundleStatusUrl(gateway.baseUrl, SIGNING_KEY, {
            namespace: NAMESPACE,
            name: name!,
            uid: `uid-${name!}`,
          }),
        },
      ],
    });
    expect(gateway.bundles.get(name!)!.spec).toMatchObject({
      source: { git: { commit: 'fd489864e7642b48eaad6e3f155c10e46810ec72', branch: 'master' } },
      comment: 'test a push event',
      trigger: {
        type: 'Webhook',
        provider: 'github',
        webhookRef: { name: 'production' },
        deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      },
      deploy: { environmentRef: { name: 'prod' }, backupBeforeDeploy: true },
    });

    const again = await deliver('github-push');
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ ...(first.json as object), result: 'duplicate' });
    expect(gateway.bundles.size).toBe(1);
  });

  it.each([
    ['gitlab-push', 'gitlab', 'production'],
    ['bitbucket-repo-push', 'bitbucket', 'bitbucket-branch'],
    ['bitbucket-repo-push-captured', 'bitbucket', 'production'],
    ['azure-devops-git-push', 'azure-devops', 'production'],
  ])('a %s delivery creates a bundle', async (fixture, provider, webhook) => {
    const reply = await deliver(fixture);
    expect(reply.status).toBe(201);
    expect(reply.json).toMatchObject({ result: 'created', bundles: [{ webhook }] });
    expect([...gateway.bundles.values()][0]!.spec.trigger.provider).toBe(provider);
  });

  it.each([
    ['github-ping', 'ping'],
    ['github-push-tag-created', 'tag push'],
    ['github-push-branch-deleted', 'branch deletion'],
    ['gitlab-tag-push', 'tag push'],
    ['gitlab-push-branch-deleted', 'branch deletion'],
    ['bitbucket-repo-push-branch-deleted', 'branch deletion'],
    ['bitbucket-repo-push-tag-created', 'tag push'],
  ])('%s is ignored with 202 and the reason', async (fixture, reason) => {
    const reply = await deliver(fixture);
    expect(reply.status).toBe(202);
    expect(reply.json).toEqual({ result: 'ignored', reason });
    expect(gateway.bundles.size).toBe(0);
  });

  it('a replayed delivery whose bundle was pruned builds nothing: 200 duplicate, marked pruned', async () => {
    const first = await deliver('github-push');
    expect(first.status).toBe(201);
    const [name] = [...gateway.bundles.keys()];
    // The operator pruned it and remembered its name in the Project's status.
    gateway.bundles.delete(name!);
    gateway.projects.set(PROJECT, { ...gateway.projects.get(PROJECT)!, prunedBundles: new Set([name!]) });
    const replay = await deliver('github-push');
    expect(replay.status).toBe(200);
    expect(replay.json).toEqual({
      result: 'duplicate',
      bundles: [{ name, namespace: NAMESPACE, webhook: 'production', environment: 'prod', pruned: true }],
    });
    expect(gateway.bundles.size).toBe(0);
  });

  it('a push to a branch no webhook matches is ignored with 202, naming the branch', async () => {
    gateway.projects.get(PROJECT)!.webhooks = [];
    const reply = await deliver('github-push-branch-created');
    expect(reply.status).toBe(202);
    expect(reply.json).toEqual({
      result: 'ignored',
      reason: `no webhook of project ${PROJECT} matches branch master`,
    });
    expect(gateway.bundles.size).toBe(0);
  });

  it("verifies only by the project's provider: a Bitbucket-dressed delivery without a signature to a GitHub project gets 401", async () => {
    gateway.projects.set(PROJECT, { ...gateway.projects.get(PROJECT)!, provider: 'github' });
    const bitbucket = signedFixture('bitbucket-repo-push');
    const headers = Object.fromEntries(
      Object.entries(bitbucket.headers).filter(([name]) => name.toLowerCase() !== 'x-hub-signature'),
    );
    const unsigned = await send(gateway.baseUrl, hookPath(), { headers, body: bitbucket.body });
    expect(unsigned.status).toBe(401);
    expect(unsigned.json).toEqual({
      error: { code: 'unauthenticated', message: 'the request could not be authenticated' },
    });
    // Even correctly signed: GitLab's scheme is not this project's.
    const gitlab = signedFixture('gitlab-push');
    expect(
      (await send(gateway.baseUrl, hookPath(), { headers: gitlab.headers, body: gitlab.body })).status,
    ).toBe(401);
    expect(gateway.bundles.size).toBe(0);
    // A Bitbucket project that requires signatures does not take it unsigned; signed, it does.
    gateway.projects.set(PROJECT, {
      ...gateway.projects.get(PROJECT)!,
      provider: 'bitbucket',
      requireSignature: true,
    });
    expect((await send(gateway.baseUrl, hookPath(), { headers, body: bitbucket.body })).status).toBe(401);
    const signed = await send(gateway.baseUrl, hookPath(), {
      headers: bitbucket.headers,
      body: bitbucket.body,
    });
    expect(signed.status).toBeLessThan(300);
  });

  it("takes an unsigned Bitbucket delivery on the URL's token, as Bitbucket's form with the URL alone sends it", async () => {
    gateway.projects.set(PROJECT, { ...gateway.projects.get(PROJECT)!, provider: 'bitbucket' });
    const bitbucket = signedFixture('bitbucket-repo-push');
    const headers = Object.fromEntries(
      Object.entries(bitbucket.headers).filter(([name]) => name.toLowerCase() !== 'x-hub-signature'),
    );
    const unsigned = await send(gateway.baseUrl, hookPath(), { headers, body: bitbucket.body });
    expect(unsigned.status).toBeLessThan(300);
    // The token is still what finds the project: a wrong one is the same 404 as ever.
    expect(
      (await send(gateway.baseUrl, hookPath(PROJECT, 'another-secret'), { headers, body: bitbucket.body }))
        .status,
    ).toBe(404);
  });

  it("takes signed deliveries on the Project's status.webhook.url as pasted, without the token; not unsigned ones", async () => {
    const bare = `/hooks/${PROJECT}`;
    expect((await deliver('github-push', bare)).status).toBe(201);
    // GitLab's secret token and Azure DevOps' key prove the secret as a signature does.
    for (const [fixture, provider] of [
      ['gitlab-push', 'gitlab'],
      ['azure-devops-git-push', 'azure-devops'],
      ['bitbucket-repo-push', 'bitbucket'],
    ] as const) {
      gateway.projects.set(PROJECT, { ...gateway.projects.get(PROJECT)!, provider });
      const reply = await deliver(fixture, `${bare}/`);
      expect([fixture, reply.status]).toEqual([fixture, 201]);
    }
    expect(gateway.bundles.size).toBe(4);
    // A wrong signature is refused as on the URL with the token.
    gateway.projects.set(PROJECT, { ...gateway.projects.get(PROJECT)!, provider: 'github' });
    const forged = signedFixture('github-push', 'another-secret');
    const refused = await send(gateway.baseUrl, bare, { headers: forged.headers, body: forged.body });
    expect(refused.status).toBe(401);
    // Bitbucket's URL-only mode sends nothing that proves the secret: the token must be in the URL.
    gateway.projects.set(PROJECT, { ...gateway.projects.get(PROJECT)!, provider: 'bitbucket' });
    const bitbucket = signedFixture('bitbucket-repo-push');
    const headers = Object.fromEntries(
      Object.entries(bitbucket.headers).filter(([name]) => name.toLowerCase() !== 'x-hub-signature'),
    );
    const unsigned = await send(gateway.baseUrl, bare, { headers, body: bitbucket.body });
    expect(unsigned.status).toBe(401);
    expect(unsigned.json).toEqual({
      error: {
        code: 'unauthenticated',
        message:
          'an unsigned delivery needs the webhook URL with its token (kubectl slipway hook prints it), or set the webhook secret so the provider signs it',
      },
    });
    expect(gateway.bundles.size).toBe(4);
  });

  it('an unknown project and a wrong token get the same 404', async () => {
    const unknown = await deliver('github-push', hookPath('nope'));
    const wrongToken = await deliver('github-push', hookPath(PROJECT, 'another-secret'));
    expect(unknown.status).toBe(404);
    expect(wrongToken.status).toBe(404);
    expect(unknown.json).toEqual({ error: { code: 'not_found', message: 'no webhook at this address' } });
    expect(wrongToken.json).toEqual(unknown.json);
  });

  it('503 with Retry-After while the gateway is not ready; a project without a usable secret answers as an unknown one', async () => {
    gateway.state.ready = false;
    const notReady = await deliver('github-push');
    expect(notReady.status).toBe(503);
    expect(notReady.headers['retry-after']).toBe('10');
    gateway.state.ready = true;
    gateway.projects.get(PROJECT)!.secret = undefined;
    const noSecret = await deliver('github-push');
    const unknown = await deliver('github-push', hookPath('nope'));
    expect(noSecret.status).toBe(404);
    expect(noSecret.json).toEqual(unknown.json);
  });

  it("503 with Retry-After, not a 500, when the project's secret cannot be read", async () => {
    gateway.state.failLookup = true;
    const reply = await deliver('github-push');
    expect(reply.status).toBe(503);
    expect(reply.headers['retry-after']).toBe('10');
    expect(reply.json).toMatchObject({ error: { code: 'unavailable' } });
  });

  it('415 for a form-encoded delivery', async () => {
    const reply = await deliver('github-push', hookPath(), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(reply.status).toBe(415);
    expect(reply.json).toMatchObject({ error: { code: 'unsupported_media_type' } });
  });

  it('401 for a bad or missing signature, without saying which', async () => {
    const delivery = signedFixture('github-push');
    const bad = await send(gateway.baseUrl, hookPath(), {
      headers: { ...delivery.headers, 'x-hub-signature-256': 'sha256=' + '0'.repeat(64) },
      body: delivery.body,
    });
    const headers = { ...delivery.headers };
    delete headers['x-hub-signature-256'];
    const missing = await send(gateway.baseUrl, hookPath(), { headers, body: delivery.body });
    const gitlab = await deliver('gitlab-push', hookPath(), { 'x-gitlab-token': 'wrong' });
    for (const reply of [bad, missing, gitlab]) {
      expect(reply.status).toBe(401);
      expect(reply.json).toEqual({
        error: { code: 'unauthenticated', message: 'the request could not be authenticated' },
      });
    }
    expect(gateway.bundles.size).toBe(0);
  });

  it('400 for a signed body that is not JSON', async () => {
    const delivery = signedFixture('gitlab-push');
    const reply = await send(gateway.baseUrl, hookPath(), {
      headers: delivery.headers,
      body: '{"object_kind": "push",',
    });
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({
      error: { code: 'malformed_payload', message: 'the body is not valid JSON' },
    });
  });

  it('400 for a delivery from no known provider', async () => {
    const reply = await send(gateway.baseUrl, hookPath(), {
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ error: { code: 'unrecognised_delivery' } });
  });

  it('400 for Bitbucket Server, saying it is not supported', async () => {
    const reply = await deliver('bitbucket-server-repo-refs-changed');
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({
      error: { code: 'unsupported_provider', message: expect.stringMatching(/not supported/) },
    });
  });

  it('422 when the project has no manual bundle yet, saying so', async () => {
    gateway.projects.get(PROJECT)!.latestManualBundle = undefined;
    const reply = await deliver('github-push');
    expect(reply.status).toBe(422);
    expect(reply.json).toMatchObject({
      error: { code: 'no_manual_bundle', message: expect.stringMatching(/no manual bundle yet/) },
    });
  });

  it('422 for a push that updates more branches than a delivery may, creating nothing', async () => {
    const original = loadFixture('bitbucket-repo-push');
    const payload = JSON.parse(original.body.toString('utf8')) as {
      push: { changes: Array<{ new: { name: string; target: object } }> };
    };
    const change = payload.push.changes[0]!;
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        ...change,
        new: {
          ...change.new,
          name: `feature/b${i}`,
          target: { ...change.new.target, hash: `${i + 1}`.padStart(40, 'a') },
        },
      }));
    const send422 = async (n: number) => {
      const body = Buffer.from(JSON.stringify({ ...payload, push: { changes: many(n) } }));
      return send(gateway.baseUrl, hookPath(), {
        headers: resign(original.headers, body, TEST_SECRET),
        body,
      });
    };
    const reply = await send422(MAX_DELIVERY_BRANCH_CHANGES + 1);
    expect(reply.status).toBe(422);
    expect(reply.json).toMatchObject({
      error: {
        code: 'too_many_changes',
        message: expect.stringMatching(/updates 21 branches; .* at most 20/),
      },
    });
    expect(gateway.bundles.size).toBe(0);
    // At the limit, the push builds (one bundle per matching branch).
    expect((await send422(MAX_DELIVERY_BRANCH_CHANGES)).status).toBe(201);
    expect(gateway.bundles.size).toBe(MAX_DELIVERY_BRANCH_CHANGES);
  });

  it('413 for a declared body over the limit, before reading it', async () => {
    const delivery = signedFixture('github-push');
    const reply = await send(gateway.baseUrl, hookPath(), {
      headers: { ...delivery.headers, 'content-length': String(MAX_HOOK_BODY_BYTES + 1) },
      expectContinue: true,
    });
    expect(reply.status).toBe(413);
    expect(reply.continued).toBe(false);
    expect(reply.json).toMatchObject({ error: { code: 'body_too_large' } });
  });

  it('413 for a streamed body that grows over the limit', async () => {
    const delivery = signedFixture('github-push');
    const reply = await new Promise<{ status: number; json: unknown }>((resolve, reject) => {
      const req = httpRequest(
        `${gateway.baseUrl}${hookPath()}`,
        { method: 'POST', headers: delivery.headers, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode!, json: JSON.parse(Buffer.concat(chunks).toString()) }),
          );
        },
      );
      req.on('error', reject);
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent <= MAX_HOOK_BODY_BYTES + chunk.length) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    expect(reply.status).toBe(413);
  });

  it('503 when the bundles cannot be written; the provider can redeliver', async () => {
    gateway.state.failCreate = true;
    const reply = await deliver('github-push');
    expect(reply.status).toBe(503);
    expect(reply.json).toMatchObject({ error: { code: 'unavailable' } });
  });

  it('slows down an address probing many projects, and an IPv6 client across its whole /64', async () => {
    const limited = await startGateway({
      authFailures: { limit: 100, windowMs: 60_000 },
      clientAuthFailures: { limit: 5, windowMs: 60_000 },
    });
    const probe = (slug: string, client: string) =>
      send(limited.baseUrl, hookPath(slug, 'x'), { headers: { 'x-test-client': client }, body: '{}' });
    try {
      // Five different project names from one address: the sixth request is throttled.
      for (let i = 0; i < 5; i += 1) expect((await probe(`probe-${i}`, '203.0.113.9')).status).toBe(404);
      const blocked = await probe('probe-6', '203.0.113.9');
      expect(blocked.status).toBe(429);
      expect(blocked.json).toMatchObject({ error: { code: 'too_many_failures' } });
      // Five addresses of one /64 count as one client; another /64 is not affected.
      for (let i = 1; i <= 5; i += 1) await probe(`probe-${i}`, `2001:db8:1:2::${i.toString(16)}`);
      expect((await probe('probe-9', '2001:db8:1:2:ffff:ffff:ffff:fffe')).status).toBe(429);
      expect((await probe('probe-9', '2001:db8:1:3::1')).status).toBe(404);
    } finally {
      await limited.close();
    }
  });

  it('answers failed authentications with 429 once an address failed too often, and never blocks one that authenticates', async () => {
    const limited = await startGateway({ authFailures: { limit: 3, windowMs: 60_000 } });
    try {
      const attacker = { 'x-test-client': '203.0.113.7' };
      const guess = (i: number) =>
        send(limited.baseUrl, hookPath(PROJECT, `guess-${i}`), { headers: attacker, body: '{}' });
      for (let i = 0; i < 3; i += 1) expect((await guess(i)).status).toBe(404);
      const blocked = await guess(3);
      expect(blocked.status).toBe(429);
      expect(blocked.headers['retry-after']).toBe('60');
      // Counted per project: the same address still gets the plain answer from another project.
      const elsewhere = await send(limited.baseUrl, hookPath('other-project', 'x'), {
        headers: attacker,
        body: '{}',
      });
      expect(elsewhere.status).toBe(404);
      // Only failures are throttled: a real delivery from the same (shared) address goes through,
      // so failing on purpose cannot lock a project out.
      const genuine = signedFixture('github-push');
      const delivered = await send(limited.baseUrl, hookPath(), {
        headers: { ...genuine.headers, ...attacker },
        body: genuine.body,
      });
      expect(delivered.status).toBe(201);

      limited.state.now = new Date(limited.state.now.getTime() + 60_000);
      expect((await guess(4)).status).toBe(404);
    } finally {
      await limited.close();
    }
  });

  it('never logs the secret or the URL token, and reports the route template', async () => {
    await deliver('github-push');
    await deliver('github-push', hookPath(PROJECT, 'wrong'));
    await deliver('gitlab-push', hookPath(), { 'x-gitlab-token': 'not-it' });
    const token = hookPath().split('/').pop()!;
    const logs = gateway.logs.join('\n');
    expect(logs).toContain('/hooks/:slug/:token');
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(TEST_SECRET);
    expect(gateway.observations.map((o) => [o.route, o.status])).toEqual([
      ['/hooks/:slug/:token', 201],
      ['/hooks/:slug/:token', 404],
      ['/hooks/:slug/:token', 401],
    ]);
    expect(gateway.observations[0]).toMatchObject({ provider: 'github', result: 'created', method: 'POST' });
  });
});

describe('other routes', () => {
  it('404 for an unknown path, 405 with Allow for a wrong method', async () => {
    expect((await send(gateway.baseUrl, '/nope', { method: 'GET' })).status).toBe(404);
    const wrongMethod = await send(gateway.baseUrl, hookPath(), { method: 'GET' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe('POST');
  });

  it('createGatewayServer serves the upload script with the base URL filled in', async () => {
    const server = createGatewayServer({
      publicBaseUrl: 'https://hooks.example.com/',
      projectBySlug: () => undefined,
      createBundles: async () => [],
      archiveStore: new FilesystemArchiveStore(gateway.storeDir),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const reply = await send(`http://127.0.0.1:${port}`, '/upload.sh', { method: 'GET' });
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toBe('text/x-shellscript; charset=utf-8');
      const script = reply.body.toString();
      expect(script).toMatch(/^#!\/bin\/sh\n/);
      expect(script).toContain("base_url='https://hooks.example.com'");
      expect(script).not.toContain('__SLIPWAY_BASE_URL__');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
