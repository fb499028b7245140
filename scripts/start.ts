// npm start — the whole of Slipway on one machine: the cluster in KUBECONFIG, or else the local
// control plane (kwok nodes; with `-- --real-node`, a real kubelet that runs every build, backup
// and rollout); the CRDs; operator, webhook gateway and status API as child processes — or, with
// `-- --real-node --helm`, Slipway's image and Helm release in pods behind the ingress
// controller, as users install it; a demo. Writes .slipway/endpoints.json once everything
// answers. Ctrl-C stops it all.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { Supervisor } from './supervisor.ts';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { kubeConfigFromFile, slipwayApi } from '../lib/kube.ts';
import type { ProjectObject } from '../crds/index.ts';
import { installAdmissionPolicies, installCrds } from './cluster/install-crds.ts';
import { waitFor } from '../lib/wait.ts';
import { clusterDown, clusterUp, ensureBinaries, localClusterOf } from './cluster/control-plane.ts';
import { watchControlPlane, type ControlPlaneWatch } from './cluster/control-plane-watch.ts';
import {
  gatewayRegistryEnv,
  operatorEnvFor,
  realNode,
  registryDoor,
  type RealNode,
} from './cluster/real-node.ts';
import { serveDemoRepo, type DemoRepo } from './demo-repo.ts';
import { helmBinary, installRelease, type InstalledRelease } from './helm/install.ts';
import { buildSlipwayImage } from './image/build.ts';
import { stopProcess } from './processes.ts';
import { installLocalController, localControllerKubeconfig } from './cluster/writers.ts';
import { installBuildNamespace } from './cluster/build-namespace.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const stateDir = join(root, '.slipway');
const logDir = join(stateDir, 'logs');
const DEMO_NAMESPACE = 'slipway-demo';
const SYSTEM_NAMESPACE = 'slipway-system';
const adminPortBase = Number(process.env.SLIPWAY_ADMIN_PORT_BASE ?? 9101);
const ports = {
  gateway: Number(process.env.SLIPWAY_GATEWAY_PORT ?? 8080),
  statusApi: Number(process.env.SLIPWAY_STATUS_API_PORT ?? 8090),
  admin: { operator: adminPortBase, gateway: adminPortBase + 1, statusApi: adminPortBase + 2 },
};
const realNodeWanted = process.argv.includes('--real-node');
const helmWanted = process.argv.includes('--helm');
let gatewayUrl = `http://127.0.0.1:${ports.gateway}`;
const statusApiUrl = `http://127.0.0.1:${ports.statusApi}`;

const say = (message: string) => process.stdout.write(`${message}\n`);
const supervisors: Supervisor[] = [];
/** Processes that serve the demo (its git server); stopped with the rest. */
const helpers: ChildProcess[] = [];
let startedCluster: string | undefined;
let controlPlane: ControlPlaneWatch | undefined;
let startingCluster: string | undefined;

