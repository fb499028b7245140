// Runs the real helm CLI (built once from the Go module proxy by scripts/helm/build.sh and
// cached outside git) against charts/slipway, and parses what it renders.
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const CHART = join(ROOT, 'charts', 'slipway');
export const RELEASE = 'slipway';
export const NAMESPACE = 'slipway-system';

/** A cold build compiles helm from source: minutes. Later runs find the cached binary. */
export const HELM_BUILD_TIMEOUT_MS = 20 * 60 * 1000;

let helmPath: string | undefined;

export function helm(): string {
  helmPath ??= execFileSync(join(ROOT, 'scripts', 'helm', 'build.sh'), {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: HELM_BUILD_TIMEOUT_MS,
  }).trim();
  return helmPath;
}

export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
};

export type Run = { status: number; stdout: string; stderr: string };

export function run(args: string[]): Run {
  const result = spawnSync(helm(), args, {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    // No cluster: helm must not reach one (lookup returns nothing, as in a first install).
    env: { ...process.env, KUBECONFIG: join(ROOT, 'does-not-exist.kubeconfig') },
  });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** `helm template` with `--set` pairs; throws with helm's message when it fails. */
export function template(set: Record<string, string | number | boolean> = {}, release = RELEASE): Manifest[] {
  const result = run(['template', release, CHART, '--namespace', NAMESPACE, ...setArgs(set)]);
  if (result.status !== 0) throw new Error(`helm template failed:\n${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

export function setArgs(set: Record<string, string | number | boolean>): string[] {
  return Object.entries(set).flatMap(([key, value]) => [
    typeof value === 'string' ? '--set-string' : '--set',
    `${key}=${String(value)}`,
  ]);
}

export function ofKind(manifests: Manifest[], kind: string): Manifest[] {
  return manifests.filter((m) => m.kind === kind);
}

export function named(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) {
    const present = manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(', ');
    throw new Error(`no ${kind}/${name} among: ${present}`);
  }
  return found;
}

/** Resource name of a component in the test release. */
export function componentName(component: 'operator' | 'gateway' | 'status-api'): string {
  return `${RELEASE}-${component}`;
}

/** The value of environment variable `name` of a component's first container. */
export function envOf(
  manifests: Manifest[],
  component: 'operator' | 'gateway' | 'status-api',
  name: string,
): string | undefined {
  const d = named(manifests, 'Deployment', componentName(component)) as unknown as {
    spec: { template: { spec: { containers: Array<{ env: Array<{ name: string; value?: string }> }> } } };
  };
  return d.spec.template.spec.containers[0]?.env.find((e) => e.name === name)?.value;
}
