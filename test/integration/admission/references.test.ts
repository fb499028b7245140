// The admission policies (crds/admission.ts, installed like the CRDs) on a real API server: a
// namespace user who may write every Slipway kind but may not patch Deployments or read Secrets
// cannot point Slipway at them, and is told which permission is missing; someone who has those
// rights (here the cluster admin) can, and existing objects keep working.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import * as build from '../../support/builders.ts';
import { createNamespace, kubectl, testKubeConfig } from '../../support/cluster.ts';

const USER = 'slipway-author';
let ns: { name: string; remove: () => Promise<void> };

/** kubectl apply of `objects`, as the admin or (with `as`) impersonating the namespace user. */
async function apply(objects: object[], as?: string): Promise<{ ok: true } | { ok: false; message: string }> {
  const yaml = objects.map((o) => stringify(o)).join('---\n');
  try {
    await kubectl(['apply', '-n', ns.name, ...(as ? ['--as', as] : []), '-f', '-'], yaml);
    return { ok: true };
  } catch (err) {
    return { ok: false, message: String((err as { stderr?: string }).stderr ?? err) };
  }
}

const inNs = () => build.inNamespace(ns.name);
const environment = (name: string, deployment: string, database?: string) =>
  build.environment(
    name,
    inNs(),
    build.spec({
      deploymentRef: { name: deployment },
      ...(database
        ? { database: { engine: 'mysql', secretRef: { name: database } }, backupStorage: undefined }
        : { database: undefined, backupStorage: undefined }),
    }),
  );

beforeAll(async () => {
  ns = await createNamespace(testKubeConfig(), 'admission');
  // What a namespace user typically has: every Slipway kind, reading Deployments, nothing else.
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'slipway-author', namespace: ns.name },
    rules: [
      { apiGroups: ['slipway.dev'], resources: ['*'], verbs: ['*'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch'] },
    ],
  };
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'slipway-author', namespace: ns.name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'slipway-author' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
  };
  const secret = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns.name },
    stringData: { username: 'u', password: 'p', host: 'db', database: 'shop', secret: 's' },
  });
  const created = await apply([
    role,
    binding,
    secret('shop-db'),
    secret('shop-git'),
    build.project('shop', inNs()),
  ]);
  expect(created).toEqual({ ok: true });
});
afterAll(async () => ns.remove());

describe('admission: Slipway acts only within its user’s rights', () => {
  it('refuses an Environment naming a Deployment its author may not patch, naming the permission', async () => {
    const refused = await apply([environment('staging', 'shop-web')], USER);
    expect(refused.ok).toBe(false);
    expect(refused).toMatchObject({
      message: expect.stringMatching(
        /Environment staging: you may not patch Deployment shop-web in namespace admission-\w+, so spec\.deploymentRef may not name it/,
      ),
    });
    // Nothing half-made: the Environment does not exist.
    await expect(kubectl(['get', 'environment', 'staging', '-n', ns.name])).rejects.toThrow(/NotFound/);
  });

  it('refuses a database Secret its author may not read', async () => {
    // With patch on the Deployment granted, the Deployment passes and the Secret is what is missing.
    const grant = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'patch-shop-web', namespace: ns.name },
      rules: [
        { apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['shop-web'], verbs: ['patch'] },
      ],
    };
    const grantBinding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'patch-shop-web', namespace: ns.name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'patch-shop-web' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
    };
    expect(await apply([grant, grantBinding])).toEqual({ ok: true });
    expect(await apply([environment('preview', 'shop-web')], USER)).toEqual({ ok: true });
    const refused = await apply([environment('production', 'shop-web', 'shop-db')], USER);
    expect(refused).toMatchObject({
      ok: false,
      message: expect.stringMatching(
        /you may not get Secret shop-db .* spec\.database\.secretRef may not name it/,
      ),
    });
  });

  it('lets someone with those rights make it, and its user change everything but the references', async () => {
    expect(await apply([environment('production', 'shop-api', 'shop-db')])).toEqual({ ok: true });
    // The user may edit the admin's Environment as long as the references stay what they were.
    const edited = environment('production', 'shop-api', 'shop-db');
    edited.spec.autoRollback = true;
    expect(await apply([edited], USER)).toEqual({ ok: true });
    // Moving it to another project would deploy that project's pushes into the same Deployment: checked.
    const moved = environment('production', 'shop-api', 'shop-db');
    moved.spec.projectRef = { name: 'blog' };
    expect(await apply([moved], USER)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/you may not patch Deployment shop-api/),
    });
    // Pointing it at another Deployment is a new reference, and checked.
    expect(await apply([environment('production', 'shop-worker', 'shop-db')], USER)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/you may not patch Deployment shop-worker/),
    });
  });

  it('refuses a Project naming clone credentials or a webhook Secret its author may not read', async () => {
    const withCredentials = build.project(
      'blog',
      inNs(),
      build.spec({
        repository: { url: 'https://git.example.com/blog.git', credentialsSecretRef: { name: 'shop-git' } },
      }),
    );
    expect(await apply([withCredentials], USER)).toMatchObject({
      ok: false,
      message: expect.stringMatching(
        /Project blog: you may not get Secret shop-git .* spec\.repository\.credentialsSecretRef may not name it/,
      ),
    });
    const withWebhookSecret = build.project(
      'docs',
      inNs(),
      build.spec({ webhookSecretRef: { name: 'shop-db', key: 'password' } }),
    );
    expect(await apply([withWebhookSecret], USER)).toMatchObject({
      ok: false,
      message: expect.stringMatching(
        /Project docs: you may not get Secret shop-db .* spec\.webhookSecretRef/,
      ),
    });
    // A Project without Secret references, and the same ones from the admin, are fine.
    expect(await apply([build.project('plain', inNs())], USER)).toEqual({ ok: true });
    expect(await apply([withCredentials, withWebhookSecret])).toEqual({ ok: true });
    // The user may not send the admin's password elsewhere by changing only the repository's URL,
    // nor make another key of the admin's Secret the webhook secret.
    const elsewhere = build.project(
      'blog',
      inNs(),
      build.spec({
        repository: {
          url: 'https://attacker.example.com/blog.git',
          credentialsSecretRef: { name: 'shop-git' },
        },
      }),
    );
    expect(await apply([elsewhere], USER)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/you may not get Secret shop-git/),
    });
    const otherKey = build.project(
      'docs',
      inNs(),
      build.spec({ webhookSecretRef: { name: 'shop-db', key: 'username' } }),
    );
    expect(await apply([otherKey], USER)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/you may not get Secret shop-db/),
    });
  });
});
