// Reporting a bundle back to its provider: a commit status per step. Each provider module builds
// its own documented request (pure: no I/O); the operator's delivery engine sends them (operator/delivery/).
//   GitHub       POST {api}/repos/{owner}/{repo}/statuses/{sha}                     Authorization: Bearer
//   GitLab       POST {api}/projects/{url-encoded path}/statuses/{sha}              PRIVATE-TOKEN
//   Bitbucket    POST {api}/repositories/{workspace}/{repo}/commit/{sha}/statuses/build   Authorization: Bearer
//   Azure DevOps POST {api}/{org}/{project}/_apis/git/repositories/{repo}/commits/{sha}/statuses?api-version=7.1   Basic :PAT
//   Gitea        POST {api}/repos/{owner}/{repo}/statuses/{sha}                     Authorization: token
import type { OutboundRequest } from '../lib/outbound-request.ts';
import type { PullRequestState } from './provider.ts';

/** What a commit status says, in GitHub's words; each provider maps the state to its own. */
export type CommitState = 'pending' | 'success' | 'failure' | 'error';

export interface CommitStatus {
  state: CommitState;
  /** Starts with `slipway`: `slipway/build`, `slipway/deploy/<environment>`. */
  context: string;
  description: string;
  /** Where a person sees the bundle. */
  targetUrl?: string;
}

/** Where statuses go: the API's base URL and the repository as that API names it. */
export interface ReportTarget {
  apiUrl: string;
  repository: string;
}

/** A rollout as a deployment on the provider (GitHub Deployments, GitLab deployments). */
export interface DeploymentApi {
  /**
   * Creates the deployment of `commit` (pushed to `branch`, when known) to `environment`; its
   * id is read with `idOf`.
   */
  create(
    target: ReportTarget,
    commit: string,
    token: string,
    environment: string,
    description: string,
    branch?: string,
  ): OutboundRequest;
  idOf(answer: unknown): string | undefined;
  /** The deployment is made already in its pending state (GitLab's `running`): no status call for it. */
  readonly createsRunning?: boolean;
  status(
    target: ReportTarget,
    id: string,
    token: string,
    state: CommitState,
    details: { description: string; logUrl?: string; environmentUrl?: string },
  ): OutboundRequest;
}

export interface ReportApi {
  /** Which token to make for spec.report, and the scopes it needs (kubectl slipway hook). */
  readonly token: string;
  /**
   * The API and repository of a clone URL (https://, ssh://, git@host:path); `apiUrl` overrides
   * the default API (required for self-hosted servers whose API cannot be told from the URL).
   * A string says why it cannot be reported to.
   */
  target(repositoryUrl: string, apiUrl: string | undefined): ReportTarget | string;
  commitStatus(target: ReportTarget, commit: string, token: string, status: CommitStatus): OutboundRequest;
  /** Providers with deployments report rollouts as those instead of a commit status. */
  readonly deployment?: DeploymentApi;
  /** One comment on a pull request (a preview's), made once and then edited in place. */
  readonly comment?: CommentApi;
  /** The repository's open pull requests: a preview's periodic look for missed deliveries. */
  readonly openPullRequests?: OpenPullRequestsApi;
}

/** The first page of a repository's open pull requests, as the pull-request deliveries say them. */
export interface OpenPullRequestsApi {
  request(target: ReportTarget, token: string): OutboundRequest;
  /** The pull requests of the answer; one that cannot be read is left out. */
  parse(answer: unknown): PullRequestState[];
  /** How many one page holds: a full page may not be all of them. */
  readonly pageSize: number;
}

/** Each item read by `read`, leaving out those it throws on (a malformed one). */
export function readEach<T>(items: unknown, read: (item: unknown) => T | undefined): T[] {
  if (!Array.isArray(items)) return [];
  return items.flatMap((item) => {
    try {
      const value = read(item);
      return value === undefined ? [] : [value];
    } catch {
      return [];
    }
  });
}

/** A comment on pull request `number`: made once (its id read with `idOf`), then edited. */
export interface CommentApi {
  create(target: ReportTarget, number: number, token: string, body: string): OutboundRequest;
  idOf(answer: unknown): string | undefined;
  update(target: ReportTarget, number: number, id: string, token: string, body: string): OutboundRequest;
}

/**
 * Comments as GitHub's issue comments API takes them, which Gitea's follows: a pull request is
 * an issue there. https://docs.github.com/rest/issues/comments, https://docs.gitea.com/api (issueCreateComment).
 */
export function issueComments(headers: (token: string) => Record<string, string>): CommentApi {
  return {
    create: (target, number, token, body) => ({
      method: 'POST',
      url: `${target.apiUrl}/repos/${target.repository}/issues/${number}/comments`,
      headers: headers(token),
      body: { body },
    }),
    idOf: idField,
    update: (target, _number, id, token, body) => ({
      method: 'PATCH',
      url: `${target.apiUrl}/repos/${target.repository}/issues/comments/${encodeURIComponent(id)}`,
      headers: headers(token),
      body: { body },
    }),
  };
}

/** The host and path segments of a clone URL, without `.git`, user info or port. */
export function repositoryLocation(
  url: string,
): { origin: string; host: string; path: string[] } | undefined {
  let host: string;
  let origin: string;
  let path: string;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    host = parsed.hostname.toLowerCase();
    // An ssh:// or git:// URL says nothing of the web's port: the API is on https.
    origin = /^https?:$/.test(parsed.protocol) ? `${parsed.protocol}//${parsed.host}` : `https://${host}`;
    path = parsed.pathname;
  } else {
    const scp = /^(?:[^@/:?#\\]+@)?([a-z0-9.-]+):(.+)$/i.exec(url);
    if (!scp) return undefined;
    host = scp[1]!.toLowerCase();
    origin = `https://${host}`;
    path = scp[2]!;
  }
  const segments = path
    .replace(/\.git\/?$/, '')
    .split('/')
    .filter(Boolean)
    .map((s) => decodeURIComponent(s));
  return segments.length === 0 ? undefined : { origin, host, path: segments };
}

/** An API the token would reach in clear text: http:// anywhere but this machine (loopback). */
export function cleartextApi(apiUrl: string): boolean {
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    return true;
  }
  if (url.protocol === 'https:') return false;
  return !/^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/.test(url.hostname);
}

/** `value` cut to `max` characters, with an ellipsis when cut. */
export function clip(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}

export const trimSlash = (url: string) => url.replace(/\/+$/, '');

export const JSON_HEADERS = { 'content-type': 'application/json', 'user-agent': 'slipway' } as const;

/** The `id` of a provider's answer (a deployment made), as a string. */
export function idField(answer: unknown): string | undefined {
  const id = (answer as { id?: unknown } | undefined)?.id;
  return typeof id === 'number' || typeof id === 'string' ? String(id) : undefined;
}
