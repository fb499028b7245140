// Slipway installed as users install it, on the real node: its image (scripts/image/build.ts)
// and charts/slipway as released — `helm package`, `helm push` to the node's registry as an OCI
// artifact, then `helm upgrade --install oci://…` as release "slipway" in "slipway-system" —
// operator and gateway at 2 replicas, the gateway's archives in the node's S3 store, the gateway
// and the status API behind the node's ingress controller. Used by `npm start -- --real-node
// --helm` and the installed e2e suite; docs/helm.md walks through the same steps by hand.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { realNodeBuildEgress, registryDoor, type RealNode } from '../cluster/real-node.ts';
import { BUILD_NAMESPACE_LABELS } from '../cluster/build-namespace.ts';
import { DEFAULT_BUILD_NAMESPACE } from '../../rules/build-namespace.ts';
import type { SlipwayImage } from '../image/build.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
export const CHART = join(root, 'charts', 'slipway');
export const RELEASE = 'slipway';
export const RELEASE_NAMESPACE = 'slipway-system';
/** The Secret in the release namespace with the S3 store's access keys. */
export const S3_SECRET = 'slipway-archive-store';
/** The ConfigMap of the certificate authority the installed operator trusts (installRelease's trustedCa). */
export const TRUSTED_CA_CONFIGMAP = 'slipway-trusted-ca';

export interface InstalledRelease {
  release: string;
  /** Where the chart was installed from: oci://<registry>/charts/slipway, and its version. */
  chart: { ref: string; version: string };
  namespace: string;
  image: string;
  /** Through the ingress controller, as providers and CI reach the gateway. */
  gatewayUrl: string;
  statusApiUrl: string;
  /** The Deployments of the release: component → name. */
  deployments: { operator: string; gateway: string; statusApi: string };
}

/** The helm CLI, built from the Go module proxy the first time (scripts/helm/build.sh). */
export async function helmBinary(): Promise<string> {
  return (
    await run('sh', [join(root, 'scripts', 'helm', 'build.sh')], { maxBuffer: 1024 * 1024 })
  ).stdout.trim();
}

/**
 * The chart as a release ships it: `helm package` of charts/slipway, pushed with `helm push` to
 * the node's registry (plain HTTP) as oci://<registry>/charts/slipway at the chart's version.
 */
