// Previews in a shared cluster, as a security review would try them, through kubectl as namespace
// users against the real API server with the chart's admission policies: a Preview is Slipway's
// (a tenant may neither make one nor change what it builds), approving a fork's head commit needs
// the verb approve on previews, and previewing an Environment, or changing the settings and the
// provider API that decide which pull requests run there, needs deploy on it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { API_VERSION, type PreviewObject } from '../../../crds/index.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import * as build from '../../support/builders.ts';
import {
  controllerKubeConfig,
  createNamespace,
  kubectl,
  kubectlApply,
  testKubeConfig,
} from '../../support/cluster.ts';

const TENANT = 'preview-tenant';
const APPROVER = 'preview-approver';
const DEPLOYER = 'preview-deployer';
const HEAD = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
const kc = testKubeConfig();
let ns: { name: string; remove: () => Promise<void> };

async function as(user: string, args: string[], input?: string): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout } = await kubectl([...args, '-n', ns.name, '--as', user], input);
    return { ok: true, out: stdout };
  } catch (err) {
    return { ok: false, out: String((err as { stderr?: string }).stderr ?? err) };
  }
}

const patchSpec = (user: string, spec: object) =>
  as(user, ['patch', 'preview', 'shop-pr-7', '--type=merge', '-p', JSON.stringify({ spec })]);

const role = (name: string, verbs: string[]) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: { name, namespace: ns.name },
  rules: [{ apiGroups: ['slipway.dev'], resources: ['*'], verbs }],
});
const binding = (user: string, roleName: string) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name: user, namespace: ns.name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
});

beforeAll(async () => {
  ns = await createNamespace(kc, 'preview-admission');
  const everything = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
  await kubectlApply([
    role('everything-but-deploy-and-approve', everything),
    role('approver', [...everything, 'approve']),
    role('deployer', [...everything, 'deploy']),
    binding(TENANT, 'everything-but-deploy-and-approve'),
    binding(APPROVER, 'approver'),
    binding(DEPLOYER, 'deployer'),
  ]);
  await kubectlApply([
    build.project('shop', build.inNamespace(ns.name)),
    build.environment('staging', build.inNamespace(ns.name)),
  ]);
  // As the gateway makes it, from a fork's pull request.
  const preview: PreviewObject = {
    apiVersion: API_VERSION,
    kind: 'Preview',
    metadata: { name: 'shop-pr-7', namespace: ns.name },
    spec: {
      projectRef: { name: 'shop' },
      provider: 'github',
      number: 7,
      branch: 'feature',
      headCommit: HEAD,
      fork: true,
    },
  };
  await slipwayApi(controllerKubeConfig()).create('Preview', preview);
});

afterAll(async () => {
  await ns?.remove();
});

