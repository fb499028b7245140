// Git repositories served from this machine by `git daemon` (git://), so build Jobs on the real
// node clone real commits: the real-node demo's repository and the e2e tier's.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '../lib/wait.ts';

const run = promisify(execFile);

/** A bare repository `<dir>/<name>.git` and its work tree `<dir>/<name>` (origin: the bare one). */
export async function createRepository(dir: string, name: string): Promise<string> {
  const workTree = join(dir, name);
  const git = (...args: string[]) => run('git', args, { cwd: workTree });
  await run('git', ['init', '-q', '--bare', '-b', 'main', join(dir, `${name}.git`)]);
  await run('git', ['init', '-q', '-b', 'main', workTree]);
  await git('remote', 'add', 'origin', join(dir, `${name}.git`));
  await git('config', 'user.email', 'slipway@slipway.local');
  await git('config', 'user.name', 'Slipway');
  return workTree;
}

/** Writes `files` (path → content), commits them on `branch` and pushes; the commit id. */
export async function commitAndPush(
  workTree: string,
  files: Record<string, string>,
  message: string,
  branch = 'main',
): Promise<string> {
  const git = (...args: string[]) => run('git', args, { cwd: workTree });
  const exists = await git('rev-parse', '--verify', '-q', `refs/heads/${branch}`).then(
    () => true,
    () => false,
  );
  // A new branch starts from the current commit; an existing one is continued.
  await git('checkout', '-q', ...(exists ? [branch] : ['-B', branch]));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(workTree, path)), { recursive: true });
    writeFileSync(join(workTree, path), content);
  }
  await git('add', '-A');
  await git('commit', '-q', '-m', message);
  await git('push', '-q', '-f', '--set-upstream', 'origin', branch);
  return (await git('rev-parse', 'HEAD')).stdout.trim();
}

/**
 * Serves every bare repository in `dir` at git://<address>:<port>/<name>.git; resolves once
 * `name` answers.
 */
export async function serveRepositories(
  dir: string,
  address: string,
  port: number,
  name: string,
  log: number | 'ignore' = 'ignore',
): Promise<{ url: string; server: ChildProcess }> {
  const server = spawn(
    'git',
    [
      'daemon',
      `--base-path=${dir}`,
      '--export-all',
      `--listen=${address}`,
      `--port=${port}`,
      '--reuseaddr',
      '--informative-errors',
    ],
    { stdio: ['ignore', log, log] },
  );
  const url = `git://${address}:${port}/${name}.git`;
  await waitFor(
    `git daemon at ${url}`,
    async () => {
      if (server.exitCode !== null) throw new Error(`git daemon exited with ${server.exitCode}`);
      return run('git', ['ls-remote', url]).then(
        () => true,
        () => false,
      );
    },
    20_000,
    200,
  );
  return { url, server };
}