async function main() {
  mkdirSync(logDir, { recursive: true });
  let kubeconfig = process.env.KUBECONFIG;
  let kubectlBin = 'kubectl';
  let node: RealNode | undefined;
  if (helmWanted && !realNodeWanted) {
    throw new Error('--helm installs the chart on the real node: run npm start -- --real-node --helm');
  }
  if (kubeconfig && realNodeWanted) {
    throw new Error('--real-node starts the local control plane with a real node: unset KUBECONFIG first');
  }
  if (kubeconfig) {
    say(`Using the cluster in KUBECONFIG (${kubeconfig}).`);
    kubectlBin = await run('sh', ['-c', 'command -v kubectl']).then(
      ({ stdout }) => stdout.trim(),
      async () => join(await ensureBinaries(), 'kubectl'),
    );
  } else {
    say(
      realNodeWanted
        ? 'Starting the local control plane with a real node (the first run builds it, ~15 min).'
        : 'No KUBECONFIG set: starting the local control plane (the first run builds it, ~7 min).',
    );
    // Ctrl-C while it starts must still stop what was started.
    startingCluster = 'slipway';
    const cluster = await clusterUp('slipway', { realNode: realNodeWanted });
    startingCluster = undefined;
    if (cluster.created) startedCluster = cluster.name;
    kubeconfig = cluster.kubeconfig;
    kubectlBin = join(cluster.binDir, 'kubectl');
    if (cluster.node === 'real') {
      node = realNode();
      // Build Jobs download uploaded archives from the gateway: pods reach it at the host address.
      gatewayUrl = `http://${node.hostAddress}:${ports.gateway}`;
    }
  }
  // A process of the local control plane (this one, or one cluster:up started) that dies is
  // started again, as the children below are.
  const local = localClusterOf(kubeconfig);
  if (local)
    controlPlane = watchControlPlane(local, { log: (message) => process.stderr.write(`${message}\n`) });
  const kc = kubeConfigFromFile(kubeconfig);
  await installCrds(kc);
  await installAdmissionPolicies(kc);
  say('CRDs and admission policies installed.');
  if (helmWanted && node) return startInstalled(kubeconfig, kubectlBin, node);
  // The processes act as Slipway's local identity: only it may write what Slipway writes (the
  // status of every Slipway object), not the admin kubeconfig you use (docs/security.md).
  await installLocalController(kc);
  await installBuildNamespace(kc);
  const controllerKubeconfig = localControllerKubeconfig(kc, join(stateDir, 'local-controller.kubeconfig'));
  const kubectl = (...args: string[]) => run(kubectlBin, ['--kubeconfig', kubeconfig!, ...args]);
  await kubectl('create', 'namespace', SYSTEM_NAMESPACE).catch(() => undefined);

  const common = {
    KUBECONFIG: controllerKubeconfig,
    SLIPWAY_LOG_LEVEL: process.env.SLIPWAY_LOG_LEVEL ?? 'info',
    // The operator signs archive download URLs for build Jobs and mints their registry
    // credentials (docs/adr/0006) with it; the gateway checks both.
    SLIPWAY_ARCHIVE_URL_KEY: randomBytes(32).toString('hex'),
  };
  startProcess('operator', 'operator/main.ts', {
    ...common,
    SLIPWAY_ADMIN_PORT: String(ports.admin.operator),
    SLIPWAY_GATEWAY_BASE_URL: gatewayUrl,
    SLIPWAY_REGISTRY_AUTH: 'tokens',
    // Builds download uploads from the gateway on the host address.
    ...(node ? operatorEnvFor(node, [ports.gateway]) : {}),
    POD_NAME: `local-${process.pid}`,
    POD_NAMESPACE: SYSTEM_NAMESPACE,
  });
  startProcess('gateway', 'webhook-gateway/main.ts', {
    ...common,
    SLIPWAY_PORT: String(ports.gateway),
    SLIPWAY_ADMIN_PORT: String(ports.admin.gateway),
    SLIPWAY_PUBLIC_URL: gatewayUrl,
    SLIPWAY_ARCHIVE_DIR: join(stateDir, 'archives'),
    ...gatewayRegistryEnv(node),
  });
  startProcess('status-api', 'status-api/main.ts', {
    ...common,
    SLIPWAY_PORT: String(ports.statusApi),
    SLIPWAY_ADMIN_PORT: String(ports.admin.statusApi),
    SLIPWAY_STATUS_NAMESPACE: DEMO_NAMESPACE,
  });

  let demoRepo: DemoRepo | undefined;
  if (node) {
    demoRepo = await serveDemoRepo(join(stateDir, 'demo-repo'), node.hostAddress);
    helpers.push(demoRepo.server);
    await applyRealNodeDemo(kubectlBin, kubeconfig, node, demoRepo);
  } else {
    await kubectl('apply', '-f', join(root, 'examples', 'demo'));
  }
  say(`Demo applied in namespace ${DEMO_NAMESPACE}.`);

  for (const [name, port] of Object.entries(ports.admin)) {
    const outcome = await waitFor(
      `${name} to be ready`,
      async () => {
        // While starting, a process that exits is a failure to start: say which, at once.
        const failed = supervisors.find((s) => s.restarts > 0);
        if (failed) return { failed: failed.name };
        const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
        return ready ? { failed: undefined } : undefined;
      },
      120_000,
      250,
    );
    if (outcome.failed)
      throw new Error(`${outcome.failed} exited while starting; see ${logDir}/${outcome.failed}.log`);
  }
  // The node's registry takes the gateway's tokens (docs/adr/0006).
  // (By a host name the cluster's DNS and /etc/hosts answer: crane refuses a private IP literal.)
  if (node) await registryDoor(`http://${node.ingress.gatewayHost}:${ports.gateway}`);
  await demoWebhook(kubeconfig);

  const endpoints = {
    kubeconfig,
    gatewayUrl,
    statusApiUrl,
    uploadScriptUrl: `${gatewayUrl}/upload.sh`,
    node: node ? 'real' : 'kwok',
    ...(node
      ? {
          hostAddress: node.hostAddress,
          registry: node.registry,
          baseImages: node.baseImages,
          builderImages: node.builderImages,
        }
      : {}),
  };
  writeFileSync(join(stateDir, 'endpoints.json'), `${JSON.stringify(endpoints, null, 2)}\n`);
  say(`
Slipway is running.
  Status page       ${statusApiUrl}/
  Status API        ${statusApiUrl}/api/v1/status
  Webhook gateway   ${gatewayUrl}
  Upload script     ${endpoints.uploadScriptUrl}
  Demo webhook      kubectl slipway -n ${DEMO_NAMESPACE} hook shop --show-secret   (its URL with the token, and its secret)
  Kubeconfig        export KUBECONFIG=${kubeconfig}
  kubectl           ${kubectlBin}
  Logs              ${logDir}/
  Endpoints file    .slipway/endpoints.json
  Command line      export PATH="$PWD/bin:$PATH"; kubectl slipway --help   (docs/cli.md)

Try: curl -s ${statusApiUrl}/api/v1/status
     kubectl get slipway -n ${DEMO_NAMESPACE}${
       demoRepo
         ? `
Real node: the demo repository is ${demoRepo.url} (work tree ${demoRepo.workTree});
     the first build is rolling out to staging: kubectl get bundles -n ${DEMO_NAMESPACE} -w`
         : ''
     }
Ctrl-C stops everything.`);
}