describe('previews in a shared cluster', () => {
  it('a tenant cannot make a Preview: the refusal says Slipway makes them from pull requests', async () => {
    const forged = {
      apiVersion: API_VERSION,
      kind: 'Preview',
      metadata: { name: 'shop-pr-8', namespace: ns.name },
      spec: { projectRef: { name: 'shop' }, provider: 'github', number: 8, branch: 'x', headCommit: HEAD },
    };
    const { ok, out } = await as(TENANT, ['create', '-f', '-'], stringify(forged));
    expect(ok).toBe(false);
    expect(out).toContain('a Preview is made and kept by Slipway from the pull request');
  });

  it('a tenant cannot change what a Preview builds, nor approve it without the verb approve', async () => {
    const retarget = await patchSpec(TENANT, { headCommit: 'b'.repeat(40) });
    expect(retarget.ok).toBe(false);
    expect(retarget.out).toContain('only spec.approvedCommit may be changed');
    const fork = await patchSpec(TENANT, { fork: false });
    expect(fork.ok).toBe(false);
    const approve = await patchSpec(TENANT, { approvedCommit: HEAD });
    expect(approve.ok).toBe(false);
    expect(approve.out).toContain('spec.approvedCommit needs the verb approve on previews.slipway.dev');
  });

  it('a user with approve on previews may approve the head commit, and only that field changes', async () => {
    const approve = await patchSpec(APPROVER, { approvedCommit: HEAD });
    expect(approve).toMatchObject({ ok: true });
    const stored = await slipwayApi(kc).get<PreviewObject>('Preview', ns.name, 'shop-pr-7');
    expect(stored.spec).toMatchObject({ approvedCommit: HEAD, headCommit: HEAD, fork: true });
    // Approving is no way to change anything else.
    expect((await patchSpec(APPROVER, { branch: 'main' })).ok).toBe(false);
  });

  it('previewing an Environment needs deploy on it', async () => {
    const { ok, out } = await as(TENANT, [
      'patch',
      'project',
      'shop',
      '--type=merge',
      '-p',
      JSON.stringify({
        spec: { previews: { environmentRef: { name: 'staging' }, host: 'pr-{number}.preview.test' } },
      }),
    ]);
    expect(ok).toBe(false);
    expect(out).toContain('you may not deploy to Environment staging');
    expect(out).toContain('spec.previews.environmentRef');
  });

  it('one who may deploy there and create Ingresses turns previews on, but may not name a Secret they cannot read in forkSecrets', async () => {
    const previews = {
      environmentRef: { name: 'staging' },
      host: 'pr-{number}.preview.test',
      forks: 'Approve',
    };
    const patch = (extra: object) =>
      as(DEPLOYER, [
        'patch',
        'project',
        'shop',
        '--type=merge',
        '-p',
        JSON.stringify({ spec: { previews: { ...previews, ...extra } } }),
      ]);
    // Slipway makes an Ingress for each preview: no more than the user could make.
    const noIngresses = await patch({});
    expect(noIngresses.ok).toBe(false);
    expect(noIngresses.out).toContain('you may not create Ingresses in namespace');
    await kubectlApply([
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'ingresses', namespace: ns.name },
        rules: [{ apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: ['create'] }],
      },
      { ...binding(DEPLOYER, 'ingresses'), metadata: { name: `${DEPLOYER}-ingresses`, namespace: ns.name } },
    ]);
    const refused = await patch({ forkSecrets: [{ name: 'prod-db' }] });
    expect(refused.ok).toBe(false);
    expect(refused.out).toContain('you may not get Secret prod-db');
    expect(refused.out).toContain('spec.previews.forkSecrets[0]');
    expect(await patch({})).toMatchObject({ ok: true });
  });

  it('an editor without deploy cannot point the look at open pull requests at a server of theirs; one with deploy can', async () => {
    // Both may read the token's Secret (naming it needs that) and edit Projects.
    await kubectlApply([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'forge-token', namespace: ns.name },
        stringData: { token: 't' },
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'secrets', namespace: ns.name },
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create'] }],
      },
      { ...binding(TENANT, 'secrets'), metadata: { name: `${TENANT}-secrets`, namespace: ns.name } },
      { ...binding(DEPLOYER, 'secrets'), metadata: { name: `${DEPLOYER}-secrets`, namespace: ns.name } },
    ]);
    const report = (apiUrl: string) => ({
      apiUrl,
      tokenSecretRef: { name: 'forge-token', key: 'token' },
    });
    const setReport = (user: string, apiUrl: string) =>
      as(user, [
        'patch',
        'project',
        'shop',
        '--type=merge',
        '-p',
        JSON.stringify({ spec: { report: report(apiUrl) } }),
      ]);
    const forged = await setReport(TENANT, 'https://pulls.attacker.example/api/v3');
    expect(forged.ok).toBe(false);
    expect(forged.out).toContain('you may not deploy to Environment staging');
    expect(forged.out).toContain('so you may not change spec.previews or spec.report');
    // Nor the previews' other settings (which pull requests, forks, hosts).
    const widened = await as(TENANT, [
      'patch',
      'project',
      'shop',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { previews: { trigger: 'Always' } } }),
    ]);
    expect(widened.ok).toBe(false);
    expect(widened.out).toContain('so you may not change spec.previews or spec.report');
    // Other fields of the Project stay the tenant's to edit.
    expect(await as(TENANT, ['label', 'project', 'shop', 'team=shop', '--overwrite'])).toMatchObject({
      ok: true,
    });
    expect(await setReport(DEPLOYER, 'https://ghe.example.com/api/v3')).toMatchObject({ ok: true });
    const stored = await slipwayApi(kc).get<{ spec: { report?: { apiUrl?: string } } }>(
      'Project',
      ns.name,
      'shop',
    );
    expect(stored.spec.report?.apiUrl).toBe('https://ghe.example.com/api/v3');
    // Nor may the tenant sign deliveries of their own (a pull request with its fork flag, a
    // push): the webhook secret is chosen by someone who may deploy to every Environment.
    const resigned = await as(TENANT, [
      'patch',
      'project',
      'shop',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { webhookSecretRef: { name: 'forge-token', key: 'token' } } }),
    ]);
    expect(resigned.ok).toBe(false);
    expect(resigned.out).toContain(
      'so you may not set spec.repository.url, spec.provider, spec.requireSignature or spec.webhookSecretRef',
    );
    // Turning previews off runs nothing: the tenant may.
    expect(
      await as(TENANT, [
        'patch',
        'project',
        'shop',
        '--type=json',
        '-p',
        '[{"op":"remove","path":"/spec/previews"}]',
      ]),
    ).toMatchObject({ ok: true });
  });
});
