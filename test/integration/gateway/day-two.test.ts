// Day two on a real API server, with kwok playing the node. Freeze and resume (spec.suspend): a push to a
// suspended project is taken and answered "suspended": true, but not built; a suspended
// environment lets the build finish and holds the rollout; `kubectl slipway resume` lets each go
// on, and the Deployment gets the pushed image only then. Only those with the verb deploy may
// freeze: a namespace user without it is refused by the admission policy, with the reason.
// Reconcile now (kubectl slipway reconcile): the operator looks again at once and says so in
// status.lastHandledReconcileAt.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BundleObject } from '../../../crds/index.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import { logger } from '../../../lib/log.ts';
import { SLIPWAY_VERSION } from '../../../lib/version.ts';
import * as build from '../../support/builders.ts';
import { createNamespace, kubectl, kubectlApply, testKubeConfig, waitFor } from '../../support/cluster.ts';
import { githubPush } from '../../support/github-push.ts';
import { runPlugin } from '../../support/plugin.ts';
import { BUILD_NAMESPACE, clients, webDeployment } from '../operator/support.ts';
import { publishedWebhook, startGatewayAndOperator, type GatewayAndOperator } from './support.ts';

const kc = testKubeConfig();
const api = slipwayApi(kc);
const log = logger.child({ test: 'suspend' }, { level: process.env.SLIPWAY_TEST_LOG_LEVEL ?? 'silent' });
const USER = 'release-manager';
let ns: { name: string; remove: () => Promise<void> };
let slipway: GatewayAndOperator;
let hook: { url: string; secret: string };

const ready = (b: BundleObject) => b.status?.conditions?.find((c) => c.type === 'Ready');
/** The bundle, once `holds` is true of it. */
const bundleWhen = (name: string, what: string, holds: (b: BundleObject) => boolean) =>
  waitFor(`bundle ${name} ${what}`, async () => {
    const b = await api.get<BundleObject>('Bundle', ns.name, name);
    return holds(b) ? b : undefined;
  });
const runningImage = async () =>
  (await clients(kc).apps.readNamespacedDeployment({ name: 'shop-web', namespace: ns.name })).spec?.template
    ?.spec?.containers?.[0]?.image;
/** kubectl as the namespace user; the refusal's text when refused. */
const asUser = (...args: string[]) =>
  kubectl([...args, '-n', ns.name, '--as', USER]).then(
    () => 'allowed',
    (err: { stderr?: string }) => err.stderr ?? String(err),
  );

