// The webhook gateway run in-process as its own ServiceAccount, granted exactly
// webhook-gateway/rbac.ts through a ClusterRole bound cluster-wide (the chart's default, with no
// watchNamespace): its informers sync across all namespaces, a signed push becomes a Bundle,
// and nothing it does is forbidden. It cannot do more than the list says.
import { withToken } from '../../../rules/webhook-url.ts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import type { BundleObject, ProjectObject } from '../../../crds/index.ts';
import { kubeClients, slipwayApi } from '../../../lib/kube.ts';
import type { Operator } from '../../../operator/operator.ts';
import { GATEWAY_ACCESS_NAME } from '../../../operator/project/gateway-access.ts';
import { bundleWriter, ClusterAdapter } from '../../../webhook-gateway/cluster-adapter.ts';
import { createGateway, FilesystemArchiveStore } from '../../../webhook-gateway/index.ts';
import { gatewayRules } from '../../../webhook-gateway/rbac.ts';
import { bundle, webhook, inNamespace, spec } from '../../support/builders.ts';
import { testKubeConfig, waitFor } from '../../support/cluster.ts';
import { canI, canIEach, processIdentity, statusOf, type ProcessIdentity } from '../../support/rbac.ts';
import { signedFixture } from '../../unit/webhook-gateway/support/fixtures.ts';
import { clients, createProject, startOperator } from '../operator/support.ts';

const admin = testKubeConfig();
const archiveDir = mkdtempSync(join(tmpdir(), 'slipway-rbac-archives-'));
let gateway: ProcessIdentity;
let ns: string;
let asGateway: KubeConfig;
let cluster: ClusterAdapter;
let server: Server;
let baseUrl: string;
let operator: Operator;

beforeAll(async () => {
  gateway = await processIdentity(admin, 'rbac-gateway', 'slipway-gateway', () => [{ rules: gatewayRules }], {
    writer: true,
  });
  ({ namespace: ns, kubeConfig: asGateway } = gateway);

  // All namespaces, as the chart runs it by default.
  cluster = new ClusterAdapter(asGateway, undefined, gateway.log);
  server = createServer();
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const handlers = createGateway({
    publicBaseUrl: baseUrl,
    projectBySlug: cluster.projectBySlug,
    createBundles: bundleWriter(slipwayApi(asGateway), cluster.bundleByName),
    archiveStore: new FilesystemArchiveStore(archiveDir),
    isReady: () => cluster.synced(),
    logger: gateway.log,
  });
  server.on('request', handlers.handleRequest);
  server.on('checkContinue', handlers.handleCheckContinue);
  await gateway.within(cluster.start(), 30_000, "the gateway's caches to sync");

  // The operator (as admin: not under test here) publishes the project's webhook URL.
  // It also grants the gateway's ServiceAccount `get` on exactly the webhook Secrets.
  operator = await startOperator(admin, ns, {
    SLIPWAY_GATEWAY_BASE_URL: baseUrl,
    SLIPWAY_GATEWAY_SERVICE_ACCOUNT: `${ns}/slipway-gateway`,
  });
});

afterAll(async () => {
  await operator?.stop();
  await cluster?.stop();
  server?.close();
  await gateway?.remove();
  rmSync(archiveDir, { recursive: true, force: true });
});

