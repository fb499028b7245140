// A promotion on the real node with the installed release, through `kubectl slipway` as namespace
// users: a push builds and serves on staging; its promotion to production waits while an
// incident is open on its component and says so; a user without the verb approve is refused, one
// with it approves; the incident resolved, production serves staging's page from the same digest
// with no second build Job; a rollback of production returns to the image before; `stats` prints
// the four figures as the bundles count them. One step of test/e2e/installed.test.ts.
import { BatchV1Api } from '@kubernetes/client-node';
import { expect } from '@jest/globals';
import type { BundleObject, PromotionObject } from '../../../crds/index.ts';
import { LABEL_BUNDLE } from '../../../crds/labels.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import { DEFAULT_BUILD_NAMESPACE } from '../../../rules/build-namespace.ts';
import { inNamespace, spec, statusComponent, statusNotice } from '../../support/builders.ts';
import { kubectlApply, testKubeConfig, waitFor } from '../../support/cluster.ts';
import { githubPush } from '../../support/github-push.ts';
import { runPlugin } from '../../support/plugin.ts';
import { finalBundle, servedPage } from '../support/chain.ts';
import { databaseSecret, siteEnvironment, webDeployment } from '../support/site-objects.ts';
import type { InstalledScene } from './scene.ts';

const kc = testKubeConfig();
const api = slipwayApi(kc);

function role(namespace: string, user: string, verbs: string[]) {
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: user, namespace },
      rules: [
        { apiGroups: ['slipway.dev'], resources: ['*'], verbs },
        { apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: user, namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: user },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    },
  ];
}