beforeAll(async () => {
  ns = await createNamespace(kc, 'suspend');
  slipway = await startGatewayAndOperator(kc, ns.name, log);
  const inNs = build.inNamespace(ns.name);
  await clients(kc).apps.createNamespacedDeployment({
    namespace: ns.name,
    body: webDeployment(ns.name, 'shop-web'),
  });
  await kubectlApply([
    build.project('shop', inNs, build.spec({ slug: `shop-${ns.name.slice(-6)}` })),
    build.environment('staging', inNs),
    build.webhook('main', inNs, build.spec({ environmentRef: { name: 'staging' } })),
    build.bundle('shop-manual', inNs),
    // A release manager: every Slipway kind, and deploy on staging only.
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: USER, namespace: ns.name },
      rules: [
        {
          apiGroups: ['slipway.dev'],
          resources: ['*'],
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'],
        },
        {
          apiGroups: ['slipway.dev'],
          resources: ['environments'],
          resourceNames: ['staging'],
          verbs: ['deploy'],
        },
        // Read rights on the namespace, as the view role gives them.
        { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list'] },
        { apiGroups: [''], resources: ['pods', 'events'], verbs: ['get', 'list'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: USER, namespace: ns.name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: USER },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
    },
  ]);
  hook = await publishedWebhook(kc, ns.name, 'shop');
});

afterAll(async () => {
  await slipway?.stop();
  await ns?.remove();
});

describe('freeze and resume', () => {
  it('only those who may deploy freeze: an environment with deploy on it, a project with deploy on all', async () => {
    await waitFor(
      `${USER} to have the Role`,
      async () =>
        (await asUser('auth', 'can-i', 'deploy', 'environments/staging')) === 'allowed' || undefined,
    );
    const patch = (kind: string, name: string, suspend: boolean | null) =>
      asUser('patch', kind, name, '--type=merge', '-p', JSON.stringify({ spec: { suspend } }));
    expect(await patch('project', 'shop', true)).toMatch(
      /Project shop: you may not deploy to the Environments of namespace suspend-\w+, so you may not change spec\.suspend/,
    );
    expect(await patch('environment', 'staging', true)).toBe('allowed');
    expect(await patch('environment', 'staging', null)).toBe('allowed');
    // Other changes of a suspended project need no deploy.
    await kubectl([
      'patch',
      'project',
      'shop',
      '-n',
      ns.name,
      '--type=merge',
      '-p',
      '{"spec":{"suspend":true}}',
    ]);
    expect(await asUser('annotate', 'project', 'shop', 'team=web')).toBe('allowed');
  });

  it('a push to a suspended project is taken and answered "suspended", and builds on resume', async () => {
    const res = await githubPush(hook.url, hook.secret, {
      branch: 'main',
      commit: 'b'.repeat(40),
      message: 'v2',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ result: 'created', suspended: true });
    const name = res.body.bundles![0]!.name;
    const held = await bundleWhen(name, 'to wait for the resume', (b) => ready(b)?.reason === 'Suspended');
    expect(held.status?.phase).toBe('Pending');
    expect(ready(held)?.message).toContain('kubectl slipway resume project shop');
    expect(held.status?.buildJob).toBeUndefined();

    // The environment frozen too: the build goes on once the project resumes, the rollout does not.
    expect((await runPlugin(ns.name, 'suspend', 'environment', 'staging')).code).toBe(0);
    const before = await runningImage();
    const resumed = await runPlugin(ns.name, 'resume', 'project', 'shop');
    expect(resumed).toMatchObject({ code: 0, stdout: 'shop\n' });
    expect(resumed.stderr).toContain(`1 bundle waiting go on (${name})`);
    const built = await bundleWhen(
      name,
      'to be built and held by the environment',
      (b) => b.status?.phase === 'Built' && ready(b)?.reason === 'Suspended',
    );
    expect(built.status?.conditions?.find((c) => c.type === 'Deployed')).toMatchObject({
      status: 'Unknown',
      reason: 'Suspended',
    });
    expect(await runningImage()).toBe(before);
    const [header, row] = (await kubectl(['get', 'environment', 'staging', '-n', ns.name])).stdout
      .trim()
      .split('\n');
    expect(header).toMatch(/SUSPENDED/);
    expect(row).toMatch(/true/);

    // Resumed: the bundle rolls out.
    expect((await runPlugin(ns.name, 'resume', 'environment', 'staging')).stderr).toContain(name);
    const done = await bundleWhen(name, 'to be Ready', (b) => b.status?.phase === 'Ready');
    expect(await runningImage()).toBe(done.status?.image);
  });

  it("kubectl slipway tree shows the project, with a namespace user's read rights", async () => {
    const run = await runPlugin(ns.name, 'tree', 'project', 'shop', '--as', USER);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^Project\/shop {2}Ready=True/);
    expect(lines).toContain('├── Webhook/main  Ready=True Valid');
    expect(lines.some((l) => /^├── Environment\/staging {2}Ready=True/.test(l))).toBe(true);
    expect(lines.some((l) => /^│ {3}└── Deployment\/shop-web {2}\d+\/1 ready$/.test(l))).toBe(true);
    expect(lines.some((l) => /── Bundle\/shop-manual {2}Built/.test(l))).toBe(true);
    expect(lines.some((l) => /── Job\/\S+\/\S+ {2}build$/.test(l))).toBe(true);
  });

  it("kubectl slipway events shows the project's Events and its bundles', oldest first", async () => {
    const run = await runPlugin(ns.name, 'events', 'project', 'shop', '--as', USER);
    expect(run.code).toBe(0);
    const [header, ...rows] = run.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/);
    // The bundles' own: the push built, then (after the resume) deployed.
    const reasons = rows.filter((r) => r.includes('Bundle/')).map((r) => r.split(/\s{2,}/)[2]);
    expect(reasons).toContain('Built');
    expect(reasons.indexOf('Built')).toBeLessThan(reasons.lastIndexOf('Deployed'));
    expect(
      rows.every((r) => /(Project|Webhook|Environment|Deployment|Pod|Bundle|Job|Preview)\//.test(r)),
    ).toBe(true);
  });
});

