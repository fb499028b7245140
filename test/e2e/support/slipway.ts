// Slipway as a user runs it: the operator and the webhook gateway as their own processes (their
// real entry points), configured for the real node, their JSON logs in .slipway/e2e-logs/.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  gatewayRegistryEnv,
  operatorEnvFor,
  registryDoor,
  type RealNode,
} from '../../../scripts/cluster/real-node.ts';
import { freePort, freeServicePort, stopProcess } from '../../../scripts/processes.ts';
import { waitFor } from '../../support/cluster.ts';
import { LOG_DIR, track } from './leftovers.ts';

export { LOG_DIR };

const here = dirname(fileURLToPath(import.meta.url));

const root = join(here, '..', '..', '..');

export interface Slipway {
  gatewayUrl: string;
  /** The key the operator signs archive URLs and mints registry credentials with. */
  archiveUrlKey: string;
  /** The registry's token endpoint: the gateway by a host name (crane refuses a private IP literal). */
  registryRealm: string;
  archiveDir: string;
  stop(): Promise<void>;
}

function startProcess(name: string, entry: string, env: Record<string, string>): ChildProcess {
  mkdirSync(LOG_DIR, { recursive: true });
  const out = openSync(join(LOG_DIR, `${name}.log`), 'w');
  const child = spawn(process.execPath, [join(root, entry)], {
    cwd: root,
    env: { ...process.env, ...env, SLIPWAY_PROCESS: name },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  return track(child, entry);
}

/**
 * Starts the operator and the gateway for `namespace`, the gateway on the node's host address;
 * `kubeconfig` is Slipway's identity (the tier's controllerKubeconfig).
 */
export async function startSlipway(kubeconfig: string, namespace: string, node: RealNode): Promise<Slipway> {
  const [gatewayPort, operatorAdmin, gatewayAdmin] = [
    // Build Jobs reach it (archives): a port the build namespace's policy opens on the host.
    await freeServicePort('0.0.0.0'),
    await freePort('127.0.0.1'),
    await freePort('127.0.0.1'),
  ];
  // Build Jobs download uploaded archives from the gateway: pods reach it at the host address.
  const gatewayUrl = `http://${node.hostAddress}:${gatewayPort}`;
  const archiveDir = join(root, '.slipway', 'e2e-archives');
  const archiveUrlKey = randomBytes(32).toString('hex');
  const common = {
    KUBECONFIG: kubeconfig,
    SLIPWAY_LOG_LEVEL: 'debug',
    SLIPWAY_WATCH_NAMESPACE: namespace,
    SLIPWAY_ARCHIVE_URL_KEY: archiveUrlKey,
  };
  const children = [
    startProcess('operator', 'operator/main.ts', {
      ...common,
      ...operatorEnvFor(node),
      // Gitea's API answers on loopback too (its apiUrl): exact /32s, as the tests allow.
      SLIPWAY_OUTBOUND_ALLOW: `${node.hostAddress}/32,127.0.0.1/32`,
      SLIPWAY_ADMIN_PORT: String(operatorAdmin),
      SLIPWAY_GATEWAY_BASE_URL: gatewayUrl,
      SLIPWAY_REGISTRY_AUTH: 'tokens',
      SLIPWAY_LEADER_ELECTION: 'false',
      POD_NAMESPACE: namespace,
    }),
    startProcess('gateway', 'webhook-gateway/main.ts', {
      ...common,
      SLIPWAY_PORT: String(gatewayPort),
      SLIPWAY_ADMIN_PORT: String(gatewayAdmin),
      SLIPWAY_PUBLIC_URL: gatewayUrl,
      SLIPWAY_ARCHIVE_DIR: archiveDir,
      ...gatewayRegistryEnv(node),
    }),
  ];
  for (const port of [operatorAdmin, gatewayAdmin]) {
    await waitFor(
      `Slipway's admin port ${port} to be ready`,
      async () => {
        if (children.some((c) => c.exitCode !== null))
          throw new Error(`a process exited:\n${logTail('operator')}\n${logTail('gateway')}`);
        return (await fetch(`http://127.0.0.1:${port}/readyz`)).ok;
      },
      60_000,
      200,
    );
  }
  // The node's registry takes this gateway's tokens from now on.
  const gatewayByName = `http://${node.ingress.gatewayHost}:${gatewayPort}`;
  await registryDoor(gatewayByName);
  return {
    gatewayUrl,
    archiveUrlKey,
    registryRealm: `${gatewayByName}/registry/token`,
    archiveDir,
    async stop() {
      await Promise.all(children.map((child) => stopProcess(child)));
    },
  };
}

/** The last lines of a process's log (operator, gateway, or a host service), for diagnostics. */
export function logTail(name: string, lines = 40, filter?: (line: string) => boolean): string {
  try {
    const all = readFileSync(join(LOG_DIR, `${name}.log`), 'utf8').split('\n');
    return all
      .filter((l) => l && (!filter || filter(l)))
      .slice(-lines)
      .join('\n');
  } catch {
    return `(no ${name} log)`;
  }
}
