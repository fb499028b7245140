// Pull-request deliveries of GitHub and Gitea, replayed from the real payloads in
// fixtures/providers/pull-requests (provenance and field paths: SOURCES.md there).
import { describe, expect, it } from '@jest/globals';
import {
  MalformedPayloadError,
  parseDelivery,
  recogniseProvider,
  registry,
  verifyDelivery,
  type ParsedDelivery,
} from '../../../providers/index.ts';
import {
  DOCUMENTED_SECRET,
  TEST_SECRET,
  loadFixture,
  signedFixture,
} from '../webhook-gateway/support/fixtures.ts';

const fixture = (name: string) => `pull-requests/${name}`;

function receive(name: string): ParsedDelivery {
  const delivery = signedFixture(fixture(name));
  const source = recogniseProvider(delivery.headers, delivery.body);
  if (source === undefined || source === 'bitbucket-server') throw new Error(`${name}: not recognised`);
  if (!verifyDelivery(source, delivery.headers, delivery.body, TEST_SECRET, source))
    throw new Error(`${name}: not verified`);
  return parseDelivery(source, delivery.headers, delivery.body);
}

const pr = (name: string) => {
  const parsed = receive(name);
  if (parsed.kind !== 'pull-request') throw new Error(`${name}: ${parsed.kind}`);
  return parsed;
};

describe('GitHub pull_request deliveries', () => {
  it('opened: the head commit, branches, labels, author, URL and the ref the base publishes the head under', () => {
    expect(pr('github-pull-request-opened')).toEqual({
      kind: 'pull-request',
      provider: 'github',
      deliveryId: 'da8e88d0-f9fa-5a68-951f-067125e7a081',
      pullRequest: {
        state: 'open',
        action: 'opened',
        number: 2,
        title: 'Update the README with new information.',
        branch: 'changes',
        targetBranch: 'master',
        headCommit: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
        fetchRef: 'refs/pull/2/head',
        author: 'Codertocat',
        fork: false,
        draft: false,
        labels: ['bug'],
        url: 'https://github.com/Codertocat/Hello-World/pull/2',
      },
    });
  });

  it('synchronize carries the new head; reopened and labeled are open with their labels', () => {
    expect(pr('github-pull-request-synchronize').pullRequest).toMatchObject({
      state: 'open',
      action: 'synchronize',
      headCommit: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
    });
    expect(pr('github-pull-request-reopened').pullRequest).toMatchObject({
      state: 'open',
      action: 'reopened',
    });
    expect(pr('github-pull-request-labeled').pullRequest).toMatchObject({
      state: 'open',
      action: 'labeled',
      labels: ['bug'],
    });
  });

  it('closed is merged or closed by pull_request.merged', () => {
    expect(pr('github-pull-request-closed-merged').pullRequest).toMatchObject({
      state: 'merged',
      number: 62,
      branch: 'anbraten-patch-3',
      headCommit: expect.stringMatching(/^c88b9ee7/),
    });
    expect(pr('github-pull-request-closed-unmerged').pullRequest.state).toBe('closed');
    expect(pr('github-pull-request-closed-unmerged-captured').pullRequest.state).toBe('closed');
  });

  it('a fork is told by repository ids (head.repo.fork is true for same-repository PRs of a forked repo too); its draft flag is read', () => {
    expect(pr('github-pull-request-synchronize-fork').pullRequest).toMatchObject({
      fork: true,
      draft: true,
      number: 305,
      fetchRef: 'refs/pull/305/head',
    });
  });
});

describe('Gitea pull_request deliveries', () => {
  it('opened, as Gitea sends it (its X-Gitea-* headers beside GitHub-compatible ones)', () => {
    expect(pr('gitea-pull-request-opened')).toEqual({
      kind: 'pull-request',
      provider: 'gitea',
      deliveryId: '1cbfd5b6-d670-579b-9003-15004f4e9b76',
      pullRequest: {
        state: 'open',
        action: 'opened',
        number: 1,
        title: 'Add License File',
        branch: 'feature',
        targetBranch: 'master',
        headCommit: '2eba238e33607c1fa49253182e9fff42baafa1eb',
        fetchRef: 'refs/pull/1/head',
        author: 'jcitizen',
        fork: false,
        draft: false,
        labels: [],
        url: 'https://try.gitea.io/jcitizen/my-repo/pulls/1',
      },
    });
  });

  it('synchronized (also the trimmed real delivery with repo_id only), reopened, closed and merged', () => {
    expect(pr('gitea-pull-request-synchronized').pullRequest).toMatchObject({
      state: 'open',
      action: 'synchronized',
    });
    expect(pr('gitea-pull-request-synchronized-trimmed').pullRequest).toMatchObject({
      state: 'open',
      number: 2,
      headCommit: '788ed8d02d3b7fcfcf6386dbcbca696aa1d4dc25',
      labels: ['Kind/Bug', 'Kind/Security'],
      fork: false,
    });
    expect(pr('gitea-pull-request-reopened').pullRequest.state).toBe('open');
    expect(pr('gitea-pull-request-closed').pullRequest.state).toBe('closed');
    expect(pr('gitea-pull-request-merged').pullRequest.state).toBe('merged');
    expect(pr('gitea-pull-request-merged-captured').pullRequest.state).toBe('merged');
  });

  it('a fork by repo_id; label_updated carries the whole set of labels', () => {
    expect(pr('gitea-pull-request-opened-fork').pullRequest).toMatchObject({
      fork: true,
      author: 'example2',
    });
    expect(pr('gitea-pull-request-label-updated-fork').pullRequest).toMatchObject({
      action: 'label_updated',
      fork: true,
      labels: ['bug'],
    });
  });
});

