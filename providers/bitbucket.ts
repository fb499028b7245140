// Bitbucket Cloud: X-Event-Key names the event; one repo:push may update several refs, and every
// updated branch counts. https://support.atlassian.com/bitbucket-cloud/docs/event-payloads/#Push
import { z } from 'zod';
import {
  branchName,
  commitId,
  commitTime,
  decodeJson,
  deliveryId,
  firstLine,
  noBranchReason,
  readPayload,
  withTime,
} from './payload.ts';
import {
  UnsupportedProviderError,
  headerValue,
  type BranchChange,
  type ParsedDelivery,
  type ProviderModule,
  type RequestHeaders,
} from './provider.ts';
import { clip, idField, JSON_HEADERS, repositoryLocation, trimSlash, type CommitState } from './report.ts';
import { createHash } from 'node:crypto';
import { hmacSignatureMatches } from './signatures.ts';
import { bitbucketPullRequests, parseBitbucketPullRequest } from './bitbucket-pull-request.ts';

// Bitbucket Server / Data Center also sends X-Event-Key. Bitbucket Cloud always adds X-Hook-UUID and
// X-Request-UUID; Server sends X-Request-Id and its own event keys instead.
/** An error (superseded: the build did not finish) is stopped. */
const BITBUCKET_STATES: Record<CommitState, string> = {
  pending: 'INPROGRESS',
  success: 'SUCCESSFUL',
  failure: 'FAILED',
  error: 'STOPPED',
};

const BITBUCKET_SERVER_EVENTS =
  /^(repo:refs_changed|repo:modified|repo:forked|repo:comment:|diagnostics:ping|pr:|mirror:)/;

export const bitbucket: ProviderModule<'bitbucket'> = {
  name: 'bitbucket',
  title: 'Bitbucket Cloud',
  publicHosts: /^(www\.)?bitbucket\.org$/,
  recognisedBy: 'an X-Event-Key header',
  recognise(headers) {
    const eventKey = headerValue(headers, 'x-event-key');
    if (eventKey === undefined) return undefined;
    return isBitbucketServer(headers, eventKey) ? 'bitbucket-server' : 'bitbucket';
  },
  // Bitbucket signs when a secret is entered in its webhook form (Server signs the same way).
  verify: (headers, body, secret) =>
    hmacSignatureMatches(headerValue(headers, 'x-hub-signature'), body, secret),
  // Its form also works with the URL alone (the seed's setup): a delivery with no signature at all
  // is then authenticated by the URL's token, for a Bitbucket project that does not require one.
  unsigned: (headers) => headerValue(headers, 'x-hub-signature') === undefined,
  parse(headers, body, source) {
    // A 4xx rather than a 202: the provider's delivery log then shows the hook as failing, so the
    // user learns at the first test delivery that this setup can never build.
    if (source === 'bitbucket-server')
      throw new UnsupportedProviderError(
        'Bitbucket Server and Data Center are not supported; use Bitbucket Cloud, GitHub, GitLab, ' +
          'Azure DevOps or the upload script',
      );
    return parseBitbucket(headers, body);
  },
  report: {
    token: 'a repository access token with the repository scope (Repository settings → Access tokens)',
    target(url, apiUrl) {
      const at = repositoryLocation(url);
      if (!at || at.path.length !== 2) return `cannot read workspace/repository from ${url}`;
      return {
        apiUrl: trimSlash(apiUrl ?? 'https://api.bitbucket.org/2.0'),
        repository: at.path.map(encodeURIComponent).join('/'),
      };
    },
    // https://developer.atlassian.com/cloud/bitbucket/rest/api-group-commit-statuses/
    commitStatus: (target, commit, token, status) => ({
      method: 'POST',
      url: `${target.apiUrl}/repositories/${target.repository}/commit/${commit}/statuses/build`,
      headers: bitbucketHeaders(token),
      body: {
        // The key names the status (at most 40 characters): a longer context is hashed.
        key:
          status.context.length <= 40
            ? status.context
            : createHash('sha1').update(status.context).digest('hex'),
        state: BITBUCKET_STATES[status.state],
        name: clip(status.context, 254),
        description: clip(status.description, 255),
        // Bitbucket wants a URL: the commit's own page when there is no better one.
        url: status.targetUrl ?? `https://bitbucket.org/${target.repository}/commits/${commit}`,
      },
    }),
    // https://developer.atlassian.com/cloud/bitbucket/rest/api-group-pullrequests/ (list, comments)
    openPullRequests: {
      request: (target, token) => ({
        method: 'GET',
        url: `${target.apiUrl}/repositories/${target.repository}/pullrequests?state=OPEN&pagelen=50`,
        headers: bitbucketHeaders(token),
      }),
      parse: bitbucketPullRequests,
      pageSize: 50,
    },
    comment: {
      create: (target, number, token, body) => ({
        method: 'POST',
        url: `${target.apiUrl}/repositories/${target.repository}/pullrequests/${number}/comments`,
        headers: bitbucketHeaders(token),
        body: { content: { raw: body } },
      }),
      idOf: idField,
      update: (target, number, id, token, body) => ({
        method: 'PUT',
        url: `${target.apiUrl}/repositories/${target.repository}/pullrequests/${number}/comments/${encodeURIComponent(id)}`,
        headers: bitbucketHeaders(token),
        body: { content: { raw: body } },
      }),
    },
  },
  form: {
    where: 'Repository settings → Webhooks → Add webhook',
    fields: (url, secret) => [
      ['URL', url],
      [
        'Secret',
        `${secret} (optional, recommended: deliveries are then signed; set spec.requireSignature: true to refuse unsigned ones)`,
      ],
      ['Triggers', 'Repository push; for previews also Pull request: Created, Updated, Merged, Declined'],
      ['Also', 'Status: Active'],
    ],
  },
};

