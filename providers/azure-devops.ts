// Azure DevOps service hooks: no event header, the body's `eventType` names the event; a git.push
// ("Code pushed") may update several refs.
// https://learn.microsoft.com/azure/devops/service-hooks/events#git.push
import { z } from 'zod';
import {
  classifyRef,
  commitId,
  commitTime,
  decodeJson,
  deliveryId,
  firstLine,
  isZeroObjectId,
  noBranchReason,
  readPayload,
  withTime,
} from './payload.ts';
import { headerValue, type BranchChange, type ParsedDelivery, type ProviderModule } from './provider.ts';
import {
  idField,
  JSON_HEADERS,
  repositoryLocation,
  trimSlash,
  type CommitState,
  type ReportTarget,
} from './report.ts';
import { matchesSecret } from './signatures.ts';
import { azureDevOpsPullRequests, parseAzureDevOpsPullRequest } from './azure-devops-pull-request.ts';

export const azureDevOps: ProviderModule<'azure-devops'> = {
  name: 'azure-devops',
  title: 'Azure DevOps',
  publicHosts: /^(ssh\.)?dev\.azure\.com$|^([a-z0-9-]+\.)?visualstudio\.com$/,
  recognisedBy: 'an eventType in the body',
  // Azure DevOps sends no event header: the body's `eventType` names the event.
  recognise: (_headers, body) => (hasEventType(body) ? 'azure-devops' : undefined),
  verify: (headers, _body, secret) => matchesSecret(headerValue(headers, 'x-provider-service-key'), secret),
  parse: (_headers, body) => parseAzureDevOps(body),
  report: {
    token: 'a personal access token with Code (status) scope',
    target(url, apiUrl) {
      const at = repositoryLocation(url);
      const parts = at ? azureRepository(at.host, at.path) : undefined;
      if (!parts) return `cannot read organization/project/repository from ${url}`;
      return {
        apiUrl: trimSlash(apiUrl ?? 'https://dev.azure.com'),
        repository: parts.map(encodeURIComponent).join('/'),
      };
    },
    // https://learn.microsoft.com/rest/api/azure/devops/git/statuses/create?view=azure-devops-rest-7.1
    commitStatus: (target, commit, token, status) => {
      const [organization, project, repository] = target.repository.split('/');
      return {
        method: 'POST',
        url: `${target.apiUrl}/${organization}/${project}/_apis/git/repositories/${repository}/commits/${commit}/statuses?api-version=7.1`,
        headers: azureHeaders(token),
        body: {
          state: AZURE_STATES[status.state],
          description: status.description,
          ...(status.targetUrl ? { targetUrl: status.targetUrl } : {}),
          // Shown as genre/name: slipway/build.
          context: { genre: 'slipway', name: status.context.replace(/^slipway\//, '') },
        },
      };
    },
    // https://learn.microsoft.com/rest/api/azure/devops/git/pull-requests/get-pull-requests
    openPullRequests: {
      request: (target, token) => {
        const [organization, project, repository] = target.repository.split('/');
        return {
          method: 'GET',
          url: `${target.apiUrl}/${organization}/${project}/_apis/git/repositories/${repository}/pullrequests?searchCriteria.status=active&$top=100&api-version=7.1`,
          headers: azureHeaders(token),
        };
      },
      parse: azureDevOpsPullRequests,
      pageSize: 100,
    },
    // https://learn.microsoft.com/rest/api/azure/devops/git/pull-request-threads: the comment is
    // the first of a thread of its own; the thread's id is kept, and its comment 1 edited.
    comment: {
      create: (target, number, token, body) => ({
        method: 'POST',
        url: `${pullRequestApi(target, number)}/threads?api-version=7.1`,
        headers: azureHeaders(token),
        body: { comments: [{ parentCommentId: 0, content: body, commentType: 1 }], status: 'active' },
      }),
      idOf: idField,
      update: (target, number, id, token, body) => ({
        method: 'PATCH',
        url: `${pullRequestApi(target, number)}/threads/${encodeURIComponent(id)}/comments/1?api-version=7.1`,
        headers: azureHeaders(token),
        body: { content: body },
      }),
    },
  },
  form: {
    where:
      'Project settings → Service hooks → + → Web Hooks; trigger "Code pushed" (for previews, one more of each: "Pull request created", "Pull request updated", "Pull request merge attempted")',
    fields: (url, secret) => [
      ['URL', url],
      ['HTTP headers', `X-Provider-Service-Key: ${secret}`],
      ['Basic authentication', 'leave empty'],
      ['Resource details to send', 'All'],
    ],
  },
};

function azureHeaders(token: string): Record<string, string> {
  return {
    ...JSON_HEADERS,
    accept: 'application/json',
    authorization: `Basic ${Buffer.from(`:${token}`).toString('base64')}`,
  };
}

/** The REST path of pull request `number` of the target's repository. */
function pullRequestApi(target: ReportTarget, number: number): string {
  const [organization, project, repository] = target.repository.split('/');
  return `${target.apiUrl}/${organization}/${project}/_apis/git/repositories/${repository}/pullRequests/${number}`;
}

const AZURE_STATES: Record<CommitState, string> = {
  pending: 'pending',
  success: 'succeeded',
  failure: 'failed',
  error: 'error',
};

/**
 * organization, project and repository of an Azure Repos URL: https://dev.azure.com/{org}/{project}/_git/{repo},
 * git@ssh.dev.azure.com:v3/{org}/{project}/{repo}, https://{org}.visualstudio.com/{project}/_git/{repo}.
 */
function azureRepository(host: string, path: string[]): [string, string, string] | undefined {
  if (host === 'dev.azure.com' && path.length === 4 && path[2] === '_git')
    return [path[0]!, path[1]!, path[3]!];
  if (host === 'ssh.dev.azure.com' && path.length === 4 && path[0] === 'v3')
    return [path[1]!, path[2]!, path[3]!];
  const org = /^([a-z0-9-]+)\.visualstudio\.com$/.exec(host)?.[1];
  if (org && path.length === 3 && path[1] === '_git') return [org, path[0]!, path[2]!];
  return undefined;
}

function hasEventType(body: Buffer): boolean {
  let payload: unknown;
  try {
    payload = JSON.parse(body.toString('utf8'));
  } catch {
    return false;
  }
  return (
    typeof payload === 'object' &&
    payload !== null &&
    typeof (payload as { eventType?: unknown }).eventType === 'string'
  );
}

const envelope = z.object({ eventType: z.string(), id: z.string().nullish() });

const pushPayload = z.object({
  resource: z.object({
    refUpdates: z.array(z.object({ name: z.string(), newObjectId: z.string() })),
    commits: z
      .array(
        z.object({
          commitId: z.string(),
          comment: z.string().nullish(),
          committer: z.object({ date: z.string().nullish() }).nullish(),
        }),
      )
      .nullish(),
  }),
});

export function parseAzureDevOps(body: Buffer): ParsedDelivery {
  const payload = decodeJson(body);
  const event = readPayload(envelope, payload, 'Azure DevOps service hook');
  const base = { provider: 'azure-devops' as const, deliveryId: deliveryId(event.id ?? undefined) };
  const pullRequest = parseAzureDevOpsPullRequest(base.deliveryId, event.eventType, payload);
  if (pullRequest) return pullRequest;
  if (event.eventType !== 'git.push') {
    return {
      ...base,
      kind: 'ignored',
      reason: `Azure DevOps event '${event.eventType}' is not a push or pull request`,
    };
  }

  const { resource } = readPayload(pushPayload, payload, 'Azure DevOps git.push');
  const changes: BranchChange[] = [];
  const skipped = new Set<string>();
  for (const [index, update] of resource.refUpdates.entries()) {
    const ref = classifyRef(update.name);
    if (ref.kind === 'tag') skipped.add('tag push');
    else if (ref.kind === 'other') skipped.add('push to a ref that is not a branch');
    else if (isZeroObjectId(update.newObjectId)) skipped.add('branch deletion');
    else {
      const commit = commitId(update.newObjectId, `resource.refUpdates.${index}.newObjectId`);
      const head = resource.commits?.find((c) => c.commitId.toLowerCase() === commit);
      changes.push({
        branch: ref.branch,
        commit,
        comment: firstLine(head?.comment),
        ...withTime(commitTime(head?.committer?.date)),
      });
    }
  }
  if (changes.length === 0) return { ...base, kind: 'ignored', reason: noBranchReason(skipped) };
  return { ...base, kind: 'push', changes };
}
