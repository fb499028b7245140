// The commit status request of each provider, as its API documents it (providers/report.ts names
// the sources): method, URL, the Authorization each expects, and the body's fields and states.
import { describe, expect, it } from '@jest/globals';
import { registry } from '../../../providers/index.ts';
import { cleartextApi, type CommitStatus, type ReportTarget } from '../../../providers/report.ts';

const SHA = '90d948e5d990567242b1959ee3ac0129cf3ac1c4';
const TOKEN = 'tok-123';
const status = (state: CommitStatus['state'], context = 'slipway/build'): CommitStatus => ({
  state,
  context,
  description: 'Built bundle shop-90d948e',
  targetUrl: 'https://hooks.example.com/bundles/shop/shop-90d948e/t0k',
});
const target = (provider: keyof typeof registry, url: string, apiUrl?: string): ReportTarget => {
  const t = registry[provider].report.target(url, apiUrl);
  if (typeof t === 'string') throw new Error(t);
  return t;
};

describe('where statuses go, from the repository URL', () => {
  it.each<[keyof typeof registry, string, string | undefined, ReportTarget]>([
    [
      'github',
      'https://github.com/acme/shop.git',
      undefined,
      { apiUrl: 'https://api.github.com', repository: 'acme/shop' },
    ],
    [
      'github',
      'git@github.com:acme/shop.git',
      undefined,
      { apiUrl: 'https://api.github.com', repository: 'acme/shop' },
    ],
    [
      'github',
      'https://ghe.example.com/acme/shop',
      undefined,
      { apiUrl: 'https://ghe.example.com/api/v3', repository: 'acme/shop' },
    ],
    [
      'gitlab',
      'https://gitlab.com/group/sub/shop.git',
      undefined,
      { apiUrl: 'https://gitlab.com/api/v4', repository: 'group%2Fsub%2Fshop' },
    ],
    [
      'gitlab',
      'ssh://git@git.example.com:2222/group/shop.git',
      'https://git.example.com/api/v4/',
      { apiUrl: 'https://git.example.com/api/v4', repository: 'group%2Fshop' },
    ],
    [
      'bitbucket',
      'https://user@bitbucket.org/acme/shop.git',
      undefined,
      { apiUrl: 'https://api.bitbucket.org/2.0', repository: 'acme/shop' },
    ],
    [
      'azure-devops',
      'https://dev.azure.com/acme/Web%20Shop/_git/shop',
      undefined,
      { apiUrl: 'https://dev.azure.com', repository: 'acme/Web%20Shop/shop' },
    ],
    [
      'azure-devops',
      'git@ssh.dev.azure.com:v3/acme/web/shop',
      undefined,
      { apiUrl: 'https://dev.azure.com', repository: 'acme/web/shop' },
    ],
    [
      'azure-devops',
      'https://acme.visualstudio.com/web/_git/shop',
      undefined,
      { apiUrl: 'https://dev.azure.com', repository: 'acme/web/shop' },
    ],
    [
      'gitea',
      'http://127.0.0.1:3000/slipway/site.git',
      undefined,
      { apiUrl: 'http://127.0.0.1:3000/api/v1', repository: 'slipway/site' },
    ],
    [
      'gitea',
      'https://codeberg.org/acme/shop.git',
      undefined,
      { apiUrl: 'https://codeberg.org/api/v1', repository: 'acme/shop' },
    ],
  ])('%s %s', (provider, url, apiUrl, expected) => {
    expect(registry[provider].report.target(url, apiUrl)).toEqual(expected);
  });

  it('says why when the URL does not name a repository the API knows', () => {
    expect(registry.github.report.target('https://github.com/acme', undefined)).toMatch(
      /cannot read owner\/repository/,
    );
    expect(registry['azure-devops'].report.target('https://dev.azure.com/acme/shop', undefined)).toMatch(
      /cannot read organization\/project\/repository/,
    );
  });
});

