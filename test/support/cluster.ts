// What integration tests use to talk to the real API server the global setup prepared.
import { stringify } from 'yaml';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { kubeConfigFromFile } from '../../lib/kube.ts';
import { KUBECTL_CACHE_DIR, STATE_FILE, type TestClusterState } from './state.ts';

const run = promisify(execFile);

export function testState(): TestClusterState {
  return JSON.parse(readFileSync(STATE_FILE, 'utf8')) as TestClusterState;
}

export function testKubeConfig(): KubeConfig {
  return kubeConfigFromFile(testState().kubeconfig);
}

/**
 * The test cluster as Slipway's own identity (scripts/cluster/writers.ts): what the processes
 * run as, and what a test uses to write what only Slipway may (a status, a push's bundle).
 */
export function controllerKubeConfig(): KubeConfig {
  return kubeConfigFromFile(testState().controllerKubeconfig);
}

/** A fresh namespace for one test file; delete it in afterAll. */
export async function createNamespace(
  kc: KubeConfig,
  prefix: string,
): Promise<{ name: string; remove: () => Promise<void> }> {
  const core = kc.makeApiClient(CoreV1Api);
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  await core.createNamespace({ body: { metadata: { name, labels: { 'slipway.dev/test': 'true' } } } });
  return {
    name,
    remove: async () => {
      await core.deleteNamespace({ name }).catch(() => undefined);
    },
  };
}

/** kubectl against the test cluster, as a user would run it. */
export async function kubectl(args: string[], input?: string): Promise<{ stdout: string; stderr: string }> {
  const state = testState();
  const bin = state.binDir ? join(state.binDir, 'kubectl') : 'kubectl';
  const child = run(bin, ['--kubeconfig', state.kubeconfig, '--cache-dir', KUBECTL_CACHE_DIR, ...args], {
    maxBuffer: 16 * 1024 * 1024,
  });
  if (input !== undefined) {
    child.child.stdin!.end(input);
  }
  return child;
}

/**
 * `kubectl apply -f -` of `objects` as one YAML stream, as a user applies a file; `flags` go
 * before it (`-n`, `--as`). Rejects with kubectl's message when it refuses.
 */
/** `kubectl patch <kind> <name> -n <namespace> --type=merge -p <body>`, as a user changes one field. */
export function kubectlPatch(kind: string, name: string, namespace: string, body: object) {
  return kubectl(['patch', kind, name, '-n', namespace, '--type=merge', '-p', JSON.stringify(body)]);
}

export function kubectlApply(objects: readonly unknown[], ...flags: string[]) {
  return kubectl(['apply', ...flags, '-f', '-'], objects.map((o) => stringify(o)).join('---\n'));
}

/** The value of a project's webhook secret, read with kubectl as a user would. */
export async function webhookSecretValue(
  namespace: string,
  secretName: string,
  key = 'secret',
): Promise<string> {
  const { stdout } = await kubectl([
    'get',
    'secret',
    '-n',
    namespace,
    secretName,
    '-o',
    `jsonpath={.data.${key}}`,
  ]);
  return Buffer.from(stdout, 'base64').toString();
}

export { waitFor } from '../../lib/wait.ts';
