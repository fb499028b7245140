// The local control plane: real etcd, kube-apiserver, kube-controller-manager and
// kube-scheduler, built from the Go module proxy (build.sh), run as local processes by
// kwokctl's binary runtime, with kwok playing the nodes — or, with `realNode`, one real
// kubelet on this machine (real-node.ts). See docs/local-control-plane.md.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { waitFor } from '../../lib/wait.ts';
import { kwokctlConfig } from './kwok-stages.ts';
import { nodeScript, realNodeCluster, realNodeComplete } from './real-node.ts';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));

export const cacheRoot =
  process.env.SLIPWAY_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'slipway');
const kwokWorkdir = join(cacheRoot, 'kwok');
const NODES = 2;

export interface Cluster {
  name: string;
  kubeconfig: string;
  binDir: string;
  /** Whether this call created it (and so a caller that only borrowed it leaves it running). */
  created: boolean;
  /** `real`: one real kubelet on this machine; `kwok`: simulated nodes. */
  node: 'kwok' | 'real';
}

export interface ClusterOptions {
  /** A real kubelet on containerd instead of kwok nodes (root and Linux; builds it the first time). */
  realNode?: boolean;
}

function log(message: string) {
  process.stderr.write(`[cluster] ${message}\n`);
}

/** Builds the binaries the first time (with progress on stderr); returns their folder. */
export async function ensureBinaries(): Promise<string> {
  const child = spawn('sh', [join(here, 'build.sh')], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error('building the local control plane failed (see the messages above)');
  return out.trim().split('\n').pop()!;
}

function env(binDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    KWOK_WORKDIR: kwokWorkdir,
    KWOK_KUBECTL_BINARY: join(binDir, 'kubectl'),
    PATH: `${binDir}:${process.env.PATH}`,
  };
}

/** The kwokctl configuration a cluster was made with, kept in its folder. */
const CONFIG_COPY = 'slipway-kwokctl.yaml';

const readIfExists = (path: string): string | undefined =>
  existsSync(path) ? readFileSync(path, 'utf8') : undefined;

/** kwokctl's folder of the named cluster: its kubeconfig, pids/, logs/. */
export function clusterDir(name: string): string {
  return join(kwokWorkdir, 'clusters', name);
}

export function kubeconfigPath(name: string): string {
  return join(clusterDir(name), 'kubeconfig.yaml');
}

/** The local cluster (started by cluster:up or the tests) whose kubeconfig this is, if any. */
export function localClusterOf(kubeconfig: string): string | undefined {
  const name = basename(dirname(kubeconfig));
  return kubeconfigPath(name) === resolve(kubeconfig) ? name : undefined;
}

/**
 * Starts the components of the named cluster that are not running (`kwokctl start cluster`,
 * which forks each and records its pid at once). kwokctl then waits up to 2 min for the API
 * server to answer; that wait is cut after `waitMs`: whoever calls this checks the processes.
 */
export async function startStoppedComponents(name: string, waitMs = 15_000): Promise<void> {
  const binDir = await ensureBinaries();
  await run(join(binDir, 'kwokctl'), ['start', 'cluster', '--name', name], {
    env: env(binDir),
    timeout: waitMs,
  }).catch((error: { killed?: boolean }) => {
    if (!error.killed) throw error;
  });
}

async function kubectl(binDir: string, kubeconfig: string, args: string[]) {
  return run(join(binDir, 'kubectl'), ['--kubeconfig', kubeconfig, ...args], { env: env(binDir) });
}

async function answers(binDir: string, kubeconfig: string): Promise<boolean> {
  if (!existsSync(kubeconfig)) return false;
  try {
    await kubectl(binDir, kubeconfig, ['get', '--raw', '/readyz', '--request-timeout=5s']);
    return true;
  } catch {
    return false;
  }
}

/**
 * The control plane's ports beside a real node, as a cluster's usually are. kwokctl picks random
 * ones from 32761 up, inside the NodePort range (30000-32767), and kube-router lets pods reach
 * any local port of that range whatever their NetworkPolicy says (as it must for NodePorts), so
 * build pods would reach the API server and etcd. (etcd's peer port has no flag: it stays random.)
 */
const REAL_NODE_PORTS = [
  '--kube-apiserver-port',
  '6443',
  '--etcd-port',
  '2379',
  '--kube-controller-manager-port',
  '10257',
  '--kube-scheduler-port',
  '10259',
];