export async function promotesWhatStagingRan({ ns, node, git, mariadb, hookUrl, secret }: InstalledScene) {
  const web = node.baseImages['static-web']!;
  const as = (user: string, ...args: string[]) => runPlugin(ns.name, ...args, '--as', user);
  const everything = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
  await kubectlApply(
    [
      webDeployment('site-production', web, 60),
      databaseSecret('db-production', mariadb),
      siteEnvironment('production', 'mysql'),
      ...role(ns.name, 'alice', [...everything, 'deploy']),
      ...role(ns.name, 'bob', [...everything, 'approve']),
      ...role(ns.name, 'mallory', everything),
      statusComponent('web', inNamespace(ns.name)),
    ],
    '-n',
    ns.name,
  );
  // Production first gets what staging runs now, with no gates: the image a rollback returns to.
  const first = await as('alice', 'promote', 'staging', 'production', '--wait', '--timeout', '5m');
  expect(first).toMatchObject({ code: 0 });
  const before = (await api.get<PromotionObject>('Promotion', ns.name, first.stdout.trim())).status!;

  // A push builds and serves on staging.
  const v4 = await git.commit({ 'web/index.html': '<h1>Installed v4, promoted</h1>\n' }, 'Fourth version');
  const pushed = await githubPush(hookUrl, secret, { branch: 'main', commit: v4, message: 'Fourth version' });
  expect(pushed.status).toBe(201);
  const staged = await finalBundle(kc, ns.name, pushed.body.bundles![0]!.name);
  expect(staged.status?.phase).toBe('Ready');
  const page = '200 <h1>Installed v4, promoted</h1>\n';
  expect(await servedPage(kc, ns.name, 'site-staging', web.port, staged.metadata.name)).toBe(page);

  // An incident is open on its component: the promotion waits and says so.
  await kubectlApply([
    statusNotice(
      'web-errors',
      inNamespace(ns.name),
      spec({
        subject: 'Errors on the web tier',
        componentRefs: [{ name: 'web' }],
        updates: [{ state: 'identified', content: 'A bad node.', at: new Date().toISOString() }],
      }),
    ),
  ]);
  const asked = await as(
    'alice',
    'promote',
    'staging',
    'production',
    '--no-incident',
    '--component',
    'web',
    '--approvals',
    '1',
    '--backup',
  );
  expect(asked).toMatchObject({ code: 0 });
  const name = asked.stdout.trim();
  const waiting = await waitFor(
    'the promotion to wait on the incident',
    async () => {
      const p = await api.get<PromotionObject>('Promotion', ns.name, name);
      return p.status?.conditions?.find((c) => c.type === 'Ready' && c.reason === 'IncidentOpen');
    },
    60_000,
    250,
  );
  expect(waiting.message).toContain('StatusNotice web-errors (identified) is open on component web');

  // Approved by one who may, not by one who may not.
  const refused = await as('mallory', 'promotion', 'approve', name);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('it needs the verb approve on promotions.slipway.dev');
  expect(await as('bob', 'promotion', 'approve', name)).toMatchObject({ code: 0 });
  const resolvedAt = Date.now();
  expect(
    await runPlugin(ns.name, 'notice', 'resolve', 'web-errors', '--message', 'Replaced the node.'),
  ).toMatchObject({ code: 0 });
  const followed = await as('alice', 'promotion', 'wait', name, '--timeout', '5m');
  expect(followed).toMatchObject({ code: 0 });
  console.log(
    `installed: incident resolved to production promoted: ${((Date.now() - resolvedAt) / 1000).toFixed(1)} s`,
  );

  // The same digest serves staging's page on production, and nothing was built again.
  const done = await api.get<PromotionObject>('Promotion', ns.name, name);
  expect(done.status).toMatchObject({
    phase: 'Succeeded',
    bundle: staged.metadata.name,
    image: staged.status?.image,
  });
  const rollout = await api.get<BundleObject>('Bundle', ns.name, done.status!.rolloutBundle!);
  expect(rollout.status?.image).toBe(staged.status?.image);
  expect(rollout.status?.backup?.location).toMatch(/^pvc:\/\/backups\/site\/production\//);
  expect(await servedPage(kc, ns.name, 'site-production', web.port, rollout.metadata.name)).toBe(page);
  const builds = await kc.makeApiClient(BatchV1Api).listNamespacedJob({
    namespace: DEFAULT_BUILD_NAMESPACE,
    labelSelector: `${LABEL_BUNDLE}=${rollout.metadata.name}`,
  });
  expect(builds.items).toEqual([]);

  // A rollback of production returns to the image before the promotion.
  const back = await as('alice', 'rollback', 'production', '--wait', '--timeout', '5m');
  expect(back).toMatchObject({ code: 0 });
  const restored = await api.get<BundleObject>('Bundle', ns.name, back.stdout.trim());
  expect(restored.status?.image).toBe(before.image);
  expect(await servedPage(kc, ns.name, 'site-production', web.port, restored.metadata.name)).not.toBe(page);

  // The four figures, as the bundles count them by hand.
  const stats = await as('alice', 'stats', 'site', '--since', '1d', '-o', 'json');
  expect(stats).toMatchObject({ code: 0 });
  const figures = (JSON.parse(stats.stdout) as { figures: Array<Record<string, unknown>> }).figures;
  const bundles = await api.list<BundleObject>('Bundle', ns.name);
  const readyOn = (environment: string) =>
    bundles.filter(
      (b) =>
        b.spec.deploy?.environmentRef.name === environment &&
        b.status?.phase === 'Ready' &&
        b.spec.trigger.type !== 'Rollback',
    );
  const production = figures.find((f) => f.environment === 'production');
  // Two promotions rolled out; the second was rolled back: one failed change of two, restored once;
  // only the second knows its commit's time (the first promoted an upload).
  expect(readyOn('production')).toHaveLength(2);
  expect(production).toMatchObject({
    deployments: 2,
    changeFailure: { failed: 1, changes: 2, rate: 0.5 },
    timeToRestore: { count: 1 },
    leadTime: { count: 1 },
  });
  const staging = figures.find((f) => f.environment === 'staging');
  expect(staging).toMatchObject({
    deployments: readyOn('staging').length,
    changeFailure: { failed: 0, changes: readyOn('staging').length },
    leadTime: { count: readyOn('staging').filter((b) => b.spec.source.git?.committedAt).length },
  });
  const table = await as('alice', 'stats', 'site', '--since', '1d');
  console.log(`installed: kubectl slipway stats site\n${table.stdout}`);
  expect(table.stdout).toMatch(/^site +production +2 +2\.00 +.+ \(1\) +50% \(1\/2\) +.+ \(1\)$/m);
}
