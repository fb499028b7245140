// Decides what a pull-request delivery does to the project's Preview: make or update it, remove
// it, or nothing. Pure, like plan.ts for pushes: the HTTP layer gathers the inputs and writes the
// result. It reads the pull request's state, never the action alone, so a redelivery, or two
// deliveries that arrive out of order, end the same way.
import { API_VERSION, type PreviewObject, type PreviewsSettings, type Provider } from '../crds/index.ts';
import { LABEL_PROJECT, LABEL_SHARD, labelValue } from '../crds/labels.ts';
import type { PullRequestState } from '../providers/index.ts';
import { previewName } from '../rules/preview-names.ts';
import { withoutControlCharacters } from '../rules/text.ts';
import type { PlanProject } from './plan.ts';

export type PreviewPlan =
  | { outcome: 'apply'; preview: PreviewObject }
  | { outcome: 'remove'; name: string; reason: string }
  | { outcome: 'ignored'; reason: string };

export function planPreview(
  project: PlanProject & { previews?: Partial<PreviewsSettings> | undefined },
  provider: Provider,
  pr: PullRequestState,
): PreviewPlan {
  const { previews } = project;
  if (!previews)
    return {
      outcome: 'ignored',
      reason: `project ${project.name} has no spec.previews: its pull requests are not previewed`,
    };
  const name = previewName(project.name, pr.number);
  const why = wantedOrWhyNot(previews, pr);
  if (why === 'wanted') return { outcome: 'apply', preview: previewObject(project, provider, pr, name) };
  if (why.startsWith('!')) return { outcome: 'ignored', reason: why.slice(1) };
  return { outcome: 'remove', name, reason: why };
}

/** 'wanted', or why the pull request has no preview ('!' first: nothing to remove either). */
function wantedOrWhyNot(previews: Partial<PreviewsSettings>, pr: PullRequestState): string {
  if (pr.state !== 'open') return `pull request #${pr.number} was ${pr.state}`;
  if (pr.draft) return `pull request #${pr.number} is a draft`;
  if ((previews.trigger ?? 'Label') === 'Always') return 'wanted';
  const label = previews.label ?? 'preview';
  if (pr.labels === undefined)
    return `!pull requests on this provider have no labels: set spec.previews.trigger to Always to preview them`;
  if (!pr.labels.includes(label)) return `pull request #${pr.number} does not carry the label ${label}`;
  return 'wanted';
}

function previewObject(
  project: PlanProject,
  provider: Provider,
  pr: PullRequestState,
  name: string,
): PreviewObject {
  const text = (value: string, max: number) => withoutControlCharacters(value).slice(0, max);
  return {
    apiVersion: API_VERSION,
    kind: 'Preview',
    metadata: {
      name,
      namespace: project.namespace,
      labels: {
        [LABEL_PROJECT]: labelValue(project.name),
        ...(project.shard ? { [LABEL_SHARD]: project.shard } : {}),
      },
      // Owned by the Project: deleting it deletes its previews, and with them what serves them.
      ...(project.uid
        ? {
            ownerReferences: [
              { apiVersion: API_VERSION, kind: 'Project', name: project.name, uid: project.uid },
            ],
          }
        : {}),
    },
    spec: {
      projectRef: { name: project.name },
      provider,
      number: pr.number,
      ...(pr.title ? { title: text(pr.title, 1024) } : {}),
      branch: pr.branch,
      ...(pr.targetBranch ? { targetBranch: pr.targetBranch } : {}),
      headCommit: pr.headCommit,
      ...(pr.fetchRef ? { fetchRef: pr.fetchRef } : {}),
      ...(pr.author ? { author: text(pr.author, 255) } : {}),
      fork: pr.fork,
      ...(pr.url ? { pullRequestUrl: pr.url } : {}),
    },
  };
}

/** The fields of a Preview's spec that a delivery sets (all but approvedCommit, which people set). */
export function deliveredSpec(spec: PreviewObject['spec']): Omit<PreviewObject['spec'], 'approvedCommit'> {
  const { approvedCommit: _, ...delivered } = spec;
  return delivered;
}