export async function pushChart(node: RealNode): Promise<{ ref: string; version: string }> {
  const helm = await helmBinary();
  const { version } = parse(readFileSync(join(CHART, 'Chart.yaml'), 'utf8')) as { version: string };
  const dir = mkdtempSync(join(tmpdir(), 'slipway-chart-'));
  try {
    await run(helm, ['package', CHART, '--destination', dir]);
    // The registry's host door: the door for pods asks for the gateway's tokens, and no gateway
    // runs before the chart is installed.
    const repository = `oci://${node.hostRegistry}/charts`;
    await run(helm, ['push', join(dir, `slipway-${version}.tgz`), repository, '--plain-http']);
    return { ref: `${repository}/slipway`, version };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The chart's values for the real node (what a user passes with -f values.yaml). */
export function realNodeValues(
  node: RealNode,
  image: SlipwayImage,
  options: { statusNamespace?: string; crds?: boolean; buildNamespace?: boolean; trustedCa?: string } = {},
) {
  const { statusNamespace, crds = true, buildNamespace = true, trustedCa } = options;
  const port = node.ingress.port === 80 ? '' : `:${node.ingress.port}`;
  return {
    image: { repository: image.repository, tag: image.tag },
    crds: { enabled: crds },
    // Installed like the CRDs: with the release, or already there (scripts/cluster/install-crds.ts).
    admissionPolicies: { enabled: crds },
    operator: {
      replicas: 2,
      registry: `${node.registry}/builds`,
      registryInsecure: true,
      builderImage: node.images.builder,
      fetchImage: node.images.fetch,
      pushImage: node.images.push,
      backupImages: { mysql: node.images.backupMysql, postgresql: node.images.backupPostgresql },
      // The e2e receivers listen on the host address: that address alone.
      outbound: {
        allowCidrs: [`${node.hostAddress}/32`],
        ...(trustedCa ? { trustedCa: { configMapName: TRUSTED_CA_CONFIGMAP } } : {}),
      },
      // Made with the release, or already there (scripts/cluster/build-namespace.ts).
      createBuildNamespace: buildNamespace,
      // Builds reach the host address's DNS, registry, ingress and git servers (not the kubelet,
      // the API server or etcd), and the gateway's pods.
      buildNetworkPolicy: { allow: [realNodeBuildEgress(node)] },
    },
    gateway: {
      replicas: 2,
      publicUrl: `http://${node.ingress.gatewayHost}${port}`,
      trustedProxies: [`${node.ingress.fromAddress}/32`],
      archiveStore: {
        type: 's3',
        s3: {
          endpoint: node.s3.endpoint,
          bucket: node.s3.bucket,
          region: node.s3.region,
          prefix: 'archives/',
          credentials: { existingSecret: S3_SECRET },
        },
      },
      ingress: { enabled: true, className: node.ingress.className, host: node.ingress.gatewayHost },
      // The node's registry asks this gateway for tokens (installRelease: registryDoor).
      registryTokens: { ...node.registryToken, publicRepositories: ['slipway/*'] },
    },
    statusApi: {
      ...(statusNamespace ? { statusNamespace } : {}),
      publicUrl: `http://${node.ingress.statusHost}${port}`,
      trustedProxies: [`${node.ingress.fromAddress}/32`],
      ingress: { enabled: true, className: node.ingress.className, host: node.ingress.statusHost },
    },
  };
}

/**
 * `helm upgrade --install` of the release with the image, waiting until every Deployment is
 * Available. The S3 Secret is created first (the chart reads it, as it would a user's).
 */
export async function installRelease(options: {
  kubeconfig: string;
  kubectl: string;
  node: RealNode;
  image: SlipwayImage;
  statusNamespace?: string;
  /** A certificate authority (PEM) the operator trusts beside the public ones: ConfigMap TRUSTED_CA_CONFIGMAP. */
  trustedCa?: string;
  /** Install the CRDs and admission policies with the release (the chart's default); false when they are there already. */
  crds?: boolean;
  timeout?: string;
}): Promise<InstalledRelease> {
  const { kubeconfig, node, image } = options;
  const kubectl = (args: string[], input?: string) => {
    const child = run(options.kubectl, ['--kubeconfig', kubeconfig, ...args]);
    if (input !== undefined) child.child.stdin!.end(input);
    return child;
  };
  await kubectl(['create', 'namespace', RELEASE_NAMESPACE]).catch(() => undefined);
  const apply = (object: object) => kubectl(['apply', '-f', '-'], stringify(object));
  await apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: S3_SECRET, namespace: RELEASE_NAMESPACE },
    stringData: { accessKeyId: node.s3.accessKeyId, secretAccessKey: node.s3.secretAccessKey },
  });
  if (options.trustedCa)
    await apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: TRUSTED_CA_CONFIGMAP, namespace: RELEASE_NAMESPACE },
      data: { 'ca.crt': options.trustedCa },
    });
  // A build namespace made outside Helm (npm start, the test tiers: labelled managed-by slipway)
  // stays theirs: Helm would refuse to take it over.
  const { stdout: manager } = await kubectl([
    'get',
    'namespace',
    DEFAULT_BUILD_NAMESPACE,
    '--ignore-not-found',
    '-o',
    'jsonpath={.metadata.labels.app\\.kubernetes\\.io/managed-by}',
  ]);
  const buildNamespace = manager.trim() !== BUILD_NAMESPACE_LABELS['app.kubernetes.io/managed-by'];
  const chart = await pushChart(node);
  const dir = mkdtempSync(join(tmpdir(), 'slipway-helm-'));
  const values = realNodeValues(node, image, { ...options, buildNamespace });
  try {
    writeFileSync(join(dir, 'values.yaml'), stringify(values));
    await run(
      await helmBinary(),
      [
        'upgrade',
        '--install',
        RELEASE,
        chart.ref,
        '--version',
        chart.version,
        '--plain-http',
        '--namespace',
        RELEASE_NAMESPACE,
        '--kubeconfig',
        kubeconfig,
        '-f',
        join(dir, 'values.yaml'),
        '--wait',
        '--timeout',
        options.timeout ?? '5m',
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // The node's registry takes the installed gateway's tokens (its key read at its public address),
  // asked for by builds at its in-cluster Service, which their NetworkPolicy opens (NOTES.txt).
  await registryDoor(
    values.gateway.publicUrl,
    `http://${RELEASE}-gateway.${RELEASE_NAMESPACE}.svc/registry/token`,
  );
  return {
    release: RELEASE,
    chart,
    namespace: RELEASE_NAMESPACE,
    image: image.ref,
    gatewayUrl: values.gateway.publicUrl,
    statusApiUrl: values.statusApi.publicUrl,
    deployments: {
      operator: `${RELEASE}-operator`,
      gateway: `${RELEASE}-gateway`,
      statusApi: `${RELEASE}-status-api`,
    },
  };
}

/** `helm test` of the release: its exit code and what it printed (the test Pod's log with --logs). */
export async function helmTest(kubeconfig: string): Promise<{ code: number; output: string }> {
  const args = ['test', RELEASE, '--namespace', RELEASE_NAMESPACE, '--kubeconfig', kubeconfig];
  return run(await helmBinary(), [...args, '--timeout', '3m', '--logs']).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof err.code === 'number' ? err.code : 1,
      output: `${err.stdout ?? ''}${err.stderr ?? ''}`,
    }),
  );
}

/** `helm uninstall` of the release, waiting until its objects are gone. */
export async function uninstallRelease(kubeconfig: string): Promise<void> {
  await run(await helmBinary(), [
    'uninstall',
    RELEASE,
    '--namespace',
    RELEASE_NAMESPACE,
    '--kubeconfig',
    kubeconfig,
    '--wait',
    '--timeout',
    '3m',
  ]);
}
