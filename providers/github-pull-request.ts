// A pull_request delivery in GitHub's shape, which Gitea sends too (with repo_id beside repo, and
// its own action words). GitHub: https://docs.github.com/webhooks/webhook-events-and-payloads#pull_request
// Gitea: the same payload (services/webhook), actions opened, reopened, synchronized,
// label_updated, label_cleared, edited, closed. Field paths: shared/fixtures/providers/pull-requests/SOURCES.md.
import { z } from 'zod';
import { branchName, commitId, readPayload } from './payload.ts';
import type { ParsedDelivery, Provider, PullRequestState } from './provider.ts';
import { readEach } from './report.ts';

/** Actions that change what a preview shows or whether there is one; the rest are ignored. */
const ACTIONS = new Set([
  'opened',
  'reopened',
  'synchronize', // GitHub: new commits
  'synchronized', // Gitea: new commits
  'edited',
  'labeled',
  'unlabeled',
  'label_updated', // Gitea
  'label_cleared', // Gitea
  'ready_for_review',
  'converted_to_draft',
  'closed',
]);

const side = z.object({
  ref: z.string(),
  sha: z.string(),
  // GitHub: repo.id (repo is null once a fork is deleted); Gitea: repo_id too.
  repo_id: z.number().nullish(),
  repo: z.object({ id: z.number() }).nullish(),
});

const pullRequestPayload = z.object({
  action: z.string(),
  number: z.number().int().positive(),
  pull_request: z.object({
    title: z.string().nullish(),
    state: z.string(),
    merged: z.boolean().nullish(),
    draft: z.boolean().nullish(),
    html_url: z.string().nullish(),
    user: z.object({ login: z.string().nullish() }).nullish(),
    labels: z.array(z.object({ name: z.string() })).nullish(),
    head: side,
    base: side,
  }),
});

const repositoryId = (s: z.infer<typeof side>) => s.repo_id ?? s.repo?.id;

export function parseGitHubStylePullRequest(
  source: { provider: Extract<Provider, 'github' | 'gitea'>; title: string },
  deliveryId: string | undefined,
  payload: unknown,
): ParsedDelivery {
  const base = { provider: source.provider, deliveryId };
  const what = `${source.title} pull_request`;
  const { action } = readPayload(z.object({ action: z.string() }), payload, what);
  if (!ACTIONS.has(action)) {
    return {
      ...base,
      kind: 'ignored',
      reason: `pull_request action ${action.slice(0, 64)} changes nothing a preview shows`,
    };
  }
  const event = readPayload(pullRequestPayload, payload, what);
  const pr = event.pull_request;
  const [head, target] = [repositoryId(pr.head), repositoryId(pr.base)];
  const pullRequest: PullRequestState = {
    state: pr.state !== 'closed' ? 'open' : pr.merged === true ? 'merged' : 'closed',
    action: event.action,
    number: event.number,
    title: (pr.title ?? '').slice(0, 1024),
    branch: branchName(pr.head.ref),
    targetBranch: branchName(pr.base.ref),
    headCommit: commitId(pr.head.sha, 'pull_request.head.sha'),
    // Both publish the head of every pull request, a fork's too, in the base repository.
    fetchRef: `refs/pull/${event.number}/head`,
    author: (pr.user?.login ?? '').slice(0, 255),
    // Not head.repo.fork, which is true for any repository that is itself a fork. A deleted
    // fork (head.repo null) is still a fork: its commits are not the base repository's.
    fork: head === undefined || target === undefined || head !== target,
    draft: pr.draft === true,
    labels: (pr.labels ?? []).map((l) => l.name),
    url: (pr.html_url ?? '').slice(0, 2048),
  };
  return { ...base, kind: 'pull-request', pullRequest };
}

/**
 * The open pull requests of GitHub's and Gitea's list API (GET /repos/{owner}/{repo}/pulls): each
 * item is the pull_request object a delivery carries.
 */
export function gitHubStylePullRequests(
  source: { provider: Extract<Provider, 'github' | 'gitea'>; title: string },
  answer: unknown,
): PullRequestState[] {
  return readEach(answer, (item) => {
    const number = (item as { number?: unknown }).number;
    const parsed = parseGitHubStylePullRequest(source, undefined, {
      action: 'synchronize',
      number,
      pull_request: item,
    });
    return parsed.kind === 'pull-request' ? parsed.pullRequest : undefined;
  });
}