describe('the commit status request', () => {
  it('GitHub: POST /repos/{owner}/{repo}/statuses/{sha}, Bearer, GitHub states, description ≤ 140', () => {
    const long = { ...status('failure'), description: 'x'.repeat(200) };
    const request = registry.github.report.commitStatus(
      target('github', 'https://github.com/acme/shop'),
      SHA,
      TOKEN,
      long,
    );
    expect(request).toMatchObject({
      method: 'POST',
      url: `https://api.github.com/repos/acme/shop/statuses/${SHA}`,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
      },
      body: { state: 'failure', context: 'slipway/build', target_url: long.targetUrl },
    });
    expect((request.body as { description: string }).description).toHaveLength(140);
  });

  it('GitLab: POST /projects/{path}/statuses/{sha}, PRIVATE-TOKEN, name; pending is running and error canceled', () => {
    const t = target('gitlab', 'https://gitlab.com/group/shop.git');
    const pending = registry.gitlab.report.commitStatus(t, SHA, TOKEN, status('pending'));
    expect(pending).toMatchObject({
      url: `https://gitlab.com/api/v4/projects/group%2Fshop/statuses/${SHA}`,
      headers: { 'private-token': TOKEN },
      body: { state: 'running', name: 'slipway/build', target_url: status('pending').targetUrl },
    });
    expect(pending.headers.authorization).toBeUndefined();
    const states = (['success', 'failure', 'error'] as const).map(
      (s) => (registry.gitlab.report.commitStatus(t, SHA, TOKEN, status(s)).body as { state: string }).state,
    );
    expect(states).toEqual(['success', 'failed', 'canceled']);
  });

  it('Bitbucket Cloud: POST …/commit/{sha}/statuses/build, Bearer, a key of at most 40 characters and a URL', () => {
    const t = target('bitbucket', 'https://bitbucket.org/acme/shop.git');
    const long = registry.bitbucket.report.commitStatus(t, SHA, TOKEN, {
      ...status('pending', 'slipway/deploy/a-rather-long-environment-name'),
      targetUrl: undefined,
    });
    expect(long).toMatchObject({
      url: `https://api.bitbucket.org/2.0/repositories/acme/shop/commit/${SHA}/statuses/build`,
      headers: { authorization: `Bearer ${TOKEN}` },
      body: {
        state: 'INPROGRESS',
        name: 'slipway/deploy/a-rather-long-environment-name',
        url: `https://bitbucket.org/acme/shop/commits/${SHA}`,
      },
    });
    expect((long.body as { key: string }).key).toMatch(/^[0-9a-f]{40}$/);
    const short = registry.bitbucket.report.commitStatus(t, SHA, TOKEN, status('error'));
    expect(short.body).toMatchObject({ key: 'slipway/build', state: 'STOPPED' });
  });

  it('Azure DevOps: POST …/_apis/git/repositories/{repo}/commits/{sha}/statuses?api-version=7.1, Basic :PAT, genre slipway', () => {
    const t = target('azure-devops', 'https://dev.azure.com/acme/web/_git/shop');
    const request = registry['azure-devops'].report.commitStatus(
      t,
      SHA,
      TOKEN,
      status('success', 'slipway/deploy/staging'),
    );
    expect(request).toEqual({
      method: 'POST',
      url: `https://dev.azure.com/acme/web/_apis/git/repositories/shop/commits/${SHA}/statuses?api-version=7.1`,
      headers: expect.objectContaining({
        authorization: `Basic ${Buffer.from(`:${TOKEN}`).toString('base64')}`,
      }),
      body: {
        state: 'succeeded',
        description: 'Built bundle shop-90d948e',
        targetUrl: status('success').targetUrl,
        context: { genre: 'slipway', name: 'deploy/staging' },
      },
    });
  });

  it('Gitea: POST /api/v1/repos/{owner}/{repo}/statuses/{sha}, "token", GitHub states', () => {
    const request = registry.gitea.report.commitStatus(
      target('gitea', 'https://gitea.example.com/acme/shop.git'),
      SHA,
      TOKEN,
      status('pending'),
    );
    expect(request).toMatchObject({
      url: `https://gitea.example.com/api/v1/repos/acme/shop/statuses/${SHA}`,
      headers: { authorization: `token ${TOKEN}` },
      body: { state: 'pending', context: 'slipway/build', target_url: status('pending').targetUrl },
    });
  });
});

describe('a rollout as a GitHub deployment', () => {
  const t = () => target('github', 'https://github.com/acme/shop.git');
  it('is made for the commit and environment without merging or waiting for other checks', () => {
    const api = registry.github.report.deployment!;
    expect(api.create(t(), SHA, TOKEN, 'production', 'Deploying to production')).toMatchObject({
      method: 'POST',
      url: 'https://api.github.com/repos/acme/shop/deployments',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: {
        ref: SHA,
        environment: 'production',
        auto_merge: false,
        required_contexts: [],
        production_environment: true,
      },
    });
    expect(api.idOf({ id: 4711, url: '…' })).toBe('4711');
    expect(api.idOf({})).toBeUndefined();
  });

  it('gets in_progress, then success or failure, linking the bundle and the environment', () => {
    const api = registry.github.report.deployment!;
    const details = {
      description: 'Deployed to staging',
      logUrl: 'https://hooks/b',
      environmentUrl: 'https://staging.example.com',
    };
    expect(api.status(t(), '4711', TOKEN, 'pending', details)).toMatchObject({
      url: 'https://api.github.com/repos/acme/shop/deployments/4711/statuses',
      body: {
        state: 'in_progress',
        log_url: 'https://hooks/b',
        environment_url: 'https://staging.example.com',
      },
    });
    expect((api.status(t(), '4711', TOKEN, 'failure', details).body as { state: string }).state).toBe(
      'failure',
    );
    // Providers without deployments report rollouts as commit statuses.
    expect(registry.gitea.report.deployment).toBeUndefined();
  });
});

