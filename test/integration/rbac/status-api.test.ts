// The status API run in-process as its own ServiceAccount, granted exactly status-api/rbac.ts
// through a Role in the status namespace (as the chart binds it): it serves what the admin
// applied, nothing it does is forbidden, and it can read no Secret and write nothing.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeClients, slipwayApi } from '../../../lib/kube.ts';
import { statusApiRules } from '../../../status-api/rbac.ts';
import { createStatusApp } from '../../../status-api/server.ts';
import { StatusStore } from '../../../status-api/store.ts';
import { watchStatusResources } from '../../../status-api/watch.ts';
import { statusComponent, statusPage, inNamespace, spec } from '../../support/builders.ts';
import { testKubeConfig, waitFor } from '../../support/cluster.ts';
import { canIEach, processIdentity, statusOf, type ProcessIdentity } from '../../support/rbac.ts';

const admin = testKubeConfig();
const slipway = slipwayApi(admin);
let statusApi: ProcessIdentity;
let ns: string;
let asStatusApi: KubeConfig;
let server: Server;
let base: string;
let watch: { stop: () => Promise<unknown> } | undefined;

beforeAll(async () => {
  statusApi = await processIdentity(admin, 'rbac-status', 'slipway-status-api', (namespace) => [
    { rules: statusApiRules, namespace },
  ]);
  ({ namespace: ns, kubeConfig: asStatusApi } = statusApi);
  await slipway.create('StatusPage', statusPage(undefined, inNamespace(ns)));
  await slipway.create(
    'StatusComponent',
    statusComponent('web', inNamespace(ns), spec({ name: 'Web', id: 1 })),
  );

  const store = new StatusStore();
  server = createStatusApp({ store, logger: statusApi.log }).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  watch = await statusApi.within(
    watchStatusResources(asStatusApi, ns, store, statusApi.log),
    30_000,
    "the status API's caches to sync",
  );
});

afterAll(async () => {
  await watch?.stop();
  server?.close();
  await statusApi?.remove();
});

const componentNames = async () => {
  const res = await fetch(`${base}/api/v1/components`);
  const body = (await res.json()) as { components: Array<{ name: string }> };
  return body.components.map((c) => c.name).sort();
};

describe('status API under its service account', () => {
  it('serves the components the admin applies, with no call forbidden', async () => {
    expect(await componentNames()).toEqual(['Web']);
    await slipway.create(
      'StatusComponent',
      statusComponent('api', inNamespace(ns), spec({ name: 'API', id: 2 })),
    );
    await waitFor('the new component to be served', async () => (await componentNames()).length === 2);
    expect(await componentNames()).toEqual(['API', 'Web']);
    expect(statusApi.forbidden()).toEqual([]);
  });

  it('reads the status kinds of its namespace only, and writes nothing', async () => {
    const expected = {
      'watch slipway.dev/statuscomponents': 'yes',
      'list slipway.dev/statusnotices': 'yes',
      'list slipway.dev/statuspages in default': 'no',
      'get /secrets': 'no',
      'list /secrets': 'no',
      'create slipway.dev/statuscomponents': 'no',
      'patch slipway.dev/statuscomponents': 'no',
      'delete slipway.dev/statusnotices': 'no',
      'patch slipway.dev/statuscomponents/status': 'no',
      'update slipway.dev/statuspages/status': 'no',
      'list slipway.dev/projects': 'no',
    };
    expect(await canIEach(asStatusApi, ns, Object.keys(expected))).toEqual(expected);

    // And the API server refuses the real calls.
    const own = kubeClients(asStatusApi);
    expect(await statusOf(own.core.listNamespacedSecret({ namespace: ns }))).toBe(403);
    const status = slipwayApi(asStatusApi).patchStatus('StatusComponent', ns, 'web', { id: 99 });
    expect(await statusOf(status)).toBe(403);
  });
});