describe('pull_request parsing', () => {
  it('the published signatures verify with the documented secret', () => {
    for (const name of ['github-pull-request-opened', 'gitea-pull-request-opened']) {
      const delivery = loadFixture(fixture(name));
      const source = recogniseProvider(delivery.headers, delivery.body)!;
      expect(verifyDelivery(source, delivery.headers, delivery.body, DOCUMENTED_SECRET, undefined)).toBe(
        true,
      );
    }
  });

  it('ignores actions that change nothing a preview shows, naming the action', () => {
    const body = Buffer.from(JSON.stringify({ action: 'review_requested', number: 3, pull_request: {} }));
    expect(parseDelivery('github', { 'x-github-event': 'pull_request' }, body)).toMatchObject({
      kind: 'ignored',
      reason: 'pull_request action review_requested changes nothing a preview shows',
    });
  });

  it('a pull_request without a head commit is malformed, and the message names the field', () => {
    const body = Buffer.from(
      JSON.stringify({
        action: 'opened',
        number: 3,
        pull_request: { state: 'open', head: { ref: 'x' }, base: { ref: 'main', sha: 'a'.repeat(40) } },
      }),
    );
    const parse = () => parseDelivery('gitea', { 'x-gitea-event': 'pull_request' }, body);
    expect(parse).toThrow(MalformedPayloadError);
    expect(parse).toThrow(/pull_request\.head\.sha/);
  });
});

describe('GitLab Merge Request Hook deliveries', () => {
  it('open: the iid, the head (last_commit), refs/merge-requests/<iid>/head, labels by title, the author who opened it', () => {
    expect(pr('gitlab-merge-request-open')).toEqual({
      kind: 'pull-request',
      provider: 'gitlab',
      deliveryId: 'ac4de8e5-8a62-5d48-9640-9abe5e415855',
      pullRequest: {
        state: 'open',
        action: 'open',
        number: 3,
        title: 'Edit README.md for more text to read',
        branch: 'real6543-main-patch-42541',
        targetBranch: 'main',
        headCommit: expect.stringMatching(/^2f7670508b[0-9a-f]{30}$/),
        fetchRef: 'refs/merge-requests/3/head',
        author: 'real6543',
        fork: false,
        draft: false,
        labels: ['documentation'],
        url: 'https://gitlab.com/demoaccount2-commits-group/test_ci_tmp/-/merge_requests/3',
      },
    });
    expect(pr('gitlab-merge-request-open-docs').pullRequest).toMatchObject({ number: 1, labels: ['API'] });
  });

  it('update (new commits or labels) and reopen are open; merge and close end it', () => {
    expect(pr('gitlab-merge-request-update-new-commits').pullRequest).toMatchObject({
      state: 'open',
      action: 'update',
      headCommit: expect.stringMatching(/^c136499ec5/),
      author: '',
    });
    expect(pr('gitlab-merge-request-update-labels').pullRequest).toMatchObject({
      labels: ['enhancement', 'help wanted'],
    });
    expect(pr('gitlab-merge-request-reopen').pullRequest.state).toBe('open');
    expect(pr('gitlab-merge-request-merge').pullRequest.state).toBe('merged');
    expect(pr('gitlab-merge-request-close').pullRequest.state).toBe('closed');
  });
});

