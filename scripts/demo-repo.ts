// The real-node demo's git repository: a bare repository and a work tree in .slipway/demo-repo,
// served at the real node's host address, so build Jobs clone real commits.
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GIT_DAEMON_PORT } from './cluster/real-node.ts';
import { commitAndPush, createRepository, serveRepositories } from './git-server.ts';

const run = promisify(execFile);

export interface DemoRepo {
  url: string;
  /** The work tree: edit, commit and `git push` here. */
  workTree: string;
  firstCommit: string;
  server: ChildProcess;
}

export async function serveDemoRepo(dir: string, address: string, port = GIT_DAEMON_PORT): Promise<DemoRepo> {
  let workTree = join(dir, 'shop');
  if (!existsSync(join(dir, 'shop.git'))) {
    workTree = await createRepository(dir, 'shop');
    await commitAndPush(
      workTree,
      { 'web/index.html': '<h1>Hello from Slipway</h1>\n' },
      'First version of the shop',
    );
  }
  const firstCommit = (
    await run('git', ['rev-list', '--max-parents=0', 'HEAD'], { cwd: workTree })
  ).stdout.trim();
  const { url, server } = await serveRepositories(dir, address, port, 'shop');
  return { url, workTree, firstCommit, server };
}
