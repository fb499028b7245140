// One claim of each Node version, wherever it is written: the clone needs any Node ≥ 20.16 to run
// npm ci (which installs the Node 24 everything runs on); the packed CLI needs 22.19.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { CLI_NODE } from '../../../scripts/pack/compile-cli.ts';

const read = (path: string) =>
  readFileSync(fileURLToPath(new URL(`../../../${path}`, import.meta.url)), 'utf8');

describe('the Node versions Slipway names', () => {
  it("the clone's: package.json engines, README and getting-started say the same", () => {
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    expect(engines).toBe('>=20.16');
    expect(read('README.md')).toContain('You need Node.js with npm (any version ≥ 20.16)');
    expect(read('docs/getting-started.md')).toContain('Node.js with npm, any version ≥ 20.16');
  });

  it("the packed CLI's: its package, its bin wrapper and docs/cli.md say the same", () => {
    expect(CLI_NODE).toBe('22.19.0');
    const minor = CLI_NODE.split('.').slice(0, 2).join('.');
    expect(read('bin/kubectl-slipway')).toContain(`minimum=${minor}`);
    expect(read('docs/cli.md')).toContain(`**Node ${minor} or later**`);
  });
});
