// The CLI as JavaScript for the package (`npm pack` runs this as prepack): Node does not strip the
// types of files under node_modules, where `npm install -g` puts the package. tsc compiles
// cli/main.ts and what it imports from crds/, rules/, lib/ and providers/ into dist/ (tsconfig.pack.json: `.ts`
// imports become `.js`), and dist/kubectl-slipway.js is what bin/kubectl-slipway runs once
// installed. postpack runs it with --clean: dist/ does not stay in the clone.
//   node scripts/pack/compile-cli.ts [--clean]
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const DIST = join(ROOT, 'dist');

const ENTRY = `// kubectl-slipway installed from the package (bin/kubectl-slipway runs it): cli/main.ts, compiled.
import { main } from './cli/main.js';

process.exitCode = await main(process.argv.slice(2));
`;

rmSync(DIST, { recursive: true, force: true });
if (!process.argv.includes('--clean')) {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.pack.json')], { stdio: 'inherit' });
  writeFileSync(join(DIST, 'kubectl-slipway.js'), ENTRY);
}
