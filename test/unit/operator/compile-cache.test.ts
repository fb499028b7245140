// The operator's entry point keeps V8's compiled code in NODE_COMPILE_CACHE (main.ts), and starts
// the same when that folder cannot be written. A real process; an invalid setting makes it stop
// right after its modules have loaded, before it would need a cluster.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';

const MAIN = fileURLToPath(new URL('../../../operator/main.ts', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'slipway-compile-cache-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function startOperator(cache: string) {
  const { PATH, HOME } = process.env;
  return spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', MAIN], {
    env: { PATH, HOME, NODE_COMPILE_CACHE: cache, SLIPWAY_WORKERS: '0' },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('operator entry point: compile cache', () => {
  it('writes the compiled code of the modules it loaded to NODE_COMPILE_CACHE', () => {
    const run = startOperator(folder);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('invalid operator configuration: SLIPWAY_WORKERS');
    const versions = readdirSync(folder);
    expect(versions).toHaveLength(1);
    expect(readdirSync(join(folder, versions[0]!)).length).toBeGreaterThan(100);
  });

  it('starts the same when the cache folder cannot be made', () => {
    // Under a file (root may write anywhere else).
    const file = join(folder, 'a-file');
    writeFileSync(file, '');
    const run = startOperator(join(file, 'cache'));
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('invalid operator configuration: SLIPWAY_WORKERS');
  });
});
