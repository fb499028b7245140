// Promotions against a real API server with the chart's admission policies, the operator in-process
// and kwok playing the node, driven through `kubectl slipway` as namespace users: what staging
// runs goes to production by digest (no build Job), once the incident on its component is
// resolved and someone with the verb approve said yes; who may ask and who may approve is decided
// at admission.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import type { BundleObject, PromotionObject, StatusNoticeObject } from '../../../crds/index.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import { registry } from '../../../lib/metrics.ts';
import type { Operator } from '../../../operator/operator.ts';
import { bundle, inNamespace, spec, statusComponent, statusNotice, webhook } from '../../support/builders.ts';
import {
  controllerKubeConfig,
  kubectl,
  kubectlApply,
  testKubeConfig,
  waitFor,
} from '../../support/cluster.ts';
import { argoHealth } from '../../support/argocd-health.ts';
import { runPlugin } from '../../support/plugin.ts';
import {
  bundleInPhase,
  clients,
  conditionOf,
  createEnvironment,
  eventsFor,
  get,
  jobsOf,
  projectNamespace,
  startOperator,
  type TestNamespace,
} from './support.ts';

let kc: KubeConfig;
let ns: TestNamespace;
let operator: Operator;
let staged: BundleObject;
const api = () => clients(kc).slipway;

/** kubectl slipway as `user` (impersonated, as kubectl --as). */
const as = (user: string, ...args: string[]) => runPlugin(ns.name, ...args, '--as', user);
const kubectlAs = (user: string, ...args: string[]) =>
  kubectl([...args, '-n', ns.name, '--as', user]).then(
    () => 'allowed',
    (e: { stderr?: string }) => String(e.stderr),
  );
const promotionOf = (name: string) => api().get<PromotionObject>('Promotion', ns.name, name);
const readyOf = (p: PromotionObject) => p.status?.conditions?.find((c) => c.type === 'Ready');

function role(name: string, verbs: string[]) {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name, namespace: ns.name },
    rules: [
      { apiGroups: ['slipway.dev'], resources: ['*'], verbs },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list'] },
    ],
  };
}
const binding = (user: string) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name: user, namespace: ns.name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: user },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
});
const everything = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

beforeAll(async () => {
  kc = testKubeConfig();
  ns = await projectNamespace(kc, 'op-promotions');
  await createEnvironment(kc, ns.name, 'staging', { deployment: 'shop-staging', engine: 'mysql' });
  await createEnvironment(kc, ns.name, 'production', { deployment: 'shop-production', engine: 'mysql' });
  await api().create(
    'Webhook',
    webhook('main', inNamespace(ns.name), spec({ environmentRef: { name: 'staging' } })),
  );
  await kubectlApply([
    // alice deploys; bob approves; lead does both; mallory does neither.
    role('alice', [...everything, 'deploy']),
    role('bob', [...everything, 'approve']),
    role('lead', [...everything, 'deploy', 'approve']),
    role('mallory', everything),
    ...['alice', 'bob', 'lead', 'mallory'].map(binding),
    statusComponent('api', inNamespace(ns.name)),
    statusNotice(
      'db-latency',
      inNamespace(ns.name),
      spec({
        subject: 'Slow database',
        componentRefs: [{ name: 'api' }],
        updates: [
          { state: 'investigating', content: 'Looking.', at: '2026-01-02T03:04:05.000Z' },
          { state: 'identified', content: 'A slow disk.', at: '2026-01-02T03:14:05.000Z' },
        ],
      }),
    ),
  ]);
  operator = await startOperator(kc, ns.name);
  // What staging runs: a push's bundle (made by Slipway alone, so created as its identity).
  await slipwayApi(controllerKubeConfig()).create(
    'Bundle',
    bundle(
      'hook-1',
      inNamespace(ns.name),
      spec({
        // Committed an hour before the push: the lead time counts from it.
        source: {
          git: {
            commit: 'c'.repeat(40),
            branch: 'main',
            committedAt: new Date(Date.now() - 3_600_000).toISOString(),
          },
        },
        trigger: { type: 'Webhook', provider: 'github', webhookRef: { name: 'main' }, deliveryId: 'hook-1' },
        deploy: { environmentRef: { name: 'staging' }, backupBeforeDeploy: false },
      }),
    ),
  );
  staged = await bundleInPhase(kc, ns.name, 'hook-1', 'Ready');
});

