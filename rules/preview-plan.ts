// Decides what a pull request's state does to the project's Preview: make or update it, remove
// it, or nothing. Pure: the gateway applies it to each pull-request delivery, the operator to
// each pull request its periodic look at the provider finds (operator/preview/poll.ts). It reads
// the pull request's state, never the action alone, so a redelivery, or two deliveries that
// arrive out of order, end the same way.
import { API_VERSION, type PreviewObject, type PreviewsSettings, type Provider } from '../crds/index.ts';
import { LABEL_PROJECT, LABEL_SHARD, labelValue } from '../crds/labels.ts';
import { ownerReferenceTo } from '../crds/owner-references.ts';
import { previewName } from './preview-names.ts';
import { withoutControlCharacters } from './text.ts';

/** The project a pull request belongs to; with its uid it owns the Preview. */
export interface PreviewProject {
  namespace: string;
  name: string;
  uid?: string | undefined;
  /** The Project's shard label, carried to the Preview. */
  shard?: string | undefined;
}

/**
 * A pull request as a delivery left it: the gateway makes, updates or removes its Preview from
 * this state alone (not from the action), so a redelivery or deliveries out of order end the same.
 */
export interface PullRequestState {
  /** open: to be previewed (when not a draft and, with trigger Label, labelled); closed and merged: to be removed. */
  state: 'open' | 'closed' | 'merged';
  /** The provider's own word for what happened (opened, synchronize, label_updated…), for logs. */
  action: string;
  number: number;
  title: string;
  /** The head (source) branch. */
  branch: string;
  targetBranch: string;
  /** The head commit: 40 hex digits, or 12 on Bitbucket Cloud. */
  headCommit: string;
  /** The ref the base repository publishes the head under (refs/pull/<n>/head), when it has one. */
  fetchRef: string | undefined;
  author: string;
  /** The head is in another repository than the base (compared by repository id). */
  fork: boolean;
  draft: boolean;
  /** The pull request's labels; undefined where the provider has none (Bitbucket Cloud). */
  labels: string[] | undefined;
  url: string;
}

export type PreviewPlan =
  | { outcome: 'apply'; preview: PreviewObject }
  | { outcome: 'remove'; name: string; reason: string }
  | { outcome: 'ignored'; reason: string };

export function planPreview(
  project: PreviewProject & { previews?: Partial<PreviewsSettings> | undefined },
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
  project: PreviewProject,
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
      ...(project.uid ? { ownerReferences: [ownerReferenceTo('Project', { metadata: project })] } : {}),
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
