// Notifications (Project spec.notifications) to receivers that answer on a real port: a signed
// generic-hmac POST per bundle that ends, Slack's and Teams' message formats for the events they
// ask for, retries as the receiver asks, nothing sent twice after a restart, and a receiver that
// refuses, or a Secret without its URL, shown on the Project without the URL.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import type { BundleObject, ProjectObject } from '../../../crds/index.ts';
import type { Operator } from '../../../operator/operator.ts';
import { bundle, environment, inNamespace, spec } from '../../support/builders.ts';
import { testKubeConfig, waitFor } from '../../support/cluster.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import {
  bundleInPhase,
  clients,
  createEnvironment,
  projectNamespace,
  startOperator,
  type TestNamespace,
} from './support.ts';

const COMMIT = 'feed'.padEnd(40, '1');
const HMAC_KEY = 'notify-test-hmac-key';
const URL_KEY = { SLIPWAY_ARCHIVE_URL_KEY: 'n'.repeat(32) };

let kc: KubeConfig;
let ns: TestNamespace;
let operator: Operator;
let receiver: Receiver;

const to = (path: string) => receiver.to(path);

beforeAll(async () => {
  kc = testKubeConfig();
  receiver = await startReceiver();
  const base = receiver.base;
  ns = await projectNamespace(kc, 'op-notify', {
    notifications: [
      { name: 'hooks', type: 'generic-hmac', secretRef: { name: 'hooks' } },
      { name: 'chat', type: 'slack', secretRef: { name: 'chat' }, events: ['BuildFailed', 'RolloutFailed'] },
      { name: 'teams', type: 'msteams', secretRef: { name: 'teams' }, events: ['Deployed'] },
    ],
  });
  const secret = (name: string, data: Record<string, string>) =>
    clients(kc).core.createNamespacedSecret({
      namespace: ns.name,
      body: { metadata: { name }, stringData: data },
    });
  await secret('hooks', { url: `${base}/hooks/secret-token\n`, hmacKey: HMAC_KEY });
  await secret('chat', { url: `${base}/services/T000/B000/slack-secret` });
  await secret('teams', { url: `${base}/workflows/teams-secret` });
  operator = await startOperator(kc, ns.name, URL_KEY);
});

afterAll(async () => {
  await operator?.stop();
  receiver?.close();
  await ns?.remove();
});

const commitBundle = (name: string, fields: Record<string, unknown> = {}) =>
  bundle(
    name,
    inNamespace(ns.name),
    spec({ source: { git: { commit: COMMIT, branch: 'main' } }, ...fields }),
  );

async function notifiedCondition(status: 'True' | 'False') {
  return waitFor(`the Project's Notified condition to be ${status}`, async () => {
    const project = await clients(kc).slipway.get<ProjectObject>('Project', ns.name, 'shop');
    const notified = project.status?.conditions?.find((c) => c.type === 'Notified');
    return notified?.status === status ? notified : undefined;
  });
}