afterAll(async () => {
  await operator?.stop();
  await ns?.remove();
});

describe('promotions', () => {
  it('waits while an incident is open on its component and nobody approved, and says which', async () => {
    const asked = await as(
      'alice',
      'promote',
      'staging',
      'production',
      '--no-incident',
      '--component',
      'api',
      '--approvals',
      '1',
    );
    expect(asked).toMatchObject({ code: 0 });
    const name = asked.stdout.trim();
    expect(name).toMatch(/^staging-to-production-\d{14}$/);
    const waiting = await waitFor('the promotion to wait on its gates', async () => {
      const p = await promotionOf(name);
      return readyOf(p)?.reason === 'IncidentOpen' ? p : undefined;
    });
    expect(waiting.spec.requestedBy).toBe('alice');
    expect(waiting.status).toMatchObject({ phase: 'Waiting', bundle: 'hook-1', image: staged.status?.image });
    expect(readyOf(waiting)).toMatchObject({
      status: 'False',
      message:
        'StatusNotice db-latency (identified) is open on component api; 0 of 1 approval: kubectl slipway promotion approve',
    });
    // Argo CD shows it as waiting on purpose, not broken.
    expect(argoHealth(waiting)).toMatchObject({ status: 'Suspended' });
    expect(waiting.status?.gates).toEqual([
      {
        name: 'noOpenIncident',
        met: false,
        message: 'StatusNotice db-latency (identified) is open on component api',
      },
      { name: 'approvals', met: false, message: '0 of 1 approval: kubectl slipway promotion approve' },
    ]);
    const list = await as('alice', 'promotion', 'list');
    expect(list.stdout).toMatch(
      new RegExp(`^${name} +shop +staging +production +hook-1 +Waiting +IncidentOpen `, 'm'),
    );
    // Nothing rolls out meanwhile.
    const bundles = await api().list<BundleObject>('Bundle', ns.name);
    expect(bundles.filter((b) => b.spec.trigger.type === 'Promotion')).toEqual([]);

    // Approving: not by someone without the verb approve, not in another's name.
    const refused = await as('alice', 'promotion', 'approve', name);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'approving rolls an image out, so it needs the verb approve on promotions.slipway.dev',
    );
    const forged = await kubectlAs(
      'bob',
      'patch',
      'promotion',
      name,
      '--type=merge',
      '-p',
      '{"spec":{"approvals":[{"user":"carol"}]}}',
    );
    expect(forged).toContain('bob may add only {user: bob} to spec.approvals');
    expect(await as('bob', 'promotion', 'approve', name)).toMatchObject({ code: 0 });
    const approved = await waitFor('the approval counted', async () => {
      const p = await promotionOf(name);
      return p.status?.approvals?.length ? p : undefined;
    });
    expect(approved.status?.approvals).toEqual([{ user: 'bob', at: expect.any(String) }]);
    expect(readyOf(approved)?.message).toBe('StatusNotice db-latency (identified) is open on component api');
    // Approvals only grow; the rest of the spec is fixed.
    expect(
      await kubectlAs(
        'bob',
        'patch',
        'promotion',
        name,
        '--type=json',
        '-p',
        '[{"op":"remove","path":"/spec/approvals/0"}]',
      ),
    ).toContain('approvals are only added');
    expect(
      await kubectlAs(
        'lead',
        'patch',
        'promotion',
        name,
        '--type=merge',
        '-p',
        '{"spec":{"to":{"environmentRef":{"name":"staging"}}}}',
      ),
    ).toContain("a Promotion's spec is fixed once made");

    // The incident resolved: production gets staging's image, by digest, with no build.
    const notice = await api().get<StatusNoticeObject>('StatusNotice', ns.name, 'db-latency');
    await kubectl([
      'patch',
      'statusnotice',
      'db-latency',
      '-n',
      ns.name,
      '--type=merge',
      '-p',
      JSON.stringify({
        spec: {
          updates: [
            ...notice.spec.updates!,
            { state: 'resolved', content: 'Fixed.', at: new Date().toISOString() },
          ],
        },
      }),
    ]);
    const followed = await as('alice', 'promotion', 'wait', name, '--timeout', '60s');
    expect(followed).toMatchObject({ code: 0 });
    expect(followed.stderr).toContain(
      `promotion ${name}: Succeeded: Promoted: production runs image ${staged.status?.image}`,
    );
    const done = await promotionOf(name);
    expect(done.status?.phase).toBe('Succeeded');
    const rollout = await get.bundle(kc, ns.name, done.status!.rolloutBundle!);
    expect(rollout.spec).toMatchObject({
      source: { bundleRef: { name: 'hook-1' } },
      trigger: { type: 'Promotion', promotionRef: { name } },
      deploy: { environmentRef: { name: 'production' } },
    });
    expect(conditionOf(rollout, 'Built')).toBe('True/Reused');
    expect(rollout.status?.image).toBe(staged.status?.image);
    expect(await jobsOf(kc, ns.name, rollout.metadata.name)).toEqual([]);
    const production = await get.deployment(kc, ns.name, 'shop-production');
    expect(production.spec?.template.spec?.containers[0]?.image).toBe(staged.status?.image);
    expect(await eventsFor(kc, ns.name, name)).toContain('Promoted');
  });

  it('refuses at admission a promotion asked in another name, one to an Environment its requester may not deploy to, and the requester’s own approval under separateApprover', async () => {
    const mallory = await as('mallory', 'promote', 'staging', 'production');
    expect(mallory.code).toBe(1);
    expect(mallory.stderr).toContain('you may not deploy to Environment production');
    const inBobsName = await kubectl(
      ['apply', '-n', ns.name, '--as', 'alice', '-f', '-'],
      JSON.stringify({
        apiVersion: 'slipway.dev/v1alpha1',
        kind: 'Promotion',
        metadata: { name: 'in-bobs-name' },
        spec: {
          projectRef: { name: 'shop' },
          from: { environmentRef: { name: 'staging' } },
          to: { environmentRef: { name: 'production' } },
          requestedBy: 'bob',
        },
      }),
    ).then(
      () => 'allowed',
      (e: { stderr?: string }) => String(e.stderr),
    );
    expect(inBobsName).toContain('spec.requestedBy must be your own user name, alice');
    const four = await as(
      'lead',
      'promote',
      'staging',
      'production',
      '--approvals',
      '1',
      '--separate-approver',
    );
    expect(four.code).toBe(0);
    const own = await as('lead', 'promotion', 'approve', four.stdout.trim());
    expect(own.code).toBe(1);
    expect(own.stderr).toContain('gates.separateApprover is set, so its requester lead may not approve it');
  });

  it('fails a promotion of a bundle that never ran on its source, and --wait says why', async () => {
    await api().create('Bundle', bundle('manual-1', inNamespace(ns.name)));
    await bundleInPhase(kc, ns.name, 'manual-1', 'Built');
    const run = await as(
      'alice',
      'promote',
      'staging',
      'production',
      '--bundle',
      'manual-1',
      '--wait',
      '--timeout',
      '60s',
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'bundle manual-1 was never deployed to staging: a promotion moves only what ran there',
    );
    const p = await promotionOf(run.stdout.trim());
    expect(p.status?.phase).toBe('Failed');
    expect(readyOf(p)?.reason).toBe('BundleNotDeployed');
  });

  it("an Environment's spec.promoteFrom promotes each bundle that becomes Ready on its source, once; setting it needs deploy there", async () => {
    await createEnvironment(kc, ns.name, 'demo', { deployment: 'shop-demo', engine: 'mysql' });
    const promoteFrom = JSON.stringify({ spec: { promoteFrom: { environmentRef: { name: 'staging' } } } });
    expect(
      await kubectlAs('mallory', 'patch', 'environment', 'demo', '--type=merge', '-p', promoteFrom),
    ).toContain('you may not deploy to Environment demo, so you may not change spec.promoteFrom');
    expect(await kubectlAs('alice', 'patch', 'environment', 'demo', '--type=merge', '-p', promoteFrom)).toBe(
      'allowed',
    );
    // What staging runs now goes to demo: the same image, asked for by the Environment.
    const made = await waitFor('the automatic promotion to succeed', async () => {
      const p = await promotionOf('hook-1-to-demo').catch(() => undefined);
      return p?.status?.phase === 'Succeeded' ? p : undefined;
    });
    expect(made.spec).toMatchObject({
      bundleRef: { name: 'hook-1' },
      requestedBy: 'slipway (spec.promoteFrom of Environment demo)',
    });
    const demo = await get.environment(kc, ns.name, 'demo');
    expect(demo.status?.autoPromotion).toMatchObject({ bundle: 'hook-1', promotion: 'hook-1-to-demo' });
    expect((await get.deployment(kc, ns.name, 'shop-demo')).spec?.template.spec?.containers[0]?.image).toBe(
      staged.status?.image,
    );

    // The four figures, as a person counts them: one rollout on each environment, none failed,
    // each an hour and a little after the commit (the promotions count from hook-1's commit).
    const stats = await as('alice', 'stats', 'shop', '--since', '1d', '-o', 'json');
    expect(stats).toMatchObject({ code: 0 });
    const { figures } = JSON.parse(stats.stdout) as { figures: Array<Record<string, unknown>> };
    expect(figures.map((f) => [f.environment, f.deployments, f.changeFailure, f.timeToRestore])).toEqual([
      ['demo', 1, { failed: 0, changes: 1, rate: 0 }, null],
      ['production', 1, { failed: 0, changes: 1, rate: 0 }, null],
      ['staging', 1, { failed: 0, changes: 1, rate: 0 }, null],
    ]);
    for (const f of figures) expect(f.leadTime).toEqual({ median: expect.any(Number), count: 1 });
    const leads = figures.map((f) => (f.leadTime as { median: number }).median);
    expect(Math.min(...leads)).toBeGreaterThanOrEqual(3600);
    expect(Math.max(...leads)).toBeLessThan(3600 + 600);
    // The operator's /metrics shows the same figures (last 30 days), from its caches.
    const metrics = (await registry.metrics())
      .split('\n')
      .filter((l) => l.startsWith('slipway_delivery_') && l.includes(`namespace="${ns.name}"`));
    const labels = (environment: string) =>
      `{namespace="${ns.name}",project="shop",environment="${environment}"}`;
    for (const environment of ['demo', 'production', 'staging']) {
      expect(metrics).toContain(`slipway_delivery_deployments${labels(environment)} 1`);
      expect(metrics).toContain(`slipway_delivery_change_failure_ratio${labels(environment)} 0`);
      const lead = metrics.find((l) =>
        l.startsWith(`slipway_delivery_lead_time_seconds${labels(environment)} `),
      );
      expect(Number(lead?.split(' ')[1])).toBeGreaterThanOrEqual(3600);
    }
    // No failure, nothing restored: no series.
    expect(metrics.filter((l) => l.startsWith('slipway_delivery_time_to_restore_seconds'))).toEqual([]);
    const table = await as('alice', 'stats', 'shop', '--since', '1d');
    expect(table.stdout).toMatch(
      /^PROJECT +ENVIRONMENT +DEPLOYMENTS +PER DAY +LEAD TIME +CHANGE FAILURE +TIME TO RESTORE$/m,
    );
    expect(table.stdout).toMatch(/^shop +production +1 +1\.00 +1h \d+m \(1\) +0% \(0\/1\) +-$/m);
  });
});
