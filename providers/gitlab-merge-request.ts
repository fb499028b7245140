// A GitLab Merge Request Hook (https://docs.gitlab.com/user/project/integrations/webhook_events/#merge-request-events):
// object_attributes carries the merge request's state, head (last_commit), branches and project
// ids; the top-level labels its labels. GitLab publishes every merge request's head, a fork's
// too, in the target project as refs/merge-requests/<iid>/head.
import { z } from 'zod';
import { branchName, commitId, readPayload } from './payload.ts';
import type { ParsedDelivery, PullRequestState } from './provider.ts';
import { readEach } from './report.ts';

/** Actions that change what a preview shows or whether there is one (approvals do not). */
const ACTIONS = new Set(['open', 'reopen', 'update', 'close', 'merge']);

const mergeRequestPayload = z.object({
  user: z.object({ username: z.string().nullish() }).nullish(),
  labels: z.array(z.object({ title: z.string() })).nullish(),
  object_attributes: z.object({
    iid: z.number().int().positive(),
    title: z.string().nullish(),
    state: z.string(),
    action: z.string().nullish(),
    draft: z.boolean().nullish(),
    work_in_progress: z.boolean().nullish(),
    source_branch: z.string(),
    target_branch: z.string(),
    source_project_id: z.number(),
    target_project_id: z.number(),
    last_commit: z.object({ id: z.string() }),
    url: z.string().nullish(),
  }),
});

export function parseGitLabMergeRequest(deliveryId: string | undefined, payload: unknown): ParsedDelivery {
  const base = { provider: 'gitlab' as const, deliveryId };
  const event = readPayload(mergeRequestPayload, payload, 'GitLab Merge Request Hook');
  const mr = event.object_attributes;
  const action = mr.action ?? '';
  if (!ACTIONS.has(action))
    return {
      ...base,
      kind: 'ignored',
      reason: `merge request action ${action.slice(0, 64) || '(none)'} changes nothing a preview shows`,
    };
  return {
    ...base,
    kind: 'pull-request',
    pullRequest: {
      // `locked` is a merge under way: the merge request is still open until GitLab says merged.
      state: mr.state === 'merged' ? 'merged' : mr.state === 'closed' ? 'closed' : 'open',
      action,
      number: mr.iid,
      title: (mr.title ?? '').slice(0, 1024),
      branch: branchName(mr.source_branch),
      targetBranch: branchName(mr.target_branch),
      headCommit: commitId(mr.last_commit.id, 'object_attributes.last_commit.id'),
      fetchRef: `refs/merge-requests/${mr.iid}/head`,
      // `user` is whoever acted; it is the author when the merge request is opened.
      author: action === 'open' ? (event.user?.username ?? '').slice(0, 255) : '',
      fork: mr.source_project_id !== mr.target_project_id,
      draft: mr.draft === true || mr.work_in_progress === true,
      labels: (event.labels ?? []).map((l) => l.title),
      url: (mr.url ?? '').slice(0, 2048),
    },
  };
}

/** A merge request as the list API gives it: the hook's fields, the head as sha, labels as names. */
const listed = mergeRequestPayload.shape.object_attributes
  .omit({ action: true, last_commit: true, url: true })
  .extend({
    sha: z.string(),
    web_url: z.string().nullish(),
    author: z.object({ username: z.string().nullish() }).nullish(),
    labels: z.array(z.string()).nullish(),
  });

/**
 * The open merge requests of GitLab's list API (GET /projects/{id}/merge_requests?state=opened):
 * read as the Merge Request Hook of one opened.
 */
export function gitLabMergeRequests(answer: unknown): PullRequestState[] {
  return readEach(answer, (item) => {
    const mr = listed.parse(item);
    const parsed = parseGitLabMergeRequest(undefined, {
      user: { username: mr.author?.username },
      labels: (mr.labels ?? []).map((title) => ({ title })),
      object_attributes: {
        ...mr,
        action: 'open',
        last_commit: { id: mr.sha },
        url: mr.web_url,
      },
    });
    return parsed.kind === 'pull-request' ? parsed.pullRequest : undefined;
  });
}