/** Starts the named cluster, or reuses it when it already answers with the same kind of node. */
export async function clusterUp(name = 'slipway', options: ClusterOptions = {}): Promise<Cluster> {
  const binDir = await ensureBinaries();
  const kubeconfig = kubeconfigPath(name);
  const node = options.realNode ? 'real' : 'kwok';
  const hasRealNode = realNodeCluster() === name;
  // (a real node whose bring-up failed halfway is started afresh, not reused)
  const nodeComplete = node !== 'real' || realNodeComplete();
  // A cluster made with another configuration (older stages) is made again.
  const wanted = kwokctlConfig(binDir);
  const sameConfig = readIfExists(join(clusterDir(name), CONFIG_COPY)) === wanted;
  // A real node's cluster from before its ports were fixed is made again.
  const samePorts = node !== 'real' || (readIfExists(kubeconfig) ?? '').includes(`:${REAL_NODE_PORTS[1]}`);
  if (
    (await answers(binDir, kubeconfig)) &&
    hasRealNode === (node === 'real') &&
    nodeComplete &&
    sameConfig &&
    samePorts
  ) {
    log(`cluster ${name} is already running (${node} node)`);
    return { name, kubeconfig, binDir, created: false, node };
  }
  const other = realNodeCluster();
  if (node === 'real' && other && other !== name && (await answers(binDir, kubeconfigPath(other)))) {
    throw new Error(
      `the real node of cluster ${other} is running, and a machine has one real node at a time: ` +
        `stop it first (SLIPWAY_CLUSTER_NAME=${other} npm run cluster:down)`,
    );
  }
  if (hasRealNode) await nodeScript('down');
  // Registry, images and containerd first: a missing package or a failed build stops here.
  if (node === 'real') await nodeScript('host-up', name);
  // A cluster left half-made by a crash is removed before a fresh start.
  await run(join(binDir, 'kwokctl'), ['delete', 'cluster', '--name', name], {
    env: env(binDir),
  }).catch(() => undefined);
  log(`starting cluster ${name} (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok)`);
  const b = (n: string) => join(binDir, n);
  const config = join(kwokWorkdir, 'slipway-kwokctl.yaml');
  mkdirSync(kwokWorkdir, { recursive: true });
  writeFileSync(config, wanted);
  await run(
    b('kwokctl'),
    [
      '--config',
      config,
      'create',
      'cluster',
      '--name',
      name,
      '--runtime',
      'binary',
      '--kubeconfig',
      '',
      '--etcd-binary',
      b('etcd'),
      '--kube-apiserver-binary',
      b('kube-apiserver'),
      '--kube-controller-manager-binary',
      b('kube-controller-manager'),
      '--kube-scheduler-binary',
      b('kube-scheduler'),
      '--kwok-controller-binary',
      b('kwok'),
      '--extra-args',
      'etcd=unsafe-no-fsync=true',
      // kubectl logs/exec reach the kubelet by its node IP (its host name resolves nowhere).
      '--extra-args',
      'kube-apiserver=kubelet-preferred-address-types=InternalIP',
      '--disable-qps-limits',
      // The real node is a kubelet: no kwok controller may play it.
      ...(node === 'real' ? ['--disable', 'kwok-controller', ...REAL_NODE_PORTS] : []),
      '--wait',
      '2m',
    ],
    { env: env(binDir), maxBuffer: 16 * 1024 * 1024 },
  );
  if (node === 'real') {
    await nodeScript('kubelet-up', kubeconfig);
  } else {
    await run(b('kwokctl'), ['scale', 'node', '--replicas', String(NODES), '--name', name], {
      env: env(binDir),
    });
  }
  await waitForNodes(binDir, kubeconfig);
  writeFileSync(join(clusterDir(name), CONFIG_COPY), wanted);
  log(`cluster ${name} is up with ${node === 'real' ? 'a real node' : `${NODES} kwok nodes`}`);
  return { name, kubeconfig, binDir, created: true, node };
}

async function waitForNodes(binDir: string, kubeconfig: string) {
  // A kubelet registers its Node a few seconds after it starts; `kubectl wait` needs one to exist.
  await waitFor(
    'a node to register (see /var/lib/slipway-node/logs/kubelet.log)',
    async () => (await kubectl(binDir, kubeconfig, ['get', 'nodes', '-o', 'name'])).stdout.trim() !== '',
    60_000,
    250,
  );
  await kubectl(binDir, kubeconfig, ['wait', '--for=condition=Ready', 'node', '--all', '--timeout=120s']);
}

/** Stops every process of the named cluster (and its real node) and removes its state. */
export async function clusterDown(name = 'slipway'): Promise<void> {
  const binDir = await ensureBinaries();
  if (realNodeCluster() === name) await nodeScript('down');
  await run(join(binDir, 'kwokctl'), ['delete', 'cluster', '--name', name], {
    env: env(binDir),
  });
  log(`cluster ${name} is stopped`);
}