/** The demo project's webhook, once the operator has published it. */
async function demoWebhook(kubeconfig: string) {
  const slipway = slipwayApi(kubeConfigFromFile(kubeconfig));
  return waitFor(
    'the demo project to get its webhook URL',
    async () => (await slipway.get<ProjectObject>('Project', DEMO_NAMESPACE, 'shop')).status?.webhook,
    120_000,
    250,
  );
}

/**
 * `--real-node --helm`: Slipway's image built and pushed to the node's registry, the chart
 * installed as release "slipway" (the CRDs applied first, as for every way of running), the
 * real-node demo applied, everything reached through the ingress controller.
 */
async function startInstalled(kubeconfig: string, kubectlBin: string, node: RealNode) {
  const started = Date.now();
  const image = await buildSlipwayImage(node, (m) => say(`[image] ${m}`));
  say(
    `Image ${image.ref}${image.cached ? ' (cached)' : ''}. Installing the Helm release (helm upgrade --install --wait)...`,
  );
  const kubectl = (...args: string[]) => run(kubectlBin, ['--kubeconfig', kubeconfig, ...args]);
  // The status API's Role lives in the demo namespace: it must exist before the release.
  await kubectl('apply', '-f', join(root, 'examples', 'demo', '00-namespace.yaml'));
  // A plain `npm start` on this cluster before left its operators' Lease (same name, not Helm's).
  await kubectl(
    'delete',
    'lease',
    '-n',
    SYSTEM_NAMESPACE,
    '--ignore-not-found',
    '-l',
    '!app.kubernetes.io/managed-by',
    '--field-selector',
    'metadata.name=slipway-operator',
  );
  const release: InstalledRelease = await installRelease({
    kubeconfig,
    kubectl: kubectlBin,
    node,
    image,
    statusNamespace: DEMO_NAMESPACE,
    // installed above, as for the other ways of running (so one cluster can serve them all)
    crds: false,
  });
  say(
    `Release ${release.release} in ${release.namespace} is ready (${((Date.now() - started) / 1000).toFixed(0)} s).`,
  );
  const demoRepo = await serveDemoRepo(join(stateDir, 'demo-repo'), node.hostAddress);
  helpers.push(demoRepo.server);
  await applyRealNodeDemo(kubectlBin, kubeconfig, node, demoRepo);
  say(`Demo applied in namespace ${DEMO_NAMESPACE}.`);
  await demoWebhook(kubeconfig);
  const endpoints = {
    kubeconfig,
    install: 'helm',
    release: release.release,
    releaseNamespace: release.namespace,
    image: release.image,
    gatewayUrl: release.gatewayUrl,
    statusApiUrl: release.statusApiUrl,
    uploadScriptUrl: `${release.gatewayUrl}/upload.sh`,
    node: 'real',
    hostAddress: node.hostAddress,
    registry: node.registry,
    baseImages: node.baseImages,
    builderImages: node.builderImages,
  };
  writeFileSync(join(stateDir, 'endpoints.json'), `${JSON.stringify(endpoints, null, 2)}\n`);
  const logs = (component: string) =>
    `kubectl -n ${release.namespace} logs -f --prefix -l app.kubernetes.io/instance=${release.release},app.kubernetes.io/component=${component}`;
  say(`
Slipway is installed (Helm release ${release.release} in namespace ${release.namespace}).
  Status page       ${release.statusApiUrl}/
  Status API        ${release.statusApiUrl}/api/v1/status
  Webhook gateway   ${release.gatewayUrl}   (through the ingress controller on port ${node.ingress.port})
  Upload script     ${endpoints.uploadScriptUrl}
  Demo webhook      kubectl slipway -n ${DEMO_NAMESPACE} hook shop --show-secret   (its URL with the token, and its secret)
  Kubeconfig        export KUBECONFIG=${kubeconfig}
  kubectl           ${kubectlBin}
  Endpoints file    .slipway/endpoints.json
  Follow the logs   ${logs('operator')}
                    ${logs('gateway')}
                    ${logs('status-api')}
  Helm              ${await helmBinary()} -n ${release.namespace} status ${release.release}

Real node: the demo repository is ${demoRepo.url} (work tree ${demoRepo.workTree});
     the first build is rolling out to staging: kubectl get bundles -n ${DEMO_NAMESPACE} -w
Ctrl-C stops everything.`);
}

