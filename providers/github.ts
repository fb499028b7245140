// GitHub: X-GitHub-Event names the event; a push carries one ref (Gitea's has the same shape).
// https://docs.github.com/webhooks/webhook-events-and-payloads#push
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
import {
  clip,
  idField,
  issueComments,
  JSON_HEADERS,
  repositoryLocation,
  trimSlash,
  type CommitStatus,
} from './report.ts';
import { hmacSignatureMatches } from './signatures.ts';
import { gitHubStylePullRequests, parseGitHubStylePullRequest } from './github-pull-request.ts';

function githubHeaders(token: string): Record<string, string> {
  return {
    ...JSON_HEADERS,
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2022-11-28',
    authorization: `Bearer ${token}`,
  };
}

export const github: ProviderModule<'github'> = {
  name: 'github',
  title: 'GitHub',
  publicHosts: /^(www\.)?github\.com$/,
  recognisedBy: 'an X-GitHub-Event header',
  recognise: (headers) => (headerValue(headers, 'x-github-event') !== undefined ? 'github' : undefined),
  // Signing is not optional: the secret is set in GitHub's webhook form.
  verify: (headers, body, secret) =>
    hmacSignatureMatches(headerValue(headers, 'x-hub-signature-256'), body, secret),
  parse: (headers, body) => parseGitHub(headers, body),
  report: {
    token:
      'a fine-grained token with "Commit statuses: write" on the repository (and "Pull requests: write" for previews), or a classic token with repo:status (repo for previews)',
    target(url, apiUrl) {
      const at = repositoryLocation(url);
      if (!at || at.path.length !== 2) return `cannot read owner/repository from ${url}`;
      // github.com's API, or GitHub Enterprise Server's at /api/v3 of the same host.
      const api =
        apiUrl ?? (github.publicHosts.test(at.host) ? 'https://api.github.com' : `${at.origin}/api/v3`);
      return { apiUrl: trimSlash(api), repository: at.path.map(encodeURIComponent).join('/') };
    },
    // https://docs.github.com/rest/commits/statuses#create-a-commit-status
    commitStatus: (target, commit, token, status) => ({
      method: 'POST',
      url: `${target.apiUrl}/repos/${target.repository}/statuses/${commit}`,
      headers: githubHeaders(token),
      body: githubStatusBody(status),
    }),
    // https://docs.github.com/rest/deployments/deployments and …/statuses
    deployment: {
      create: (target, commit, token, environment, description) => ({
        method: 'POST',
        url: `${target.apiUrl}/repos/${target.repository}/deployments`,
        headers: githubHeaders(token),
        // No merge of the default branch, no wait for other checks: the rollout has happened.
        body: {
          ref: commit,
          environment,
          description: clip(description, 140),
          auto_merge: false,
          required_contexts: [],
          production_environment: /^prod(uction)?$/i.test(environment),
          // A pull request's preview goes when the pull request closes.
          ...(environment.startsWith('preview/') ? { transient_environment: true } : {}),
        },
      }),
      idOf: idField,
      status: (target, id, token, state, details) => ({
        method: 'POST',
        url: `${target.apiUrl}/repos/${target.repository}/deployments/${encodeURIComponent(id)}/statuses`,
        headers: githubHeaders(token),
        body: {
          state: state === 'pending' ? 'in_progress' : state,
          description: clip(details.description, 140),
          ...(details.logUrl ? { log_url: details.logUrl } : {}),
          ...(details.environmentUrl ? { environment_url: details.environmentUrl } : {}),
        },
      }),
    },
    comment: issueComments(githubHeaders),
    // https://docs.github.com/rest/pulls/pulls#list-pull-requests
    openPullRequests: {
      request: (target, token) => ({
        method: 'GET',
        url: `${target.apiUrl}/repos/${target.repository}/pulls?state=open&per_page=100`,
        headers: githubHeaders(token),
      }),
      parse: (answer) => gitHubStylePullRequests({ provider: 'github', title: 'GitHub' }, answer),
      pageSize: 100,
    },
  },
  form: {
    where: 'Repository → Settings → Webhooks → Add webhook',
    fields: (url, secret) => [
      ['Payload URL', url],
      ['Content type', 'application/json (not the form-encoded default)'],
      ['Secret', secret],
      ['Which events', 'Let me select individual events: Pushes, and Pull requests for previews'],
      ['Also', 'SSL verification on; Active'],
    ],
  },
};

/** GitHub's commit status body, which Gitea takes too: its states are GitHub's. */
export function githubStatusBody(status: CommitStatus): Record<string, string> {
  return {
    state: status.state,
    context: status.context,
    description: clip(status.description, 140),
    ...(status.targetUrl ? { target_url: status.targetUrl } : {}),
  };
}

const pushPayload = z.object({
  ref: z.string(),
  after: z.string(),
  deleted: z.boolean().optional(),
  head_commit: z.object({ message: z.string().nullish(), timestamp: z.string().nullish() }).nullish(),
});

export function parseGitHub(headers: RequestHeaders, body: Buffer): ParsedDelivery {
  return parseGitHubStyleDelivery(
    { provider: 'github', title: 'GitHub', event: headerValue(headers, 'x-github-event') ?? '' },
    headerValue(headers, 'x-github-delivery'),
    body,
  );
}

/**
 * A delivery in GitHub's payload shape, which Gitea sends too: a push (one ref, its new commit,
 * the head commit) or a pull_request (github-pull-request.ts).
 */
export function parseGitHubStyleDelivery(
  source: { provider: 'github' | 'gitea'; title: string; event: string },
  delivery: string | undefined,
  body: Buffer,
): ParsedDelivery {
  const base = { provider: source.provider, deliveryId: deliveryId(delivery) };
  const payload = decodeJson(body);
  if (source.event === 'ping') return { ...base, kind: 'ignored', reason: 'ping' };
  if (source.event === 'pull_request') return parseGitHubStylePullRequest(source, base.deliveryId, payload);
  if (source.event !== 'push')
    return {
      ...base,
      kind: 'ignored',
      reason: `${source.title} event '${source.event}' is not a push or pull_request`,
    };

  const push = readPayload(pushPayload, payload, `${source.title} push`);
  const ref = classifyRef(push.ref);
  if (ref.kind === 'tag') return { ...base, kind: 'ignored', reason: 'tag push' };
  if (ref.kind === 'other') return { ...base, kind: 'ignored', reason: 'push to a ref that is not a branch' };
  if (push.deleted === true || isZeroObjectId(push.after)) {
    return { ...base, kind: 'ignored', reason: 'branch deletion' };
  }
  const change = {
    branch: ref.branch,
    commit: commitId(push.after, 'after'),
    comment: firstLine(push.head_commit?.message),
    ...withTime(commitTime(push.head_commit?.timestamp)),
  };
  return { ...base, kind: 'push', changes: [change] };
}
