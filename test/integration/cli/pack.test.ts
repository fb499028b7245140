// The CLI as a package of its own: `npm run pack:cli` in the clone (one JavaScript file bundled
// with its libraries: no TypeScript, no dependencies, none of the operator's), `npm install -g` of
// the tarball into an empty prefix with no registry to fetch from, then the installed
// `kubectl-slipway` run with the node on PATH — its help, its version, and `get` against the test
// cluster with KUBECONFIG, as a user who never cloned the repository runs it — on the oldest Node
// it claims (CLI_NODE, 22.19: scripts/node/node.sh), and refused with a clear sentence on an older one.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SLIPWAY_VERSION } from '../../../lib/version.ts';
import { CLI_NODE } from '../../../scripts/pack/compile-cli.ts';
import { inNamespace, project, spec } from '../../support/builders.ts';
import { createNamespace, kubectlApply, testKubeConfig, testState } from '../../support/cluster.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'slipway-pack-'));
const prefix = join(work, 'prefix');
/** The Node running the tests (the project's, 24) first: npm packs and installs with it. */
const PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH}`;
/** PATH with the oldest Node the CLI claims first: the installed CLI runs `node` from PATH. */
let oldestNodePath: string;
/** The Node release just before it (22.18.0). */
let olderNode: string;
let ns: { name: string; remove: () => Promise<void> };
let tarball: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  return new Promise<Run>((resolve) => {
    execFile(
      file,
      args,
      { cwd: options.cwd, env: { ...process.env, PATH, ...options.env }, timeout: 240_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  ns = await createNamespace(testKubeConfig(), 'pack');
  await kubectlApply([project('shop', inNamespace(ns.name), spec({ slug: `shop-${ns.name}` }))]);
  const packed = await run('npm', ['run', '-s', 'pack:cli', '--', '--pack-destination', work], { cwd: ROOT });
  expect(packed).toEqual(expect.objectContaining({ code: 0 }));
  // It prints the tarball's path.
  tarball = packed.stdout.trim();
  mkdirSync(prefix);
  const installed = await run('npm', [
    'install',
    '--global',
    '--prefix',
    prefix,
    '--no-audit',
    '--no-fund',
    // Nothing to fetch: the package names no dependency.
    '--offline',
    tarball,
  ]);
  expect(installed).toEqual(expect.objectContaining({ code: 0 }));
  const oldest = await run('sh', [join(ROOT, 'scripts', 'node', 'node.sh'), CLI_NODE]);
  expect(oldest).toEqual(expect.objectContaining({ code: 0 }));
  oldestNodePath = `${dirname(oldest.stdout.trim())}${delimiter}${process.env.PATH}`;
  const [major, minor] = CLI_NODE.split('.').map(Number);
  const older = await run('sh', [join(ROOT, 'scripts', 'node', 'node.sh'), `${major}.${minor! - 1}.0`]);
  expect(older).toEqual(expect.objectContaining({ code: 0 }));
  olderNode = older.stdout.trim();
}, 300_000);

/** The installed `kubectl-slipway` (or its completion helper) run on the oldest Node it claims. */
const cli = (args: string[], env: NodeJS.ProcessEnv = {}, bin = 'kubectl-slipway') =>
  run(join(prefix, 'bin', bin), args, { env: { PATH: oldestNodePath, ...env } });

afterAll(async () => {
  await ns?.remove();
  rmSync(work, { recursive: true, force: true });
});

describe('the CLI packed with npm pack and installed with npm install -g', () => {
  it('holds one bundled file, the bin wrappers, LICENSE and README, names no dependency; the clone keeps no dist/', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    expect(stdout.trim().split('\n').sort()).toEqual([
      'package/LICENSE',
      'package/README.md',
      'package/THIRD_PARTY_NOTICES.md',
      'package/bin/kubectl-slipway',
      'package/bin/kubectl_complete-slipway',
      'package/dist/kubectl-slipway.js',
      'package/package.json',
    ]);
    const installedAt = join(prefix, 'lib', 'node_modules', 'kubectl-slipway');
    const manifest = JSON.parse(readFileSync(join(installedAt, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest).toMatchObject({
      name: 'kubectl-slipway',
      license: 'Apache-2.0',
      engines: { node: `>=${CLI_NODE}` },
    });
    expect(manifest).not.toHaveProperty('dependencies');
    // Installed, it is the package alone: no node_modules of its own, none of the operator's.
    expect(existsSync(join(installedAt, 'node_modules'))).toBe(false);
    expect(readdirSync(join(prefix, 'lib', 'node_modules'))).toEqual(['kubectl-slipway']);
    expect(existsSync(join(ROOT, 'dist'))).toBe(false);
    // What the bundle holds, each library with its licence: the Kubernetes client's, none of the
    // operator's, gateway's or status API's own.
    const bundled = [
      ...readFileSync(join(installedAt, 'THIRD_PARTY_NOTICES.md'), 'utf8').matchAll(/^## (\S+) /gm),
    ].map((m) => m[1]);
    expect(bundled).toEqual(expect.arrayContaining(['@kubernetes/client-node', 'yaml']));
    for (const operatorOnly of ['pino', 'prom-client', 'express', '@aws-sdk/credential-provider-node'])
      expect(bundled).not.toContain(operatorOnly);
  });

  it(`kubectl-slipway version --client says the release, run by Node ${CLI_NODE}`, async () => {
    expect((await run('node', ['--version'], { env: { PATH: oldestNodePath } })).stdout).toBe(
      `v${CLI_NODE}\n`,
    );
    const version = await cli(['version', '--client']);
    expect(version).toEqual(expect.objectContaining({ code: 0, stdout: `client: ${SLIPWAY_VERSION}\n` }));
  });

  it('the Node release before it on PATH gets one sentence saying which Node it needs', async () => {
    const older = await cli(['version', '--client'], {
      PATH: `${dirname(olderNode)}${delimiter}${process.env.PATH}`,
    });
    expect(older).toEqual({
      code: 1,
      stdout: '',
      stderr: `kubectl-slipway: needs Node.js 22.19 or later (${olderNode} is v22.18.0): put Node.js 22.19 or later on PATH\n`,
    });
  });

  it('kubectl-slipway --help prints the usage, and kubectl’s completion helper answers', async () => {
    const help = await cli(['--help']);
    expect(help).toEqual(expect.objectContaining({ code: 0 }));
    expect(help.stdout).toMatch(/^Usage: kubectl slipway <command> \[arguments\] \[flags\]$/m);
    expect(help.stdout).toMatch(/^ {2}get +projects, environments/m);
    const completion = await cli(['notice', 're'], {}, 'kubectl_complete-slipway');
    expect(completion).toEqual(expect.objectContaining({ code: 0, stdout: 'resolve\n:4\n' }));
  });

  it('kubectl-slipway get lists the namespace’s project with the kubeconfig in KUBECONFIG', async () => {
    const get = await cli(['get', '-n', ns.name], { KUBECONFIG: testState().kubeconfig });
    expect(get).toEqual(expect.objectContaining({ code: 0 }));
    expect(get.stdout).toMatch(
      new RegExp(`^PROJECTS\\nNAME +SLUG +READY +REASON +AGE\\nshop +shop-${ns.name} `, 'm'),
    );
    expect(get.stdout).toContain(`No environments in namespace ${ns.name}.`);
    expect(get.stdout).toContain(`No bundles in namespace ${ns.name}.`);
  });
});