describe('notifications', () => {
  it('signs a generic-hmac POST of the bundle that was built, waiting as long as the receiver asks', async () => {
    receiver.answers.set('/hooks/secret-token', [{ status: 503, headers: { 'retry-after': '1' } }]);
    await clients(kc).slipway.create('Bundle', commitBundle('notify-1'));
    await bundleInPhase(kc, ns.name, 'notify-1', 'Built');
    const [refused, taken] = await waitFor('the retried delivery', () => {
      const got = to('/hooks/secret-token');
      return got.length >= 2 ? got : undefined;
    });
    expect(taken!.at - refused!.at).toBeGreaterThanOrEqual(950);
    expect(taken!.raw).toBe(refused!.raw);
    expect(taken!.headers['content-type']).toBe('application/json');
    expect(taken!.headers['x-signature']).toBe(
      `sha256=${createHmac('sha256', HMAC_KEY).update(taken!.raw).digest('hex')}`,
    );
    expect(taken!.body).toEqual({
      event: 'Built',
      severity: 'info',
      project: 'shop',
      namespace: ns.name,
      bundle: 'notify-1',
      commit: COMMIT,
      branch: 'main',
      environment: null,
      message: expect.any(String),
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      url: expect.stringMatching(new RegExp(`/bundles/${ns.name}/notify-1/`)),
    });
    const b = await waitFor('status.notified', async () => {
      const got = await clients(kc).slipway.get<BundleObject>('Bundle', ns.name, 'notify-1');
      return got.status?.notified?.length ? got : undefined;
    });
    expect(b.status?.notified).toEqual([{ name: 'hooks', event: 'Built' }]);
    expect((await notifiedCondition('True')).message).toBe('Built of bundle notify-1 was sent to hooks');
    // Slack and Teams asked for other events.
    expect(receiver.deliveries.filter((d) => !d.path.startsWith('/hooks/'))).toEqual([]);
  });

  it('tells Teams (an Adaptive Card) and the generic receiver of a rollout', async () => {
    await createEnvironment(kc, ns.name, 'staging', { deployment: 'shop-web', engine: 'mysql' });
    await clients(kc).slipway.create(
      'Bundle',
      commitBundle('notify-2', {
        deploy: { environmentRef: { name: 'staging' }, backupBeforeDeploy: false },
      }),
    );
    await bundleInPhase(kc, ns.name, 'notify-2', 'Ready');
    const teams = await waitFor('the Teams message', () => to('/workflows/teams-secret')[0]);
    type Card = {
      contentType: string;
      content: { body: Array<Record<string, unknown> & { facts?: unknown[] }>; actions: unknown[] };
    };
    const card = (teams.body.attachments as Card[])[0]!;
    expect(card.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(card.content).toMatchObject({ type: 'AdaptiveCard', version: '1.4' });
    expect(card.content.body[0]).toMatchObject({
      type: 'TextBlock',
      text: 'shop: deployed notify-2 to staging',
    });
    expect(card.content.body.at(-1)!.facts).toContainEqual({ title: 'Environment', value: 'staging' });
    expect(card.content.actions[0]).toMatchObject({
      type: 'Action.OpenUrl',
      url: expect.stringMatching(/\/bundles\/.+\/notify-2\//),
    });
    const generic = await waitFor('the generic Deployed', () =>
      to('/hooks/secret-token').find((d) => d.body.event === 'Deployed'),
    );
    expect(generic.body).toMatchObject({ bundle: 'notify-2', environment: 'staging', severity: 'info' });
  });

  it('tells Slack of a failed rollout in its message format', async () => {
    // An Environment whose Deployment does not exist: the bundle waits 10 s for it, then fails.
    await clients(kc).slipway.create(
      'Environment',
      environment(
        'nowhere',
        inNamespace(ns.name),
        spec({
          deploymentRef: { name: 'missing' },
          waitTimeoutSeconds: 10,
          database: undefined,
          backupStorage: undefined,
        }),
      ),
    );
    await clients(kc).slipway.create(
      'Bundle',
      commitBundle('notify-3', {
        deploy: { environmentRef: { name: 'nowhere' }, backupBeforeDeploy: false },
      }),
    );
    await bundleInPhase(kc, ns.name, 'notify-3', 'Failed');
    const slack = await waitFor('the Slack message', () => to('/services/T000/B000/slack-secret')[0]);
    expect(slack.body.text).toMatch(
      /^<http.+\/notify-3\/[^|]*\|shop: the rollout of notify-3 to nowhere failed>$/,
    );
    expect(slack.body.attachments).toEqual([
      expect.objectContaining({
        color: 'danger',
        text: expect.stringMatching(/missing/),
        fields: expect.arrayContaining([{ title: 'Branch', value: 'main', short: true }]),
      }),
    ]);
    const generic = await waitFor('the generic RolloutFailed', () =>
      to('/hooks/secret-token').find((d) => d.body.event === 'RolloutFailed'),
    );
    expect(generic.body.severity).toBe('error');
  });

  it('sends nothing twice after a restart', async () => {
    const notified = { 'notify-1': 1, 'notify-2': 2, 'notify-3': 2 };
    await waitFor('every notification on its bundle', async () => {
      for (const [name, count] of Object.entries(notified)) {
        const got = await clients(kc).slipway.get<BundleObject>('Bundle', ns.name, name);
        if (got.status?.notified?.length !== count) return false;
      }
      return true;
    });
    await operator.stop();
    const before = receiver.deliveries.length;
    operator = await startOperator(kc, ns.name, URL_KEY);
    await operator.idle();
    await operator.deliveries.idle();
    expect(receiver.deliveries.length).toBe(before);
  });

  it('shows a receiver that refuses, and a Secret without its key, on the Project without their URLs', async () => {
    receiver.answers.set('/hooks/secret-token', [{ status: 404 }]);
    await clients(kc).slipway.create('Bundle', commitBundle('notify-4'));
    const refused = await notifiedCondition('False');
    expect(refused.reason).toBe('NotificationFailed');
    expect(refused.message).toBe(
      'receiver hooks (generic-hmac) did not take Built of bundle notify-4: HTTP 404 Not Found',
    );
    // Of a refusing answer only its status and standard reason are kept: never what it says (a
    // receiver's answer could be any service's banner), nor the URL it echoes (a credential).
    expect(refused.message).not.toMatch(/secret-token|welcome/);
    // A receiver whose Secret has no HMAC key.
    await clients(kc).core.createNamespacedSecret({
      namespace: ns.name,
      body: {
        metadata: { name: 'hooks-unsigned' },
        stringData: { url: `${receiver.base}/hooks/secret-token` },
      },
    });
    const project = await clients(kc).slipway.get<ProjectObject>('Project', ns.name, 'shop');
    await clients(kc).slipway.patch('Project', ns.name, 'shop', {
      spec: {
        notifications: project.spec.notifications!.map((n) =>
          n.name === 'hooks' ? { ...n, secretRef: { name: 'hooks-unsigned' } } : n,
        ),
      },
    });
    const generation = (await clients(kc).slipway.get<ProjectObject>('Project', ns.name, 'shop')).metadata
      .generation;
    await waitFor(
      'the operator to see the new Secret',
      () => operator.context.informers.projects.get(ns.name, 'shop')?.metadata.generation === generation,
    );
    await clients(kc).slipway.create('Bundle', commitBundle('notify-5'));
    const incomplete = await waitFor('NotificationSecretIncomplete', async () => {
      const project = await clients(kc).slipway.get<ProjectObject>('Project', ns.name, 'shop');
      const c = project.status?.conditions?.find((c) => c.type === 'Notified');
      return c?.reason === 'NotificationSecretIncomplete' ? c : undefined;
    });
    expect(incomplete.message).toBe(
      'notification hooks: Secret hooks-unsigned has no non-empty key hmacKey (type generic-hmac signs with it)',
    );
  });
});