describe('Bitbucket Cloud pullrequest:* deliveries', () => {
  it('created: the 12-hex head as sent, no labels, no ref of the head, the event key as the action', () => {
    expect(pr('bitbucket-pullrequest-created')).toEqual({
      kind: 'pull-request',
      provider: 'bitbucket',
      deliveryId: '2584f7a0-13d0-5f98-8a12-c2b32f16fbf9',
      pullRequest: {
        state: 'open',
        action: 'pullrequest:created',
        number: 1,
        title: 'Awesome new feature',
        branch: 'develop',
        targetBranch: 'master',
        headCommit: '507a576e59b3',
        fetchRef: undefined,
        author: 'brydzewski',
        fork: false,
        draft: false,
        labels: undefined,
        url: 'https://bitbucket.org/brydzewski/foo/pull-requests/1',
      },
    });
  });

  it('updated carries the new head; fulfilled is merged, rejected closed; a fork by repository uuid', () => {
    expect(pr('bitbucket-pullrequest-updated').pullRequest).toMatchObject({
      state: 'open',
      headCommit: '0704fc5beccc',
    });
    expect(pr('bitbucket-pullrequest-fulfilled').pullRequest.state).toBe('merged');
    expect(pr('bitbucket-pullrequest-rejected').pullRequest.state).toBe('closed');
    expect(pr('bitbucket-pullrequest-created-fork').pullRequest).toMatchObject({ fork: true, number: 3 });
    expect(pr('bitbucket-pullrequest-updated-fork').pullRequest).toMatchObject({
      fork: true,
      headCommit: '63e3d18dca4c',
    });
  });
});

describe('Azure DevOps git.pullrequest.* deliveries', () => {
  it('created: the head (lastMergeSourceCommit), branches from their refs, refs/pull/<id>/merge, the author', () => {
    expect(pr('azure-devops-git-pullrequest-created')).toEqual({
      kind: 'pull-request',
      provider: 'azure-devops',
      deliveryId: '2ab4e3d3-b7a6-425e-92b1-5a9982c1269e',
      pullRequest: {
        state: 'open',
        action: 'git.pullrequest.created',
        number: 1,
        title: 'my first pull request',
        branch: 'mytopic',
        targetBranch: 'master',
        headCommit: expect.stringMatching(/^53d54ac915[0-9a-f]{30}$/),
        fetchRef: 'refs/pull/1/merge',
        author: 'fabrikamfiber4@hotmail.com',
        fork: false,
        draft: false,
        labels: [],
        url: '',
      },
    });
  });

  it('completed (updated or merged) is merged; the captured delivery gives the web URL', () => {
    expect(pr('azure-devops-git-pullrequest-updated').pullRequest.state).toBe('merged');
    expect(pr('azure-devops-git-pullrequest-merged').pullRequest.state).toBe('merged');
    expect(pr('azure-devops-git-pullrequest-updated-completed-captured').pullRequest).toMatchObject({
      state: 'merged',
      number: 22568,
      url: 'https://dev.azure.com/dependabot/Core/_git/dependabot-sample/pullrequest/22568',
    });
  });
});

describe("the open pull requests of a provider's list API (a preview's periodic look)", () => {
  const body = (name: string) => JSON.parse(loadFixture(fixture(name)).body.toString('utf8'));
  const target = { apiUrl: 'https://api.example.com', repository: 'acme/shop' };

  it('GitHub and Gitea list the pull_request objects their deliveries carry; an unreadable one is left out', () => {
    const github = registry.github.report.openPullRequests!;
    expect(github.request(target, 't').url).toBe(
      'https://api.example.com/repos/acme/shop/pulls?state=open&per_page=100',
    );
    const listed = github.parse([body('github-pull-request-opened').pull_request, { number: 'x' }]);
    expect(listed).toEqual(
      [pr('github-pull-request-opened').pullRequest].map((p) => ({ ...p, action: 'synchronize' })),
    );
    const gitea = registry.gitea.report.openPullRequests!;
    expect(gitea.parse([body('gitea-pull-request-opened-fork').pull_request])).toMatchObject([
      { number: 2, fork: true },
    ]);
  });

  it('GitLab lists merge requests with their head as sha and labels as names', () => {
    const gitlab = registry.gitlab.report.openPullRequests!;
    const listed = gitlab.parse([
      {
        iid: 5,
        title: 'Faster pages',
        state: 'opened',
        draft: false,
        source_branch: 'fast',
        target_branch: 'main',
        source_project_id: 7,
        target_project_id: 7,
        sha: 'b'.repeat(40),
        web_url: 'https://gitlab.com/acme/shop/-/merge_requests/5',
        author: { username: 'ada' },
        labels: ['preview'],
      },
    ]);
    expect(listed).toEqual([
      expect.objectContaining({
        number: 5,
        headCommit: 'b'.repeat(40),
        fetchRef: 'refs/merge-requests/5/head',
        author: 'ada',
        labels: ['preview'],
        state: 'open',
      }),
    ]);
  });

  it('Bitbucket Cloud and Azure DevOps list the objects their deliveries carry', () => {
    expect(
      registry.bitbucket.report.openPullRequests!.parse({
        values: [body('bitbucket-pullrequest-created').pullrequest],
      }),
    ).toMatchObject([{ number: 1, headCommit: '507a576e59b3' }]);
    expect(
      registry['azure-devops'].report.openPullRequests!.parse({
        value: [body('azure-devops-git-pullrequest-created').resource],
      }),
    ).toMatchObject([{ number: 1, state: 'open', fetchRef: 'refs/pull/1/merge' }]);
  });
});
