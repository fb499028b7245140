// The operator's entry point (main.ts) keeps V8's compiled code in the temp directory, and
// starts the same when that folder cannot be made. A real process; an invalid setting makes it
// stop right after its modules have loaded, before it would need a cluster.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';

const MAIN = fileURLToPath(new URL('../../../operator/main.ts', import.meta.url));
const folders: string[] = [];
const newFolder = () => {
  const folder = mkdtempSync(join(tmpdir(), 'slipway-compile-cache-'));
  folders.push(folder);
  return folder;
};
afterAll(() => folders.forEach((f) => rmSync(f, { recursive: true, force: true })));

/** The entry point with only TMPDIR to go by (no NODE_COMPILE_CACHE, which Node obeys by itself). */
function startOperator(temp: string) {
  const { PATH, HOME } = process.env;
  return spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', MAIN], {
    env: { PATH, HOME, TMPDIR: temp, SLIPWAY_WORKERS: '0' },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('operator entry point: compile cache', () => {
  it('writes the compiled code of the modules it loaded under the temp directory', () => {
    const temp = newFolder();
    const run = startOperator(temp);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('invalid operator configuration: SLIPWAY_WORKERS');
    const versions = readdirSync(join(temp, 'node-compile-cache'));
    expect(versions).toHaveLength(1);
    expect(readdirSync(join(temp, 'node-compile-cache', versions[0]!)).length).toBeGreaterThan(100);
  });

  it('starts the same when the cache folder cannot be made', () => {
    // Under a file (root may write anywhere else).
    const file = join(newFolder(), 'a-file');
    writeFileSync(file, '');
    const run = startOperator(file);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('invalid operator configuration: SLIPWAY_WORKERS');
  });
});