describe('a rollout as a GitLab deployment', () => {
  const t = () => target('gitlab', 'https://gitlab.com/acme/web/shop.git');
  it('is made running for the commit, its branch and environment, then set to success or failed', () => {
    const api = registry.gitlab.report.deployment!;
    expect(api.create(t(), SHA, TOKEN, 'production', 'Deploying to production', 'main')).toEqual({
      method: 'POST',
      url: 'https://gitlab.com/api/v4/projects/acme%2Fweb%2Fshop/deployments',
      headers: expect.objectContaining({ 'private-token': TOKEN }),
      body: { environment: 'production', sha: SHA, ref: 'main', tag: false, status: 'running' },
    });
    // Without a branch (an upload that named none) the commit is the ref.
    expect(api.create(t(), SHA, TOKEN, 'production', '…').body).toMatchObject({ ref: SHA });
    expect(api.idOf({ id: 42, iid: 7 })).toBe('42');
    const details = { description: 'Deployed to production' };
    expect(api.status(t(), '42', TOKEN, 'success', details)).toEqual({
      method: 'PUT',
      url: 'https://gitlab.com/api/v4/projects/acme%2Fweb%2Fshop/deployments/42',
      headers: expect.objectContaining({ 'private-token': TOKEN }),
      body: { status: 'success' },
    });
    expect(api.status(t(), '42', TOKEN, 'failure', details).body).toEqual({ status: 'failed' });
    expect(api.status(t(), '42', TOKEN, 'error', details).body).toEqual({ status: 'canceled' });
  });
});

describe("a preview's comment on its pull request", () => {
  const BODY = '**Slipway preview** ✅ ready';
  it.each<[keyof typeof registry, string, string, string, string, object]>([
    [
      'github',
      'https://github.com/acme/shop.git',
      'POST https://api.github.com/repos/acme/shop/issues/7/comments',
      'PATCH https://api.github.com/repos/acme/shop/issues/comments/99',
      `Bearer ${TOKEN}`,
      { body: BODY },
    ],
    [
      'gitea',
      'https://gitea.example.com/acme/shop.git',
      'POST https://gitea.example.com/api/v1/repos/acme/shop/issues/7/comments',
      'PATCH https://gitea.example.com/api/v1/repos/acme/shop/issues/comments/99',
      `token ${TOKEN}`,
      { body: BODY },
    ],
    [
      'gitlab',
      'https://gitlab.com/acme/web/shop.git',
      'POST https://gitlab.com/api/v4/projects/acme%2Fweb%2Fshop/merge_requests/7/notes',
      'PUT https://gitlab.com/api/v4/projects/acme%2Fweb%2Fshop/merge_requests/7/notes/99',
      '',
      { body: BODY },
    ],
    [
      'bitbucket',
      'https://bitbucket.org/acme/shop.git',
      'POST https://api.bitbucket.org/2.0/repositories/acme/shop/pullrequests/7/comments',
      'PUT https://api.bitbucket.org/2.0/repositories/acme/shop/pullrequests/7/comments/99',
      `Bearer ${TOKEN}`,
      { content: { raw: BODY } },
    ],
  ])('%s: made once, then edited by its id', (provider, url, create, update, authorization, body) => {
    const comment = registry[provider].report.comment!;
    const made = comment.create(target(provider, url), 7, TOKEN, BODY);
    expect(`${made.method} ${made.url}`).toBe(create);
    expect(made.body).toEqual(body);
    if (authorization) expect(made.headers.authorization).toBe(authorization);
    else expect(made.headers['private-token']).toBe(TOKEN);
    expect(comment.idOf({ id: 99 })).toBe('99');
    const edited = comment.update(target(provider, url), 7, '99', TOKEN, BODY);
    expect(`${edited.method} ${edited.url}`).toBe(update);
    expect(edited.body).toEqual(body);
  });

  it('Azure DevOps: a thread of its own, whose first comment is edited', () => {
    const comment = registry['azure-devops'].report.comment!;
    const at = target('azure-devops', 'https://dev.azure.com/acme/web/_git/shop');
    const made = comment.create(at, 7, TOKEN, BODY);
    expect(made.url).toBe(
      'https://dev.azure.com/acme/web/_apis/git/repositories/shop/pullRequests/7/threads?api-version=7.1',
    );
    expect(made.body).toEqual({
      comments: [{ parentCommentId: 0, content: BODY, commentType: 1 }],
      status: 'active',
    });
    const edited = comment.update(at, 7, '12', TOKEN, BODY);
    expect(`${edited.method} ${edited.url}`).toBe(
      'PATCH https://dev.azure.com/acme/web/_apis/git/repositories/shop/pullRequests/7/threads/12/comments/1?api-version=7.1',
    );
    expect(edited.headers.authorization).toBe(`Basic ${Buffer.from(`:${TOKEN}`).toString('base64')}`);
  });
});

describe('the token', () => {
  it('goes only over https, or to this machine', () => {
    expect(cleartextApi('https://api.github.com')).toBe(false);
    expect(cleartextApi('http://127.0.0.1:3000/api/v1')).toBe(false);
    expect(cleartextApi('http://[::1]:3000/api/v1')).toBe(false);
    expect(cleartextApi('http://git.example.com/api/v4')).toBe(true);
    expect(cleartextApi('not a url')).toBe(true);
  });
});
