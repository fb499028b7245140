// A Bitbucket Cloud pullrequest:* delivery (https://support.atlassian.com/bitbucket-cloud/docs/event-payloads/#pull-request-events):
// the event is only in X-Event-Key. Its head commit hash is abbreviated (12 hex digits), its pull
// requests have no labels (trigger Always only), and Bitbucket publishes no ref of a pull
// request's head: the build fetches the source branch from the repository and takes the commit
// the hash starts with, which a fork's branch is not in (docs/previews.md).
import { z } from 'zod';
import { branchName, commitId, readPayload } from './payload.ts';
import type { ParsedDelivery, PullRequestState } from './provider.ts';
import { readEach } from './report.ts';

const STATES: Record<string, 'open' | 'closed' | 'merged'> = {
  'pullrequest:created': 'open',
  'pullrequest:updated': 'open',
  'pullrequest:fulfilled': 'merged',
  'pullrequest:rejected': 'closed',
};

const side = z.object({
  branch: z.object({ name: z.string() }),
  commit: z.object({ hash: z.string() }).nullish(),
  repository: z.object({ uuid: z.string().nullish() }).nullish(),
});

const pullRequestPayload = z.object({
  pullrequest: z.object({
    id: z.number().int().positive(),
    title: z.string().nullish(),
    draft: z.boolean().nullish(),
    author: z
      .object({
        nickname: z.string().nullish(),
        username: z.string().nullish(),
        display_name: z.string().nullish(),
      })
      .nullish(),
    source: side,
    destination: side,
    links: z.object({ html: z.object({ href: z.string() }).nullish() }).nullish(),
  }),
});

export function parseBitbucketPullRequest(
  deliveryId: string | undefined,
  event: string,
  payload: unknown,
): ParsedDelivery | undefined {
  const state = STATES[event];
  if (!state) return undefined;
  const { pullrequest: pr } = readPayload(pullRequestPayload, payload, `Bitbucket ${event}`);
  const [head, target] = [pr.source.repository?.uuid, pr.destination.repository?.uuid];
  return {
    provider: 'bitbucket',
    deliveryId,
    kind: 'pull-request',
    pullRequest: {
      state,
      action: event,
      number: pr.id,
      title: (pr.title ?? '').slice(0, 1024),
      branch: branchName(pr.source.branch.name),
      targetBranch: branchName(pr.destination.branch.name),
      headCommit: commitId(pr.source.commit?.hash ?? '', 'pullrequest.source.commit.hash'),
      fetchRef: undefined,
      author: (pr.author?.nickname ?? pr.author?.username ?? pr.author?.display_name ?? '').slice(0, 255),
      fork: !head || !target || head !== target,
      draft: pr.draft === true,
      labels: undefined,
      url: (pr.links?.html?.href ?? '').slice(0, 2048),
    },
  };
}

/** The open pull requests of Bitbucket's list API (`values` of GET …/pullrequests?state=OPEN). */
export function bitbucketPullRequests(answer: unknown): PullRequestState[] {
  const values = (answer as { values?: unknown } | undefined)?.values;
  return readEach(values, (item) => {
    const parsed = parseBitbucketPullRequest(undefined, 'pullrequest:updated', { pullrequest: item });
    return parsed?.kind === 'pull-request' ? parsed.pullRequest : undefined;
  });
}
