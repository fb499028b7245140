// operator/heap.ts, imported first by the operator's entry point, keeps V8's young generation at
// 1 MiB per semi-space however much the process allocates, unless the user gave a semi-space size
// of their own. Each case runs in a fresh Node process.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const MODULE = fileURLToPath(new URL('../../../operator/heap.ts', import.meta.url));
const MiB = 1024 * 1024;

/** The young generation's size (both semi-spaces) after allocating ~200 MB of short-lived objects. */
function youngGenerationAfterChurn(imports: string, nodeOptions = ''): number {
  const script = `${imports}
import { getHeapSpaceStatistics } from 'node:v8';
const kept = [];
for (let i = 0; i < 3e6; i++) { const o = { i, s: 'x' + i }; if (i % 1000 === 0) kept.push(o); }
const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
console.log(space.space_size);`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return Number(out.trim());
}

describe('operator heap: young generation cap', () => {
  // Node sizes the young generation from the memory it sees: 16-32 MiB per semi-space with a few
  // hundred MiB or more (a process limited to less would need a smaller churn to show it).
  it('grows the young generation to many MiB without it (the control)', () => {
    expect(youngGenerationAfterChurn('')).toBeGreaterThanOrEqual(8 * MiB);
  });

  it('keeps it at 1 MiB per semi-space once imported', () => {
    expect(youngGenerationAfterChurn(`import '${MODULE}';`)).toBeLessThanOrEqual(2 * MiB);
  });

  it('leaves a semi-space size from NODE_OPTIONS alone', () => {
    const size = youngGenerationAfterChurn(`import '${MODULE}';`, '--max-semi-space-size=8');
    expect(size).toBeGreaterThan(2 * MiB);
    expect(size).toBeLessThanOrEqual(16 * MiB);
  });
});
