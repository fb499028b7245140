// An informer whose first list fails retries it, and a process awaiting start() waits for the
// retry: before, the retry timer did not keep the process alive, so a benchmark awaiting a first
// list that failed once ended silently ("unsettled top-level await", exit code 13).
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const TOOL = fileURLToPath(new URL('./fixtures/await-first-list.ts', import.meta.url));

/** A port nothing listens on: taken, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('Informer.start() while the first list fails', () => {
  it('keeps the awaiting process alive and retries with backoff', async () => {
    const child = spawn(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', TOOL, String(await closedPort())],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    const failures = () => output.split('\n').filter((line) => line.includes('watch failed; restarting'));
    const outcome = await new Promise<string>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        // The second failure comes after the first retry's 500 ms backoff.
        if (failures().length >= 2) resolve('retried');
      });
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => resolve(`exited with ${code}`));
    });
    child.kill();
    expect(outcome).toBe('retried');
    expect(JSON.parse(failures()[1]!)).toMatchObject({ retryInMs: 1000 });
  }, 30_000);
});
