// npm start's supervisor, with real child processes: a child that exits is started again after a
// back-off that doubles to a ceiling and starts over after a long enough run; stop() ends it.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Supervisor } from '../../../scripts/supervisor.ts';
import { waitFor } from '../../../lib/wait.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'slipway-supervisor-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A child that appends a line to `runs` when it starts, then exits with 3 after `lifeMs`. */
async function script(lifeMs: number): Promise<{ path: string; runs: string }> {
  const runs = join(dir, `runs-${lifeMs}-${Math.random().toString(16).slice(2)}`);
  const path = `${runs}.mjs`;
  await writeFile(
    path,
    `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(runs)}, 'run\\n');\nsetTimeout(() => process.exit(3), ${lifeMs});\n`,
  );
  return { path, runs };
}

/** A supervisor of `path`, its log lines collected. */
function supervise(
  name: string,
  path: string,
  delays: { initialDelayMs: number; maxDelayMs: number; resetAfterMs: number },
  command = process.execPath,
) {
  const lines: string[] = [];
  const supervisor = new Supervisor({
    name,
    command,
    args: path ? [path] : [],
    env: process.env,
    cwd: dir,
    log: (m) => lines.push(m),
    ...delays,
  });
  return { supervisor, lines };
}

describe('the npm start supervisor', () => {
  it('starts an exiting child again, waiting twice as long each time up to the ceiling', async () => {
    const { path } = await script(0);
    const { supervisor, lines } = supervise('gateway', path, {
      initialDelayMs: 50,
      maxDelayMs: 200,
      resetAfterMs: 60_000,
    });
    supervisor.start();
    await waitFor('four restarts', async () => supervisor.restarts >= 4, 20_000, 20);
    await supervisor.stop();
    expect(lines.slice(0, 4)).toEqual([
      '[gateway] exited (3); starting it again in 0.05 s (restart 1)',
      '[gateway] exited (3); starting it again in 0.1 s (restart 2)',
      '[gateway] exited (3); starting it again in 0.2 s (restart 3)',
      '[gateway] exited (3); starting it again in 0.2 s (restart 4)',
    ]);
  });

  it('keeps trying, with a line each time, when the program cannot even be started', async () => {
    // A program that does not exist: spawn reports an error (and no exit) each time.
    const { supervisor, lines } = supervise(
      'status-api',
      '',
      { initialDelayMs: 20, maxDelayMs: 40, resetAfterMs: 60_000 },
      join(dir, 'no-such-program'),
    );
    supervisor.start();
    await waitFor('two attempts', async () => supervisor.restarts >= 2, 10_000, 10);
    await supervisor.stop();
    expect(lines[0]).toMatch(
      /^\[status-api\] could not be started \(spawn .*no-such-program ENOENT\); starting it again in 0.02 s \(restart 1\)$/,
    );
  });

  it('starts over at the first delay after a long enough run, and starts nothing after stop()', async () => {
    const { path, runs } = await script(800);
    const { supervisor, lines } = supervise('operator', path, {
      initialDelayMs: 50,
      maxDelayMs: 1_000,
      resetAfterMs: 200,
    });
    supervisor.start();
    const started = async () =>
      (await readFile(runs, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
    // Stopped while its third run is under way.
    await waitFor('a third run', async () => (await started()) === 3, 20_000, 10);
    await supervisor.stop();
    // Every run lasted 800 ms, over the 200 ms that reset the back-off.
    expect(lines).toEqual([
      '[operator] exited (3); starting it again in 0.05 s (restart 1)',
      '[operator] exited (3); starting it again in 0.05 s (restart 2)',
    ]);
    // Killed by stop(), the third run's exit started nothing.
    expect(supervisor.restarts).toBe(2);
    expect(await started()).toBe(3);
  });
});
