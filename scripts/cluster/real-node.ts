// The real node: a kubelet on containerd and runc on this machine (root, Linux), beside the
// local control plane instead of kwok's simulated nodes. The host side is scripts/real-node/
// (packages, Go builds, images, processes, teardown); this module runs it and reads what it
// reports. See docs/local-control-plane.md.
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostServices, type BuildEgress } from '../../rules/build-network-policy.ts';
import { HOST_SERVICE_PORTS } from '../processes.ts';

const here = dirname(fileURLToPath(import.meta.url));

const scripts = join(here, '..', 'real-node');
export const NODE_DIR = '/var/lib/slipway-node';
const CLUSTER_FILE = join(NODE_DIR, 'cluster');

/** What pods and the host agree on, as node.sh wrote it. */
export interface RealNode {
  /** An address of this machine that pods reach (git servers, databases, the gateway listen there). */
  hostAddress: string;
  /**
   * Where build Jobs push and the node pulls (plain HTTP): the registry's door for pods, which
   * asks for tokens of the gateway registryDoor names (docs/adr/0006).
   */
  registry: string;
  /** The same storage's door on the host's loopback, without auth: host tools push and copy there. */
  hostRegistry: string;
  /** The registry's auth.token service and issuer, which the gateway's tokens must name. */
  registryToken: { service: string; issuer: string };
  nodeName: string;
  /** crane, built with the node: copies and assembles images. */
  crane: string;
  images: {
    fetch: string;
    builder: string;
    /** tools + crane: the build Job's push container. */
    push: string;
    backupMysql: string;
    backupPostgresql: string;
    /** Debian with the slipway user: the base of Slipway's own image (scripts/image/build.ts). */
    slipwayBase: string;
  };
  /** Base software images built here: short name → image and the port it serves on. */
  baseImages: Record<string, { image: string; port: number }>;
  /** Images for bundles' build steps (buildSteps.image): short name → image. */
  builderImages: Record<string, string>;
  /** An S3-compatible store on the host address (versitygw), with one bucket. */
  s3: { endpoint: string; region: string; bucket: string; accessKeyId: string; secretAccessKey: string };
  /**
   * The ingress controller (Caddy): its IngressClass (the cluster's default), the port it serves
   * on every address, the host names /etc/hosts points at it for the installed release, and the
   * address pods see its requests come from.
   */
  ingress: { className: string; port: number; gatewayHost: string; statusHost: string; fromAddress: string };
}

/** Runs `node.sh <args>` with its progress on stderr; rejects with its last lines on failure. */
export async function nodeScript(...args: string[]): Promise<void> {
  const child = spawn('sh', [join(scripts, 'node.sh'), ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`scripts/real-node/node.sh ${args[0]} failed (see the messages above)`);
}

export function realNode(): RealNode {
  return JSON.parse(readFileSync(join(NODE_DIR, 'node.json'), 'utf8')) as RealNode;
}

/** The cluster the real node belongs to (node.sh host-up records it first thing), if one is up. */
export function realNodeCluster(): string | undefined {
  return existsSync(CLUSTER_FILE) ? readFileSync(CLUSTER_FILE, 'utf8').trim() : undefined;
}

/** Whether the real node's bring-up finished (node.sh kubelet-up got to its end). */
export function realNodeComplete(): boolean {
  return existsSync(join(NODE_DIR, 'up'));
}

/** git daemon's port: npm start's demo repository. */
export const GIT_DAEMON_PORT = 9418;

/**
 * What builds reach on the real node's host address: DNS, the registry, the ingress, git daemon
 * and the services of HOST_SERVICE_PORTS (git servers, Gitea, a gateway), with `tcpPorts` more
 * (npm start's gateway); not the kubelet, the API server or etcd.
 */
export function realNodeBuildEgress(node: RealNode, tcpPorts: number[] = []): BuildEgress {
  const registryPort = Number(node.registry.split(':').pop());
  return hostServices(node.hostAddress, [
    registryPort,
    node.ingress.port,
    GIT_DAEMON_PORT,
    [...HOST_SERVICE_PORTS],
    ...tcpPorts,
  ]);
}

/** An image reference on the host's door of the registry (host tools: crane, helm). */
export function onHost(node: RealNode, reference: string): string {
  return reference.startsWith(`${node.registry}/`)
    ? `${node.hostRegistry}/${reference.slice(node.registry.length + 1)}`
    : reference;
}

/**
 * The gateway's settings for the registry's token endpoint on the real node: a new P-256 key,
 * the registry's service and issuer, and the node's own images (`slipway/*`) public. The registry
 * trusts the key once registryDoor has been told the gateway's address.
 */
export function gatewayRegistryEnv(node: RealNode | undefined): Record<string, string> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    SLIPWAY_REGISTRY_TOKEN_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    ...(node
      ? {
          SLIPWAY_REGISTRY_TOKEN_SERVICE: node.registryToken.service,
          SLIPWAY_REGISTRY_TOKEN_ISSUER: node.registryToken.issuer,
        }
      : {}),
    SLIPWAY_REGISTRY_PUBLIC_REPOSITORIES: 'slipway/*',
  };
}

/**
 * Makes the registry's door for pods trust the gateway at `gatewayUrl` (as a platform engineer
 * configures a registry): its token endpoint becomes the realm (or `realm`), its JWKS the
 * trusted keys. Name
 * the gateway by a host name: crane refuses a realm at a private IP literal (other than the
 * registry's own address).
 */
export async function registryDoor(
  gatewayUrl: string,
  /** The realm, when builds reach the gateway by another address than the host does. */
  realm = `${gatewayUrl}/registry/token`,
): Promise<void> {
  // An ingress may take a moment to route to a new gateway: up to 60 s.
  let answer: Response | undefined;
  for (let tries = 0; !answer?.ok && tries < 120; tries++) {
    if (tries > 0) await new Promise((r) => setTimeout(r, 500));
    answer = await fetch(`${gatewayUrl}/registry/jwks.json`).catch(() => undefined);
  }
  if (!answer?.ok)
    throw new Error(`${gatewayUrl}/registry/jwks.json answered ${answer?.status ?? 'nothing'} for 60 s`);
  const dir = mkdtempSync(join(tmpdir(), 'slipway-jwks-'));
  try {
    writeFileSync(join(dir, 'jwks.json'), await answer.text());
    await nodeScript('registry-door', realm, join(dir, 'jwks.json'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The operator's settings for builds and backups on the real node (`tcpPorts`: realNodeBuildEgress). */
export function operatorEnvFor(node: RealNode, tcpPorts: number[] = []): Record<string, string> {
  return {
    SLIPWAY_BUILD_EGRESS: JSON.stringify({ allow: [realNodeBuildEgress(node, tcpPorts)] }),
    SLIPWAY_REGISTRY: `${node.registry}/builds`,
    SLIPWAY_REGISTRY_INSECURE: 'true',
    SLIPWAY_FETCH_IMAGE: node.images.fetch,
    SLIPWAY_BUILDER_IMAGE: node.images.builder,
    SLIPWAY_PUSH_IMAGE: node.images.push,
    SLIPWAY_BACKUP_IMAGE_MYSQL: node.images.backupMysql,
    SLIPWAY_BACKUP_IMAGE_POSTGRESQL: node.images.backupPostgresql,
    // BuildKit's stores between builds (node.sh down removes them with the node's folder).
    SLIPWAY_BUILD_STORE: join(NODE_DIR, 'build-store'),
    // Gitea and the tests' receivers listen on the host address: that address alone.
    SLIPWAY_OUTBOUND_ALLOW: `${node.hostAddress}/32`,
  };
}
