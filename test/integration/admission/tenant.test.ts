// A tenant of a shared cluster, as a security review would try it: a namespace user who may do
// everything to every Slipway resource and subresource, but may not deploy to an Environment
// nor patch a Deployment. Through kubectl, as that user, against the real API server with the
// chart's admission policies: no status of Slipway's may be forged (the image a bundle deploys,
// the bundle an Environment runs, a project's webhook Secret), no push's bundle name can be
// taken first (a push whose name is taken all the same is answered 409, never "duplicate"), and
// a Bitbucket project's URL token, which alone deploys, is not in what they may read.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import type { BundleObject } from '../../../crds/index.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import { logger } from '../../../lib/log.ts';
import { bundleName } from '../../../webhook-gateway/plan.ts';
import * as build from '../../support/builders.ts';
import {
  controllerKubeConfig,
  createNamespace,
  kubectl,
  testKubeConfig,
  waitFor,
  kubectlApply,
} from '../../support/cluster.ts';
import { signedFixture } from '../../unit/webhook-gateway/support/fixtures.ts';
import { publishedWebhook, startGatewayAndOperator, type GatewayAndOperator } from '../gateway/support.ts';

const TENANT = 'tenant-of-shop';
const COMMIT = 'fd489864e7642b48eaad6e3f155c10e46810ec72'; // the github-push fixture's, to master
const kc = testKubeConfig();
let ns: { name: string; remove: () => Promise<void> };
let slipway: GatewayAndOperator;

/** kubectl as the tenant; what it printed on failure. */
async function asTenant(args: string[], input?: string): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout } = await kubectl([...args, '-n', ns.name, '--as', TENANT], input);
    return { ok: true, out: stdout };
  } catch (err) {
    return { ok: false, out: String((err as { stderr?: string }).stderr ?? err) };
  }
}

const patchStatus = (resource: string, status: object) =>
  asTenant(['patch', resource, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);

beforeAll(async () => {
  ns = await createNamespace(kc, 'tenant');
  const rbac = [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'slipway-everything-but-deploy', namespace: ns.name },
      rules: [
        {
          // Every resource and subresource of the group; the verbs listed (`*` would be deploy too).
          apiGroups: ['slipway.dev'],
          resources: ['*'],
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        },
        { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'tenant', namespace: ns.name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'slipway-everything-but-deploy' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: TENANT }],
    },
  ];
  await kubectlApply(rbac);
  slipway = await startGatewayAndOperator(kc, ns.name, logger.child({ test: 'tenant' }));
  const objects = [
    build.project('shop', build.inNamespace(ns.name), build.spec({ slug: `shop-${ns.name.slice(-6)}` })),
    build.environment('production', build.inNamespace(ns.name)),
    build.webhook(
      'master-to-production',
      build.inNamespace(ns.name),
      build.spec({ branch: 'master', environmentRef: { name: 'production' } }),
    ),
    build.bundle('shop-manual-1', build.inNamespace(ns.name)),
    // Its URL alone makes bundles: no signature needed.
    build.project(
      'bb',
      build.inNamespace(ns.name),
      build.spec({ slug: `bb-${ns.name.slice(-6)}`, provider: 'bitbucket' }),
    ),
  ];
  await kubectlApply(objects);
});

afterAll(async () => {
  await slipway?.stop();
  await ns?.remove();
});

describe('a tenant with every Slipway resource and subresource, but no deploy', () => {
  it('cannot write the status of any Slipway object: the refusal names the policy and who may', async () => {
    await publishedWebhook(kc, ns.name, 'shop');
    const forged = `evil.example/pwn@sha256:${'ab'.repeat(32)}`;
    for (const [resource, status] of [
      ['bundle/shop-manual-1', { image: forged, phase: 'Built' }],
      ['environment/production', { currentBundle: 'shop-manual-1' }],
      ['project/shop', { webhook: { url: 'http://x/hooks/shop/t', secretRef: { name: 'mine', key: 'k' } } }],
    ] as const) {
      const { ok, out } = await patchStatus(resource, status);
      expect(ok).toBe(false);
      expect(out).toContain("ValidatingAdmissionPolicy 'slipway-writers'");
      expect(out).toContain('is written by Slipway alone');
      expect(out).toContain(`${TENANT} is not one of them`);
    }
    const bundle = await slipwayApi(kc).get<BundleObject>('Bundle', ns.name, 'shop-manual-1');
    expect(bundle.status?.image ?? '').not.toContain('evil.example');
  });

  it("cannot take a push's bundle name first: a push bundle is Slipway's, any other under its name is a 409", async () => {
    const planned = bundleName(
      'shop',
      ['Webhook', 'webhook:master-to-production', `commit:${COMMIT}`].join('\n'),
    );
    const squatter = (trigger: object) =>
      stringify(
        build.bundle(
          planned,
          build.inNamespace(ns.name),
          build.spec({ source: { git: { commit: 'c'.repeat(40), branch: 'master' } }, trigger }),
        ),
      );
    const asPush = await asTenant(['create', '-f', '-'], squatter({ type: 'Webhook', provider: 'github' }));
    expect(asPush.ok).toBe(false);
    expect(asPush.out).toMatch(/ValidatingAdmissionPolicy 'slipway-writers'.*Slipway alone/);
    // Not even as a Rollback bundle naming no Environment, which needs no deploy right.
    const asRollback = await asTenant(['create', '-f', '-'], squatter({ type: 'Rollback' }));
    expect(asRollback.ok).toBe(false);
    expect(asRollback.out).toContain(
      'a name ending in - and 12 hexadecimal digits is that of a push or upload, which Slipway alone names',
    );
    await expect(kubectl(['get', 'bundle', planned, '-n', ns.name])).rejects.toThrow(/NotFound/);

    // Should a bundle of another build hold the name all the same (one of Slipway's identities
    // made it), the push is answered 409, never "duplicate".
    await slipwayApi(controllerKubeConfig()).create(
      'Bundle',
      build.bundle(
        planned,
        build.inNamespace(ns.name),
        build.spec({
          source: { git: { commit: 'c'.repeat(40), branch: 'master' } },
          trigger: { type: 'Rollback' },
        }),
      ),
    );

    const { url, secret } = await publishedWebhook(kc, ns.name, 'shop');
    const { headers, body } = signedFixture('github-push', secret);
    const answer = await waitFor('the gateway to know the manual bundle', async () => {
      const res = await fetch(url, { method: 'POST', headers, body });
      return res.status === 422 ? undefined : { status: res.status, body: (await res.json()) as object };
    });
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({
      error: {
        code: 'bundle_name_taken',
        message: expect.stringContaining(
          `Bundle ${planned} already exists in namespace ${ns.name} for another build (trigger Rollback`,
        ) as unknown as string,
      },
    });
  });

  it("cannot read a Bitbucket project's URL token: the status leaves it out, and the Secret is not theirs", async () => {
    const { url } = await publishedWebhook(kc, ns.name, 'bb');
    const token = url.slice(url.lastIndexOf('/') + 1);
    const seen = await asTenant(['get', 'project', 'bb', '-o', 'yaml']);
    expect(seen.ok).toBe(true);
    expect(seen.out).toContain(`url: ${url.slice(0, url.lastIndexOf('/'))}\n`);
    expect(seen.out).not.toContain(token);
    const secret = await asTenant(['get', 'secret', 'bb-webhook', '-o', 'yaml']);
    expect(secret).toMatchObject({
      ok: false,
      out: expect.stringContaining('Forbidden') as unknown as string,
    });
  });
});