describe('gateway under its service account', () => {
  it('turns a signed push into a Bundle, with no call forbidden', async () => {
    const { slipway, core } = clients(admin);
    await createProject(admin, ns);
    await slipway.create('Webhook', webhook('master', inNamespace(ns), spec({ branch: 'master' })));
    await slipway.create('Bundle', bundle('shop-manual-1', inNamespace(ns)));
    const published = await waitFor('the webhook URL', async () => {
      const p = await slipway.get<ProjectObject>('Project', ns, 'shop');
      return p.status?.webhook;
    });
    const secret = await core.readNamespacedSecret({ name: published.secretRef.name, namespace: ns });
    const value = Buffer.from(secret.data![published.secretRef.key]!, 'base64').toString('utf8');

    const { headers, body } = signedFixture('github-push', value);
    // status.webhook.url leaves out the token: whoever may read the Secret derives it.
    const slug = (await slipway.get<ProjectObject>('Project', ns, 'shop')).status!.slug!;
    const url = withToken(published.url, slug, value);
    // Until the gateway's informers have seen the manual bundle it answers 422: deliver again.
    const answer = await waitFor('the push to be accepted', async () => {
      const res = await fetch(url, { method: 'POST', headers, body });
      return res.status === 422 ? undefined : { status: res.status, body: await res.json() };
    });
    expect(answer).toMatchObject({ status: 201, body: { result: 'created' } });
    // A redelivery: the bundle under its name is read back, found the same build.
    const again = await fetch(url, { method: 'POST', headers, body });
    expect({ status: again.status, body: await again.json() }).toMatchObject({
      status: 200,
      body: { result: 'duplicate' },
    });

    const made = (await slipway.list<BundleObject>('Bundle', ns)).filter(
      (b) => b.spec.trigger.type === 'Webhook',
    );
    expect(made).toHaveLength(1);
    expect(made[0]!.spec.trigger).toMatchObject({ provider: 'github', webhookRef: { name: 'master' } });
    expect(cluster.synced()).toBe(true);
    expect(gateway.forbidden()).toEqual([]);
  });

  it('can do what its list says, and no more', async () => {
    const expected = {
      'create slipway.dev/bundles': 'yes',
      'get slipway.dev/bundles': 'yes',
      'list slipway.dev/projects in default': 'yes',
      'get /secrets in default': 'no',
      'list /secrets in default': 'no',
      'watch /secrets in default': 'no',
      'delete slipway.dev/bundles': 'no',
      'update slipway.dev/bundles': 'no',
      'patch slipway.dev/bundles/status': 'no',
      'create /secrets': 'no',
      'update /secrets': 'no',
      'create events.k8s.io/events': 'no',
      'create /events': 'no',
      'create slipway.dev/projects': 'no',
      'list slipway.dev/environments': 'no',
    };
    expect(await canIEach(asGateway, ns, Object.keys(expected))).toEqual(expected);
    // Cluster-wide too: the internet-facing gateway cannot list or watch anyone's Secrets, and
    // can get only the project's webhook Secret, by name, which the operator granted.
    expect(await canI(asGateway, 'list', '/secrets', '')).toBe(false);
    expect(await canI(asGateway, 'watch', '/secrets', '')).toBe(false);
    expect(await canI(asGateway, 'get', '/secrets', ns, 'shop-webhook')).toBe(true);
    expect(await canI(asGateway, 'get', '/secrets', ns, 'another-secret')).toBe(false);
    expect(await canI(asGateway, 'get', '/secrets', 'default', 'shop-webhook')).toBe(false);

    // And the API server refuses the real calls.
    const own = kubeClients(asGateway);
    expect(await statusOf(slipwayApi(asGateway).delete('Bundle', ns, 'shop-manual-1'))).toBe(403);
    const secret = { metadata: { name: 'made-by-gateway' } };
    expect(await statusOf(own.core.createNamespacedSecret({ namespace: ns, body: secret }))).toBe(403);
  });

  it("moves the grant when the gateway's ServiceAccount is renamed (a chart upgrade or a new release name)", async () => {
    await operator.stop();
    operator = await startOperator(admin, ns, {
      SLIPWAY_GATEWAY_BASE_URL: baseUrl,
      SLIPWAY_GATEWAY_SERVICE_ACCOUNT: `${ns}/renamed-gateway`,
    });
    const { rbac } = kubeClients(admin);
    const binding = await waitFor('the RoleBinding to name the renamed account', async () => {
      const b = await rbac.readNamespacedRoleBinding({ name: GATEWAY_ACCESS_NAME, namespace: ns });
      return b.subjects?.[0]?.name === 'renamed-gateway' ? b : undefined;
    });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'renamed-gateway', namespace: ns }]);
    // The old account lost its access to the webhook Secret.
    expect(await canI(asGateway, 'get', '/secrets', ns, 'shop-webhook')).toBe(false);
  });
});