describe('reconcile now', () => {
  it('kubectl slipway reconcile --wait returns once the operator has looked again, with Ready', async () => {
    for (const [kind, name] of [
      ['project', 'shop'],
      ['environment', 'staging'],
      ['webhook', 'main'],
    ] as const) {
      const run = await runPlugin(ns.name, 'reconcile', kind, name, '--wait', '--timeout', '60s');
      expect(run).toMatchObject({ code: 0, stdout: `${name}\n` });
      expect(run.stderr).toMatch(new RegExp(`${kind} ${name} looked at again: Ready True`));
      const { stdout } = await kubectl([
        'get',
        kind,
        name,
        '-n',
        ns.name,
        '-o',
        'jsonpath={.metadata.annotations.slipway\\.dev/requested-at} {.status.lastHandledReconcileAt}',
      ]);
      const [requested, handled] = stdout.split(' ');
      expect(handled).toBe(requested);
    }
  });

  it('a waiting bundle is decided again; a finished one is left alone, and the CLI says so', async () => {
    const res = await githubPush(hook.url, hook.secret, {
      branch: 'main',
      commit: 'c'.repeat(40),
      message: 'v3',
    });
    const name = res.body.bundles![0]!.name;
    await kubectl(['delete', 'environment', 'staging', '-n', ns.name]);
    await bundleWhen(name, 'to wait for its environment', (b) => ready(b)?.reason === 'EnvironmentNotFound');
    const run = await runPlugin(ns.name, 'reconcile', 'bundle', name, '--wait');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`bundle ${name} looked at again: Ready False (EnvironmentNotFound)`);
    const finished = await runPlugin(ns.name, 'reconcile', 'bundle', 'shop-manual');
    expect(finished).toMatchObject({ code: 1 });
    expect(finished.stderr).toContain('bundle shop-manual has finished: there is nothing to look at again');
  });
});

describe('check and version', () => {
  it('kubectl slipway check --pre: the Kubernetes version, the admission API and where builds run', async () => {
    const run = await runPlugin(ns.name, 'check', '--pre');
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^✔ kubernetes: v1\.\d+\.\d+\S* \(1\.30 or newer is needed\)$/);
    expect(lines[1]).toBe(
      '✔ admission API: ValidatingAdmissionPolicy is served (admissionregistration.k8s.io/v1)',
    );
    expect(lines[2]).toBe(
      `✔ build namespace: ${BUILD_NAMESPACE}: Pod Security enforce=privileged, as rootless BuildKit needs`,
    );
    expect(run.stderr).toBe('all checks passed\n');
  });

  it('kubectl slipway check as a namespace user: the install acts, the operator looks, the gateway answers', async () => {
    const run = await runPlugin(ns.name, 'check', '--as', USER, '-o', 'json');
    const { checks, failed } = JSON.parse(run.stdout) as {
      checks: Array<{ check: string; state: string; message: string }>;
      failed: number;
    };
    const byName = Object.fromEntries(checks.map((c) => [c.check, c]));
    expect(byName['build namespace']).toMatchObject({
      state: 'warn',
      message: expect.stringMatching(/^cannot tell: /),
    });
    expect(byName.CRDs).toMatchObject({ state: 'ok', message: '9 kinds served (slipway.dev/v1alpha1)' });
    // Without the right to list policies, a dry run shows they act.
    expect(byName['admission policies']).toMatchObject({
      state: 'ok',
      message: 'acting: a push bundle from you is refused by slipway-writers (dry run)',
    });
    expect(byName.operator).toMatchObject({
      state: 'ok',
      message: `${SLIPWAY_VERSION} looks at the 1 project(s) of ${ns.name}`,
    });
    expect(byName.gateway).toMatchObject({
      state: 'ok',
      message: `${slipway.baseUrl}/upload.sh answers 200`,
    });
    expect(byName['status API']).toMatchObject({ state: 'warn' });
    expect([run.code, failed]).toEqual([0, 0]);
    // Nothing was stored by the dry run.
    expect((await api.list<BundleObject>('Bundle', ns.name)).map((b) => b.metadata.name)).not.toContain(
      'slipway-check-probe',
    );
  });

  it('check fails, saying where, when the gateway does not answer; the admin sees the policies listed', async () => {
    // A port nothing listens on: one just let go of.
    const closed = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => closed.once('listening', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const run = await runPlugin(ns.name, 'check', '--gateway-url', `http://127.0.0.1:${port}`);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('✔ admission policies: 6 policies installed and bound');
    expect(run.stdout).toMatch(
      new RegExp(`✗ gateway: http://127\\.0\\.0\\.1:${port}/upload\\.sh does not answer: ECONNREFUSED`),
    );
    expect(run.stderr).toBe('1 check(s) failed\n');
  });

  it("kubectl slipway version: the CLI's, and the operator's as the namespace's projects record it", async () => {
    const run = await runPlugin(ns.name, 'version', '--as', USER);
    expect(run).toMatchObject({
      code: 0,
      stdout: `client: ${SLIPWAY_VERSION}\noperator: ${SLIPWAY_VERSION} (projects shop)\n`,
    });
    const json = await runPlugin(ns.name, 'version', '-o', 'json');
    expect(JSON.parse(json.stdout)).toEqual({
      client: SLIPWAY_VERSION,
      operators: [{ version: SLIPWAY_VERSION, projects: ['shop'] }],
    });
  });
});
