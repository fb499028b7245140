// A gateway on a real port and an operator, both on the test cluster and watching one namespace:
// the operator publishes each Project's webhook URL and secret, the gateway turns deliveries into
// Bundles. Its archives go to a temporary folder.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ProjectObject } from '../../../crds/index.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import type { Logger } from '../../../lib/log.ts';
import { loadConfig } from '../../../operator/config.ts';
import { Operator } from '../../../operator/operator.ts';
import { asLocalController } from '../../../scripts/cluster/writers.ts';
import { TEST_RECEIVERS } from '../operator/support.ts';
import { bundleWriter, ClusterAdapter } from '../../../webhook-gateway/cluster-adapter.ts';
import { previewWriter } from '../../../lib/preview-writer.ts';
import { createGateway, FilesystemArchiveStore } from '../../../webhook-gateway/index.ts';
import { tokenSigner } from '../../../webhook-gateway/registry/token-signer.ts';
import { gatewayRegistryEnv } from '../../../scripts/cluster/real-node.ts';
import { kubectl, waitFor } from '../../support/cluster.ts';
import { withToken } from '../../../rules/webhook-url.ts';
import { loadFixture, resign } from '../../unit/webhook-gateway/support/fixtures.ts';

export interface GatewayAndOperator {
  baseUrl: string;
  archiveDir: string;
  archiveUrlKey: string;
  cluster: ClusterAdapter;
  operator: Operator;
  stop(): Promise<void>;
}

export async function startGatewayAndOperator(
  kc: KubeConfig,
  namespace: string,
  log: Logger,
): Promise<GatewayAndOperator> {
  const archiveDir = mkdtempSync(join(tmpdir(), 'slipway-archives-'));
  const archiveUrlKey = randomBytes(32).toString('hex');
  // The gateway and the operator act as Slipway (the test's admin may not write what they write).
  kc = asLocalController(kc);
  const cluster = new ClusterAdapter(kc, namespace, log);
  // Listen first: the upload script the gateway serves carries its real address.
  const gateway = createServer();
  gateway.listen(0, '127.0.0.1');
  await new Promise((r) => gateway.once('listening', r));
  const baseUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  const handlers = createGateway({
    publicBaseUrl: baseUrl,
    projectBySlug: cluster.projectBySlug,
    bundleByName: cluster.bundleByName,
    createBundles: bundleWriter(slipwayApi(kc), cluster.bundleByName),
    writePreview: previewWriter(slipwayApi(kc)),
    archiveStore: new FilesystemArchiveStore(archiveDir),
    isReady: () => cluster.synced(),
    archiveSigningKey: archiveUrlKey,
    // The registry's token endpoint, as the chart turns it on (docs/adr/0006).
    registryTokens: {
      signer: tokenSigner(gatewayRegistryEnv(undefined).SLIPWAY_REGISTRY_TOKEN_KEY!),
      service: 'slipway-registry',
      issuer: 'slipway',
      publicRepositories: [],
      lifetimeSeconds: 600,
    },
    logger: log,
  });
  gateway.on('request', handlers.handleRequest);
  gateway.on('checkContinue', handlers.handleCheckContinue);
  await cluster.start();
  const config = loadConfig({
    SLIPWAY_GATEWAY_BASE_URL: baseUrl,
    SLIPWAY_WATCH_NAMESPACE: namespace,
    SLIPWAY_LEADER_ELECTION: 'false',
    SLIPWAY_ARCHIVE_URL_KEY: archiveUrlKey,
    SLIPWAY_REGISTRY_AUTH: 'tokens',
    SLIPWAY_OUTBOUND_ALLOW: TEST_RECEIVERS,
  });
  const operator = new Operator(kc, config, log);
  await operator.start();
  return {
    baseUrl,
    archiveDir,
    archiveUrlKey,
    cluster,
    operator,
    async stop() {
      await operator.stop();
      await cluster.stop();
      gateway.close();
      rmSync(archiveDir, { recursive: true, force: true });
    },
  };
}

/** The project's webhook URL and secret once the operator published them, as `kubectl slipway hook` reads them. */
export async function publishedWebhook(
  kc: KubeConfig,
  namespace: string,
  name: string,
): Promise<{ project: ProjectObject; url: string; secret: string }> {
  const project = await waitFor('the webhook URL', async () => {
    const p = await slipwayApi(kc).get<ProjectObject>('Project', namespace, name);
    return p.status?.webhook ? p : undefined;
  });
  const { secretRef } = project.status!.webhook!;
  const { stdout } = await kubectl([
    'get',
    'secret',
    secretRef.name,
    '-n',
    namespace,
    '-o',
    `jsonpath={.data.${secretRef.key}}`,
  ]);
  const secret = Buffer.from(stdout, 'base64').toString('utf8');
  // status.webhook.url leaves out the token: whoever may read the Secret derives it.
  return { project, url: withToken(project.status!.webhook!.url, project.status!.slug!, secret), secret };
}

/**
 * A real pull-request delivery of `fixture` (fixtures/providers/pull-requests) to `hook`, its body
 * changed by `edit`, signed as the provider would with the hook's secret: the gateway's answer.
 */
export async function deliverPullRequest(
  hook: { url: string; secret: string },
  fixture: string,
  edit: (body: string) => string = (b) => b,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const { headers, body } = loadFixture(`pull-requests/${fixture}`);
  const edited = Buffer.from(edit(body.toString('utf8')));
  const res = await fetch(hook.url, {
    method: 'POST',
    headers: resign(headers, edited, hook.secret),
    body: edited,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