function bitbucketHeaders(token: string): Record<string, string> {
  return { ...JSON_HEADERS, accept: 'application/json', authorization: `Bearer ${token}` };
}

function isBitbucketServer(headers: RequestHeaders, eventKey: string): boolean {
  const cloudHeaders =
    headerValue(headers, 'x-hook-uuid') !== undefined || headerValue(headers, 'x-request-uuid') !== undefined;
  if (cloudHeaders) return false;
  return headerValue(headers, 'x-request-id') !== undefined || BITBUCKET_SERVER_EVENTS.test(eventKey);
}

const refState = z.object({
  type: z.string(),
  name: z.string(),
  target: z.object({ hash: z.string(), message: z.string().nullish(), date: z.string().nullish() }),
});

const pushPayload = z.object({
  push: z.object({ changes: z.array(z.object({ new: refState.nullable() })) }),
});

export function parseBitbucket(headers: RequestHeaders, body: Buffer): ParsedDelivery {
  const id = headerValue(headers, 'x-request-uuid') ?? headerValue(headers, 'x-hook-uuid');
  const base = { provider: 'bitbucket' as const, deliveryId: deliveryId(id) };
  const event = headerValue(headers, 'x-event-key') ?? '';
  const payload = decodeJson(body);
  const pullRequest = parseBitbucketPullRequest(base.deliveryId, event, payload);
  if (pullRequest) return pullRequest;
  if (event !== 'repo:push')
    return { ...base, kind: 'ignored', reason: `Bitbucket event '${event}' is not a push or pull request` };

  const push = readPayload(pushPayload, payload, 'Bitbucket repo:push');
  const changes: BranchChange[] = [];
  const skipped = new Set<string>();
  for (const [index, change] of push.push.changes.entries()) {
    if (change.new === null) skipped.add('branch deletion');
    else if (change.new.type !== 'branch') skipped.add('tag push');
    else {
      changes.push({
        branch: branchName(change.new.name),
        commit: commitId(change.new.target.hash, `push.changes.${index}.new.target.hash`),
        comment: firstLine(change.new.target.message),
        ...withTime(commitTime(change.new.target.date)),
      });
    }
  }
  if (changes.length === 0) return { ...base, kind: 'ignored', reason: noBranchReason(skipped) };
  return { ...base, kind: 'push', changes };
}
