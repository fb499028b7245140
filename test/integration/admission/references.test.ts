// The admission policies (crds/admission.ts, installed like the CRDs) on a real API server: a
// namespace user who may write every Slipway kind but may not patch Deployments or read Secrets
// cannot point Slipway at them, and is told which permission is missing; someone who has those
// rights (here the cluster admin) can, and existing objects keep working.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as build from '../../support/builders.ts';
import { createNamespace, kubectl, testKubeConfig, kubectlApply } from '../../support/cluster.ts';
import { waitFor } from '../../../lib/wait.ts';

const USER = 'slipway-author';
let ns: { name: string; remove: () => Promise<void> };

/** kubectl apply of `objects`, as the admin or (with `as`) impersonating the namespace user. */
async function apply(objects: object[], as?: string): Promise<{ ok: true } | { ok: false; message: string }> {
  try {
    await kubectlApply(objects, '-n', ns.name, ...(as ? ['--as', as] : []));
    return { ok: true };
  } catch (err) {
    return { ok: false, message: String((err as { stderr?: string }).stderr ?? err) };
  }
}

const inNs = () => build.inNamespace(ns.name);

type Rule = { apiGroups: string[]; resources: string[]; resourceNames?: string[]; verbs: string[] };
const role = (name: string, rules: Rule[]) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: { name, namespace: ns.name },
  rules,
});
/** A RoleBinding of the Role `name` to the namespace user. */
const boundToUser = (name: string) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name, namespace: ns.name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
});
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
  const author = role('slipway-author', [
    // (Every verb a writer has; `*` would include the custom verb deploy.)
    {
      apiGroups: ['slipway.dev'],
      resources: ['*'],
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'],
    },
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch'] },
  ]);
  const secret = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns.name },
    stringData: { username: 'u', password: 'p', host: 'db', database: 'shop', secret: 's' },
  });
  const created = await apply([
    author,
    boundToUser('slipway-author'),
    secret('shop-db'),
    secret('shop-git'),
    build.project('shop', inNs()),
  ]);
  expect(created).toEqual({ ok: true });
});
afterAll(async () => ns.remove());

/** Waits until the API server's authorizer has the user's new "deploy" grant on `what`. */
async function granted(what: string): Promise<void> {
  await waitFor(`${USER} may deploy ${what}`, async () => {
    const answer = await kubectl(['auth', 'can-i', 'deploy', what, '-n', ns.name, '--as', USER]).catch(
      () => undefined,
    );
    return answer?.stdout.trim() === 'yes';
  });
}

