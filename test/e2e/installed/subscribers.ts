// The installed operator tells a status page's subscriber webhook of a notice's update, signed:
// one step of test/e2e/installed.test.ts.
import { createHmac } from 'node:crypto';
import { expect } from '@jest/globals';
import type { StatusPageObject } from '../../../crds/index.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import { inNamespace, spec, statusComponent, statusPage } from '../../support/builders.ts';
import { kubectlApply, testKubeConfig, waitFor } from '../../support/cluster.ts';
import { runPlugin } from '../../support/plugin.ts';
import { startReceiver } from '../../support/receiver.ts';
import type { InstalledScene } from './scene.ts';

const api = slipwayApi(testKubeConfig());

export async function subscriberHearsNoticeUpdate({ ns, node }: InstalledScene): Promise<void> {
  const receiver = await startReceiver(node.hostAddress);
  try {
    await kubectlApply([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'status-ops', namespace: ns.name },
        stringData: { url: `${receiver.base}/status/ops-token`, hmacKey: 'installed-status-key' },
      },
      statusPage(
        'status',
        inNamespace(ns.name),
        spec({ webhooks: [{ name: 'ops', secretRef: { name: 'status-ops' } }] }),
      ),
      statusComponent('databases', inNamespace(ns.name)),
    ]);
    await waitFor(
      'the webhook on the StatusPage',
      async () =>
        (await api.get<StatusPageObject>('StatusPage', ns.name, 'status')).status?.webhooks?.[0]?.since,
      60_000,
      250,
    );
    const opened = await runPlugin(
      ns.name,
      'notice',
      'open',
      '--type',
      'unplanned',
      '--subject',
      'Slow queries',
      '--component',
      'databases',
      '--message',
      'Looking into it.',
    );
    expect(opened.code).toBe(0);
    const notice = opened.stdout.trim();
    await waitFor(
      'the incident at the receiver',
      async () => receiver.to('/status/ops-token')[0],
      60_000,
      250,
    );
    const sentAt = Date.now();
    const updated = await runPlugin(
      ns.name,
      'notice',
      'update',
      notice,
      '--state',
      'identified',
      '--message',
      'A slow disk.',
    );
    expect(updated.code).toBe(0);
    const update = await waitFor(
      'the update at the receiver',
      async () => receiver.to('/status/ops-token').find((d) => d.body.incident?.status === 'identified'),
      60_000,
      100,
    );
    process.stderr.write(
      `[installed] kubectl slipway notice update started → subscriber webhook received: ${update.at - sentAt} ms\n`,
    );
    expect(update.headers['x-signature']).toBe(
      `sha256=${createHmac('sha256', 'installed-status-key').update(update.raw).digest('hex')}`,
    );
    expect(update.body).toMatchObject({
      page: { id: 'status', status_indicator: 'minor' },
      incident: {
        name: 'Slow queries',
        incident_updates: [{ status: 'identified', body: 'A slow disk.' }, { status: 'investigating' }],
        components: [{ name: 'databases' }],
      },
    });
  } finally {
    receiver.close();
  }
}
