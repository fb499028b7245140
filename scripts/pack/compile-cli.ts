// The CLI as a package of its own, for machines without a clone: one JavaScript file bundled by
// esbuild from cli/main.ts and everything it imports (its libraries inlined, no TypeScript, no
// runtime dependencies, none of the operator's), the two bin wrappers, LICENSE and a README, with
// a package.json that names no dependency. `npm run pack:cli` packs it:
//   node scripts/pack/compile-cli.ts [--pack-destination DIR]   # prints the tarball's path
// dist/ is removed from the clone afterwards.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = join(ROOT, 'dist');
const PACKAGE = join(DIST, 'kubectl-slipway');
/** What undici (the Kubernetes client's HTTP) needs; bin/kubectl-slipway checks it too. */
export const CLI_NODE = '22.19.0';

const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
};

const README = `# kubectl-slipway

\`kubectl slipway\`: the everyday jobs on a cluster running Slipway — connect a git provider,
build and deploy, follow, roll back, freeze, check, and post incidents to the status page.

    npm install -g ./kubectl-slipway-${root.version}.tgz
    kubectl slipway --help

Needs Node.js ${CLI_NODE} or later on PATH, and a kubeconfig. The whole guide is docs/cli.md in
Slipway's repository. Licensed under the Apache License 2.0 (LICENSE).
`;

/** The libraries a bundle's inputs come from, each with its version and licence text. */
export function notices(inputs: readonly string[]): string {
  const dirs = new Set<string>();
  for (const input of inputs) {
    const at = input.lastIndexOf('node_modules/');
    if (at < 0) continue;
    const rest = input.slice(at + 'node_modules/'.length).split('/');
    dirs.add(
      input.slice(0, at) + 'node_modules/' + rest.slice(0, rest[0]!.startsWith('@') ? 2 : 1).join('/'),
    );
  }
  const sections = [...dirs].sort().map((dir) => {
    const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      license?: string;
    };
    const file = readdirSync(join(ROOT, dir)).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
    const text = file
      ? readFileSync(join(ROOT, dir, file), 'utf8').trim()
      : `License: ${pkg.license ?? 'see the package'}`;
    return `## ${pkg.name} ${pkg.version} (${pkg.license ?? 'unknown'})\n\n${text}\n`;
  });
  return `# Third-party notices\n\nkubectl-slipway bundles these libraries; their licences follow.\n\n${sections.join('\n')}`;
}

async function compile(): Promise<void> {
  rmSync(DIST, { recursive: true, force: true });
  const bundled = await build({
    // cli/main.ts runs main() when it is the process's main module (import.meta.main): so does the bundle.
    entryPoints: [join(ROOT, 'cli', 'main.ts')],
    outfile: join(PACKAGE, 'dist', 'kubectl-slipway.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${CLI_NODE}`,
    // Libraries written as CommonJS call require(): give the bundle one.
    banner: {
      js: "import { createRequire as __slipwayRequire } from 'node:module';\nconst require = __slipwayRequire(import.meta.url);",
    },
    // Each bundled library's licence goes into THIRD_PARTY_NOTICES.md whole (below).
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  mkdirSync(join(PACKAGE, 'bin'), { recursive: true });
  for (const bin of ['kubectl-slipway', 'kubectl_complete-slipway'])
    copyFileSync(join(ROOT, 'bin', bin), join(PACKAGE, 'bin', bin));
  copyFileSync(join(ROOT, 'LICENSE'), join(PACKAGE, 'LICENSE'));
  writeFileSync(join(PACKAGE, 'THIRD_PARTY_NOTICES.md'), notices(Object.keys(bundled.metafile.inputs)));
  writeFileSync(join(PACKAGE, 'README.md'), README);
  const manifest = {
    name: 'kubectl-slipway',
    version: root.version,
    description: 'kubectl slipway: push-to-deploy and status pages on Kubernetes, from the command line',
    license: root.license,
    type: 'module',
    bin: {
      'kubectl-slipway': 'bin/kubectl-slipway',
      'kubectl_complete-slipway': 'bin/kubectl_complete-slipway',
    },
    files: ['bin/', 'dist/', 'THIRD_PARTY_NOTICES.md'],
    engines: { node: `>=${CLI_NODE}` },
  };
  writeFileSync(join(PACKAGE, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--pack-destination');
  const destination = resolve(at > 0 ? process.argv[at + 1]! : ROOT);
  await compile();
  try {
    const name = execFileSync(
      'npm',
      ['pack', PACKAGE, '--pack-destination', destination, '--loglevel=warn'],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
      .trim()
      .split('\n')
      .pop()!;
    console.log(join(destination, name));
  } finally {
    rmSync(DIST, { recursive: true, force: true });
  }
}