describe('admission: Slipway acts only within its user’s rights', () => {
  it("refuses notifications naming a Secret their author may not read (another team's chat webhook)", async () => {
    const notified = (events: string[]) =>
      build.project(
        'chat',
        inNs(),
        build.spec({
          repository: undefined,
          notifications: [{ name: 'ops', type: 'slack', secretRef: { name: 'shop-db' }, events }],
        }),
      );
    expect(await apply([notified(['BuildFailed'])], USER)).toMatchObject({
      ok: false,
      message: expect.stringMatching(
        /Project chat: you may not get Secret shop-db in namespace \S+, so spec\.notifications\[0\]\.secretRef may not name it/,
      ),
    });
    // The admin may; then the user may change what is sent, as long as the Secrets stay.
    expect(await apply([notified(['BuildFailed'])])).toEqual({ ok: true });
    expect(await apply([notified(['BuildFailed', 'Deployed'])], USER)).toEqual({ ok: true });
  });

  it("refuses status page webhooks naming a Secret their author may not read (another team's subscriber)", async () => {
    const page = (components?: number[]) =>
      build.statusPage(
        'status',
        inNs(),
        build.spec({
          webhooks: [{ name: 'ops', secretRef: { name: 'shop-db' }, ...(components ? { components } : {}) }],
        }),
      );
    expect(await apply([page()], USER)).toMatchObject({
      ok: false,
      message: expect.stringMatching(
        /StatusPage status: you may not get Secret shop-db in namespace \S+, so spec\.webhooks\[0\]\.secretRef may not name it/,
      ),
    });
    expect(await apply([page()])).toEqual({ ok: true });
    expect(await apply([page([1, 2])], USER)).toEqual({ ok: true });
  });

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
    const grant = role('patch-shop-web', [
      { apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['shop-web'], verbs: ['patch'] },
    ]);
    expect(await apply([grant, boundToUser('patch-shop-web')])).toEqual({ ok: true });
    expect(await apply([environment('preview', 'shop-web')], USER)).toEqual({ ok: true });
    const refused = await apply([environment('production', 'shop-web', 'shop-db')], USER);
    expect(refused).toMatchObject({
      ok: false,
      message: expect.stringMatching(
        /you may not get Secret shop-db .* spec\.database\.secretRef may not name it/,
      ),
    });
  });

  it('refuses a backup volume claim its author may not read (the dumps would land there)', async () => {
    const backedUp = build.environment(
      'backed',
      inNs(),
      build.spec({
        deploymentRef: { name: 'shop-web' },
        database: undefined,
        backupStorage: { persistentVolumeClaim: { claimName: 'backups' }, pathPrefix: 'shop' },
      }),
    );
    expect(await apply([backedUp], USER)).toMatchObject({
      ok: false,
      message: expect.stringMatching(
        /Environment backed: you may not get PersistentVolumeClaim backups in namespace \S+, so spec\.backupStorage\.persistentVolumeClaim may not name it/,
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

  it('lets only those who may deploy to an Environment point Bundles and Webhooks at it, or change what a project builds', async () => {
    // (Push and upload bundles are Slipway's alone: tenant.test.ts; a user's is Manual or Rollback.)
    const bundleTo = (name: string, environment: string, type: 'Manual' | 'Rollback') =>
      build.bundle(
        name,
        inNs(),
        build.spec({ deploy: build.deployTo(environment), trigger: { type }, projectRef: { name: 'shop' } }),
      );
    const webhookTo = (name: string, environment: string) =>
      build.webhook(
        name,
        inNs(),
        build.spec({ environmentRef: { name: environment }, projectRef: { name: 'shop' } }),
      );
    const refusedWith = (pattern: RegExp) => ({ ok: false, message: expect.stringMatching(pattern) });

    // Without "deploy", the user reaches no Environment through a Webhook or a Bundle…
    expect(await apply([webhookTo('to-production', 'production')], USER)).toMatchObject(
      refusedWith(
        /Webhook to-production: you may not deploy to Environment production in namespace admission-\w+, so spec\.environmentRef may not name it .*Ask for "deploy" on environments\.slipway\.dev production/,
      ),
    );
    expect(await apply([bundleTo('rollback-1', 'production', 'Rollback')], USER)).toMatchObject(
      refusedWith(
        /Bundle rollback-1: you may not deploy to Environment production .* spec\.deploy\.environmentRef/,
      ),
    );
    // …nor sets what the project's pushes build: a manual bundle (pushes copy its build settings)
    // or the repository.
    const manual = build.bundle('manual-1', inNs(), build.spec({ projectRef: { name: 'shop' } }));
    expect(await apply([manual], USER)).toMatchObject(
      refusedWith(
        /Bundle manual-1: you may not deploy to the Environments of namespace .*, so you may not create a Manual bundle/,
      ),
    );
    const moved = build.project(
      'shop',
      inNs(),
      build.spec({ repository: { url: 'https://attacker.example.com/shop.git' } }),
    );
    expect(await apply([moved], USER)).toMatchObject(
      refusedWith(
        /Project shop: you may not deploy to the Environments of namespace .*, so you may not set spec\.repository\.url/,
      ),
    );
    // Nor which deliveries count: a Bitbucket project takes unsigned ones on its URL alone.
    const rebound = build.project('shop', inNs(), build.spec({ provider: 'bitbucket' }));
    expect(await apply([rebound], USER)).toMatchObject(
      refusedWith(
        /so you may not set spec\.repository\.url, spec\.provider, spec\.requireSignature or spec\.webhookSecretRef/,
      ),
    );
    // Nothing half-made.
    await expect(kubectl(['get', 'webhook', 'to-production', '-n', ns.name])).rejects.toThrow(/NotFound/);
    await expect(kubectl(['get', 'bundle', 'manual-1', '-n', ns.name])).rejects.toThrow(/NotFound/);

    // "deploy" on one Environment opens that one alone.
    const deployPreview = role('deploy-preview', [
      {
        apiGroups: ['slipway.dev'],
        resources: ['environments'],
        resourceNames: ['preview'],
        verbs: ['deploy'],
      },
    ]);
    expect(await apply([deployPreview, boundToUser('deploy-preview')])).toEqual({ ok: true });
    await granted('environments.slipway.dev/preview');
    expect(
      await apply([webhookTo('to-preview', 'preview'), bundleTo('rollback-2', 'preview', 'Rollback')], USER),
    ).toEqual({
      ok: true,
    });
    expect(await apply([webhookTo('to-production', 'production')], USER)).toMatchObject(
      refusedWith(/you may not deploy to Environment production/),
    );
    // Re-pointing the allowed Webhook at another Environment is checked again.
    expect(await apply([webhookTo('to-preview', 'production')], USER)).toMatchObject(
      refusedWith(/you may not deploy to Environment production/),
    );
    expect(await apply([manual], USER)).toMatchObject(refusedWith(/may not create a Manual bundle/));

    // "deploy" on every Environment of the namespace: manual bundles and the repository too.
    const deployAll = role('deploy-all', [
      { apiGroups: ['slipway.dev'], resources: ['environments'], verbs: ['deploy'] },
    ]);
    expect(await apply([deployAll, boundToUser('deploy-all')])).toEqual({ ok: true });
    await granted('environments.slipway.dev');
    expect(await apply([manual, webhookTo('to-production', 'production'), moved], USER)).toEqual({
      ok: true,
    });
  });

  // (The user may deploy in the namespace from here on: the Secret checks are what is left.)
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
    // A Project without Secret references (nor a repository: see below), and the same ones from
    // the admin, are fine.
    expect(
      await apply([build.project('plain', inNs(), build.spec({ repository: undefined }))], USER),
    ).toEqual({
      ok: true,
    });
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
