// A repository on a real Gitea with a working copy on this machine: commits pushed to a branch
// (of the repository or of a fork), pull requests opened once Gitea lists their branch, and
// what Gitea then shows: a commit's statuses, a pull request's comments.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../../support/cluster.ts';
import { gitIn, type Gitea, type GiteaApi } from '../../support/gitea.ts';

interface GiteaStatus {
  id: number;
  context: string;
  status: string;
  target_url: string;
  description: string;
}

export interface GiteaRepo {
  /** owner/name */
  path: string;
  /**
   * Commits `files` (path → content; null removes) on `branch`, made from the current one when
   * new, and pushes it to `to` (a push URL; the repository's by default); the new commit.
   */
  push(branch: string, files: Record<string, string | null>, message: string, to?: string): Promise<string>;
  /**
   * Opens a pull request into main as `api`'s user, once Gitea lists its branch (`head`:
   * a branch of this repository, or `owner/name:branch` of a fork); its number.
   */
  openPullRequest(
    head: string,
    title: string,
    options?: { api?: GiteaApi; labels?: number[] },
  ): Promise<number>;
  /** Each context's states in the order Gitea took them, once `done` holds of them. */
  statusesOf(
    commit: string,
    done: (states: Record<string, string[]>) => boolean,
  ): Promise<{ states: Record<string, string[]>; all: GiteaStatus[] }>;
  /** Pull request `number`'s comments, once one says `state` of `commit`. */
  commentsSaying(number: number, state: string, commit: string): Promise<Array<{ id: number; body: string }>>;
  remove(): void;
}

/**
 * Creates repository `name` of Gitea's admin user and a working copy on main: empty, or with the
 * history of main at `from` (a clone URL), pushed to Gitea as a repository that moves there.
 */
export async function giteaRepo(gitea: Gitea, name: string, from?: string): Promise<GiteaRepo> {
  const path = `${gitea.user}/${name}`;
  await gitea.api('POST', '/user/repos', { name, default_branch: 'main' });
  const work = mkdtempSync(join(tmpdir(), `slipway-e2e-${name}-`));
  const git = gitIn(work);
  await git('init', '-qb', 'main');
  if (from) {
    await git('pull', '-q', from, 'main');
    await git('push', '-q', gitea.pushUrl(name), 'main');
  }

  return {
    path,
    async push(branch, files, message, to = gitea.pushUrl(name)) {
      const current = await git('rev-parse', '--abbrev-ref', 'HEAD').catch(() => 'main');
      if (current !== branch) await git('switch', '-q', branch).catch(() => git('switch', '-qc', branch));
      for (const [file, content] of Object.entries(files)) {
        if (content === null) await git('rm', '-rq', file);
        else {
          mkdirSync(join(work, file, '..'), { recursive: true });
          writeFileSync(join(work, file), content);
          await git('add', file);
        }
      }
      await git('commit', '-qm', message);
      await git('push', '-q', to, branch);
      return git('rev-parse', 'HEAD');
    },
    async openPullRequest(head, title, { api = gitea.api, labels } = {}) {
      const [from, branch] = head.includes(':') ? head.split(':') : [path, head];
      // Gitea lists a pushed branch a moment after the push.
      await waitFor(`Gitea to list branch ${branch} of ${from}`, async () =>
        (await api<Array<{ name: string }> | null>('GET', `/repos/${from}/branches`))?.some(
          (b) => b.name === branch,
        ),
      );
      const pr = await api<{ number: number }>('POST', `/repos/${path}/pulls`, {
        head,
        base: 'main',
        title,
        ...(labels ? { labels } : {}),
      });
      return pr.number;
    },
    statusesOf(commit, done) {
      return waitFor(`Gitea's statuses of ${commit.slice(0, 7)}`, async () => {
        const all = await gitea.api<GiteaStatus[]>('GET', `/repos/${path}/commits/${commit}/statuses`);
        const states: Record<string, string[]> = {};
        for (const s of [...all].sort((a, b) => a.id - b.id)) (states[s.context] ??= []).push(s.status);
        return done(states) ? { states, all } : undefined;
      });
    },
    commentsSaying(number, state, commit) {
      return waitFor(
        `a comment on pull request ${number} saying ${state} for ${commit.slice(0, 7)}`,
        async () => {
          const comments = await gitea.api<Array<{ id: number; body: string }>>(
            'GET',
            `/repos/${path}/issues/${number}/comments`,
          );
          return comments.some((c) => c.body.includes(state) && c.body.includes(commit.slice(0, 12)))
            ? comments
            : undefined;
        },
      );
    },
    remove: () => rmSync(work, { recursive: true, force: true }),
  };
}
