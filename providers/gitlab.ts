// GitLab: X-Gitlab-Event names the event; a push carries one ref and up to 20 commits.
// https://docs.gitlab.com/user/project/integrations/webhook_events/#push-events
import { z } from 'zod';
import {
  classifyRef,
  commitId,
  commitTime,
  decodeJson,
  deliveryId,
  firstLine,
  isZeroObjectId,
  readPayload,
  withTime,
} from './payload.ts';
import { headerValue, type ParsedDelivery, type ProviderModule, type RequestHeaders } from './provider.ts';
import { clip, idField, JSON_HEADERS, repositoryLocation, trimSlash, type CommitState } from './report.ts';
import { matchesSecret } from './signatures.ts';
import { gitLabMergeRequests, parseGitLabMergeRequest } from './gitlab-merge-request.ts';

export const gitlab: ProviderModule<'gitlab'> = {
  name: 'gitlab',
  title: 'GitLab',
  publicHosts: /^(www\.)?gitlab\.com$/,
  recognisedBy: 'an X-Gitlab-Event header',
  recognise: (headers) => (headerValue(headers, 'x-gitlab-event') !== undefined ? 'gitlab' : undefined),
  verify: (headers, _body, secret) => matchesSecret(headerValue(headers, 'x-gitlab-token'), secret),
  parse: (headers, body) => parseGitLab(headers, body),
  report: {
    token: 'a project access token (role Developer) with the api scope',
    target(url, apiUrl) {
      const at = repositoryLocation(url);
      if (!at || at.path.length < 2) return `cannot read the project path from ${url}`;
      // gitlab.com's API, or a self-managed GitLab's at /api/v4 of the same origin.
      return {
        apiUrl: trimSlash(apiUrl ?? `${at.origin}/api/v4`),
        repository: encodeURIComponent(at.path.join('/')),
      };
    },
    // https://docs.gitlab.com/api/commits/#set-the-pipeline-status-of-a-commit
    commitStatus: (target, commit, token, status) => ({
      method: 'POST',
      url: `${target.apiUrl}/projects/${target.repository}/statuses/${commit}`,
      headers: { ...JSON_HEADERS, 'private-token': token },
      body: {
        state: GITLAB_STATES[status.state],
        name: status.context,
        description: clip(status.description, 255),
        ...(status.targetUrl ? { target_url: clip(status.targetUrl, 255) } : {}),
      },
    }),
    // https://docs.gitlab.com/api/deployments/: made running (GitLab makes the environment when
    // it has none), then updated; GitLab keeps the environment's URL on the environment itself.
    deployment: {
      create: (target, commit, token, environment, _description, branch) => ({
        method: 'POST',
        url: `${target.apiUrl}/projects/${target.repository}/deployments`,
        headers: { ...JSON_HEADERS, 'private-token': token },
        body: { environment, sha: commit, ref: branch ?? commit, tag: false, status: 'running' },
      }),
      idOf: idField,
      createsRunning: true,
      status: (target, id, token, state) => ({
        method: 'PUT',
        url: `${target.apiUrl}/projects/${target.repository}/deployments/${encodeURIComponent(id)}`,
        headers: { ...JSON_HEADERS, 'private-token': token },
        body: { status: GITLAB_STATES[state] },
      }),
    },
    // https://docs.gitlab.com/api/merge_requests/#list-project-merge-requests
    openPullRequests: {
      request: (target, token) => ({
        method: 'GET',
        url: `${target.apiUrl}/projects/${target.repository}/merge_requests?state=opened&per_page=100`,
        headers: { ...JSON_HEADERS, 'private-token': token },
      }),
      parse: gitLabMergeRequests,
      pageSize: 100,
    },
    // https://docs.gitlab.com/api/notes/#merge-requests
    comment: {
      create: (target, number, token, body) => ({
        method: 'POST',
        url: `${target.apiUrl}/projects/${target.repository}/merge_requests/${number}/notes`,
        headers: { ...JSON_HEADERS, 'private-token': token },
        body: { body },
      }),
      idOf: idField,
      update: (target, number, id, token, body) => ({
        method: 'PUT',
        url: `${target.apiUrl}/projects/${target.repository}/merge_requests/${number}/notes/${encodeURIComponent(id)}`,
        headers: { ...JSON_HEADERS, 'private-token': token },
        body: { body },
      }),
    },
  },
  form: {
    where: 'Project → Settings → Webhooks → Add new webhook',
    fields: (url, secret) => [
      ['URL', url],
      ['Secret token', secret],
      ['Trigger', 'Push events (any branch filter), and Merge request events for previews'],
      ['Also', 'SSL verification on'],
    ],
  },
};

/** A started build (or rollout) is running; an error (superseded) is canceled: commit statuses and deployments alike. */
const GITLAB_STATES: Record<CommitState, string> = {
  pending: 'running',
  success: 'success',
  failure: 'failed',
  error: 'canceled',
};

const pushPayload = z.object({
  object_kind: z.literal('push'),
  ref: z.string(),
  after: z.string(),
  commits: z
    .array(z.object({ id: z.string(), message: z.string().nullish(), timestamp: z.string().nullish() }))
    .nullish(),
});

export function parseGitLab(headers: RequestHeaders, body: Buffer): ParsedDelivery {
  const id = headerValue(headers, 'x-gitlab-event-uuid') ?? headerValue(headers, 'idempotency-key');
  const base = { provider: 'gitlab' as const, deliveryId: deliveryId(id) };
  const event = headerValue(headers, 'x-gitlab-event') ?? '';
  const payload = decodeJson(body);
  if (event === 'Tag Push Hook') return { ...base, kind: 'ignored', reason: 'tag push' };
  if (event === 'Merge Request Hook') return parseGitLabMergeRequest(base.deliveryId, payload);
  if (event !== 'Push Hook')
    return { ...base, kind: 'ignored', reason: `GitLab event '${event}' is not a push or merge request` };

  const push = readPayload(pushPayload, payload, 'GitLab push');
  const ref = classifyRef(push.ref);
  if (ref.kind === 'tag') return { ...base, kind: 'ignored', reason: 'tag push' };
  if (ref.kind === 'other') return { ...base, kind: 'ignored', reason: 'push to a ref that is not a branch' };
  if (isZeroObjectId(push.after)) return { ...base, kind: 'ignored', reason: 'branch deletion' };

  const commit = commitId(push.after, 'after');
  // Commits are listed oldest first; the head is the one `after` names.
  const head = push.commits?.find((c) => c.id.toLowerCase() === commit) ?? push.commits?.at(-1);
  return {
    ...base,
    kind: 'push',
    changes: [
      {
        branch: ref.branch,
        commit,
        comment: firstLine(head?.message),
        ...withTime(commitTime(head?.timestamp)),
      },
    ],
  };
}