/** The shared demo (namespace, status page) and the real-node project, filled in for this node. */
async function applyRealNodeDemo(kubectlBin: string, kubeconfig: string, node: RealNode, repo: DemoRepo) {
  const web = node.baseImages['static-web']!;
  const values: Record<string, string> = {
    STATIC_WEB_IMAGE: web.image,
    STATIC_WEB_PORT: String(web.port),
    REPOSITORY_URL: repo.url,
    FIRST_COMMIT: repo.firstCommit,
  };
  const project = readFileSync(join(root, 'examples', 'real-node', '10-shop.yaml'), 'utf8').replace(
    /\$\{([A-Z_]+)\}/g,
    (_, key: string) => values[key] ?? '',
  );
  const demo = join(root, 'examples', 'demo');
  const shared = ['00-namespace.yaml', '20-status.yaml'].map((f) => readFileSync(join(demo, f), 'utf8'));
  const apply = spawn(kubectlBin, ['--kubeconfig', kubeconfig, 'apply', '-f', '-'], {
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  apply.stdin.end([...shared, project].join('\n---\n'));
  const code = await new Promise<number | null>((resolve) => apply.on('close', resolve));
  if (code !== 0) throw new Error('applying the real-node demo failed');
}

/**
 * Runs one process, started again whenever it exits (see supervisor.ts); its JSON log goes to a
 * file, and warnings and errors also to the terminal.
 */
function startProcess(name: string, entry: string, env: Record<string, string>) {
  const file = createWriteStream(join(logDir, `${name}.log`), { flags: 'a' });
  const supervisor = new Supervisor({
    name,
    command: process.execPath,
    args: [join(root, entry)],
    cwd: root,
    env: { ...process.env, ...env, SLIPWAY_PROCESS: name },
    log: (message) => process.stderr.write(`${message}; see ${logDir}/${name}.log\n`),
    onStart: (child) => {
      for (const stream of [child.stdout!, child.stderr!]) {
        createInterface({ input: stream }).on('line', (line) => {
          file.write(`${line}\n`);
          let level = 'error';
          try {
            level = (JSON.parse(line) as { level?: string }).level ?? 'info';
          } catch {
            // not JSON: show it
          }
          if (['warn', 'error', 'fatal'].includes(level)) process.stderr.write(`[${name}] ${line}\n`);
        });
      }
    },
  });
  supervisors.push(supervisor);
  supervisor.start();
}

let stopping = false;
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  say('\nStopping Slipway...');
  await controlPlane?.stop();
  await Promise.all([...supervisors.map((s) => s.stop()), ...helpers.map((child) => stopProcess(child))]);
  const cluster = startedCluster ?? startingCluster;
  if (cluster) await clusterDown(cluster).catch(() => undefined);
  process.exit(code);
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
main().catch((err: unknown) => {
  process.stderr.write(`npm start failed: ${err instanceof Error ? err.message : String(err)}\n`);
  void stop(1);
});
