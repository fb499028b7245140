// An Azure DevOps git.pullrequest.* service hook (https://learn.microsoft.com/azure/devops/service-hooks/events):
// resource is the pull request; its status (active, completed, abandoned) says whether it is open.
// Azure Repos publishes a pull request's merge with its target as refs/pull/<id>/merge, whose
// second parent is the head commit: the build fetches it from there, a fork's too.
import { z } from 'zod';
import { branchName, classifyRef, commitId, readPayload } from './payload.ts';
import { MalformedPayloadError, type ParsedDelivery, type PullRequestState } from './provider.ts';
import { readEach } from './report.ts';

const EVENTS = new Set(['git.pullrequest.created', 'git.pullrequest.updated', 'git.pullrequest.merged']);

const pullRequestPayload = z.object({
  resource: z.object({
    pullRequestId: z.number().int().positive(),
    title: z.string().nullish(),
    status: z.string(),
    isDraft: z.boolean().nullish(),
    sourceRefName: z.string(),
    targetRefName: z.string(),
    lastMergeSourceCommit: z.object({ commitId: z.string() }),
    createdBy: z.object({ uniqueName: z.string().nullish(), displayName: z.string().nullish() }).nullish(),
    labels: z.array(z.object({ name: z.string() })).nullish(),
    forkSource: z.unknown().optional(),
    repository: z.object({ webUrl: z.string().nullish() }).nullish(),
    _links: z.object({ web: z.object({ href: z.string() }).nullish() }).nullish(),
  }),
});

function branchOf(ref: string, where: string): string {
  const kind = classifyRef(ref);
  if (kind.kind !== 'branch') throw new MalformedPayloadError(`${where} is not a branch`);
  return branchName(kind.branch);
}

export function parseAzureDevOpsPullRequest(
  deliveryId: string | undefined,
  eventType: string,
  payload: unknown,
): ParsedDelivery | undefined {
  if (!EVENTS.has(eventType)) return undefined;
  const { resource: pr } = readPayload(pullRequestPayload, payload, `Azure DevOps ${eventType}`);
  const web =
    pr._links?.web?.href ??
    (pr.repository?.webUrl ? `${pr.repository.webUrl}/pullrequest/${pr.pullRequestId}` : '');
  return {
    provider: 'azure-devops',
    deliveryId,
    kind: 'pull-request',
    pullRequest: {
      state: pr.status === 'completed' ? 'merged' : pr.status === 'abandoned' ? 'closed' : 'open',
      action: eventType,
      number: pr.pullRequestId,
      title: (pr.title ?? '').slice(0, 1024),
      branch: branchOf(pr.sourceRefName, 'resource.sourceRefName'),
      targetBranch: branchOf(pr.targetRefName, 'resource.targetRefName'),
      headCommit: commitId(pr.lastMergeSourceCommit.commitId, 'resource.lastMergeSourceCommit.commitId'),
      fetchRef: `refs/pull/${pr.pullRequestId}/merge`,
      author: (pr.createdBy?.uniqueName ?? pr.createdBy?.displayName ?? '').slice(0, 255),
      // Present only on a pull request from a fork.
      fork: pr.forkSource !== undefined && pr.forkSource !== null,
      draft: pr.isDraft === true,
      // Set only when the pull request has labels ("tags"): none sent means none.
      labels: (pr.labels ?? []).map((l) => l.name),
      url: web.slice(0, 2048),
    },
  };
}

/** The open pull requests of Azure DevOps' list API (`value` of GET …/pullrequests?searchCriteria.status=active). */
export function azureDevOpsPullRequests(answer: unknown): PullRequestState[] {
  const value = (answer as { value?: unknown } | undefined)?.value;
  return readEach(value, (item) => {
    const parsed = parseAzureDevOpsPullRequest(undefined, 'git.pullrequest.updated', { resource: item });
    return parsed?.kind === 'pull-request' ? parsed.pullRequest : undefined;
  });
}
