// Gitea (and Forgejo, its fork): X-Gitea-Event names the event (Forgejo also sends
// X-Forgejo-Event); X-Gitea-Signature is the hex HMAC-SHA256 of the body with the hook's secret.
// For compatibility Gitea also sends GitHub's headers (X-GitHub-Event, X-Hub-Signature-256), so
// this module is asked before GitHub's (registry.ts): a Gitea delivery is Gitea's.
// The push and pull_request payloads have GitHub's shape (ref, after, head_commit; pull_request).
// https://docs.gitea.com/usage/webhooks
import { githubStatusBody, parseGitHubStyleDelivery } from './github.ts';
import { gitHubStylePullRequests } from './github-pull-request.ts';
import { headerValue, type ProviderModule, type RequestHeaders } from './provider.ts';
import { issueComments, JSON_HEADERS, repositoryLocation, trimSlash } from './report.ts';
import { hexHmacMatches } from './signatures.ts';

function giteaHeaders(token: string): Record<string, string> {
  return { ...JSON_HEADERS, accept: 'application/json', authorization: `token ${token}` };
}

const event = (headers: RequestHeaders): string | undefined =>
  headerValue(headers, 'x-gitea-event') ?? headerValue(headers, 'x-forgejo-event');

export const gitea: ProviderModule<'gitea'> = {
  name: 'gitea',
  title: 'Gitea',
  // Gitea's own service, and Codeberg (Forgejo).
  publicHosts: /^(gitea\.com|codeberg\.org)$/,
  recognisedBy: 'an X-Gitea-Event or X-Forgejo-Event header',
  recognise: (headers) => (event(headers) !== undefined ? 'gitea' : undefined),
  verify: (headers, body, secret) =>
    hexHmacMatches(
      headerValue(headers, 'x-gitea-signature') ?? headerValue(headers, 'x-forgejo-signature'),
      body,
      secret,
    ),
  parse: (headers, body) =>
    parseGitHubStyleDelivery(
      { provider: 'gitea', title: 'Gitea', event: event(headers) ?? '' },
      headerValue(headers, 'x-gitea-delivery') ?? headerValue(headers, 'x-forgejo-delivery'),
      body,
    ),
  report: {
    token:
      'an access token with the write:repository scope, and write:issue for previews (Settings → Applications)',
    target(url, apiUrl) {
      const at = repositoryLocation(url);
      if (!at || at.path.length !== 2) return `cannot read owner/repository from ${url}`;
      // Every Gitea serves its API at /api/v1 of its own origin.
      return {
        apiUrl: trimSlash(apiUrl ?? `${at.origin}/api/v1`),
        repository: at.path.map(encodeURIComponent).join('/'),
      };
    },
    // https://docs.gitea.com/api (repoCreateStatus)
    commitStatus: (target, commit, token, status) => ({
      method: 'POST',
      url: `${target.apiUrl}/repos/${target.repository}/statuses/${commit}`,
      headers: giteaHeaders(token),
      body: githubStatusBody(status),
    }),
    comment: issueComments(giteaHeaders),
    // https://docs.gitea.com/api (repoListPullRequests); Gitea pages at 50 at most by default.
    openPullRequests: {
      request: (target, token) => ({
        method: 'GET',
        url: `${target.apiUrl}/repos/${target.repository}/pulls?state=open&limit=50`,
        headers: giteaHeaders(token),
      }),
      parse: (answer) => gitHubStylePullRequests({ provider: 'gitea', title: 'Gitea' }, answer),
      pageSize: 50,
    },
  },
  form: {
    where: 'Repository → Settings → Webhooks → Add webhook → Gitea (Forgejo: Forgejo)',
    fields: (url, secret) => [
      ['Target URL', url],
      ['HTTP method', 'POST'],
      ['POST content type', 'application/json'],
      ['Secret', secret],
      [
        'Trigger on',
        'Custom events: Push, and for previews Pull Request, Pull Request Labeled and Pull Request Synchronized',
      ],
      ['Branch filter', '* (Slipway matches branches itself)'],
      ['Also', 'Active'],
    ],
  },
};
