// Decides which Bundles a push or an upload creates. Pure: the HTTP layer gathers the inputs and
// writes the result. Names are deterministic, so a redelivery maps to the same names and the
// API server's "already exists" is how a duplicate is recognised.
import type { BundleObject, Provider, WebhookObject } from '../crds/index.ts';
import { bundleName, newBundle } from '../rules/new-bundle.ts';
import { matchesBranch } from './matching.ts';
import type { BranchChange } from '../providers/index.ts';

export { LABEL_PROJECT, LABEL_TRIGGER, LABEL_WEBHOOK } from '../crds/labels.ts';
export { bundleName } from '../rules/new-bundle.ts';

export interface PlanProject {
  namespace: string;
  name: string;
  /** When set, created bundles are owned by the Project and go with it. */
  uid?: string;
  /** The Project's shard label (LABEL_SHARD), carried to its bundles. */
  shard?: string;
}

export interface StoredArchiveRef {
  url: string;
  sha256: string;
  sizeBytes: number;
}

export type BuildTrigger =
  | { type: 'Webhook'; provider: Provider; deliveryId: string | undefined; changes: BranchChange[] }
  | { type: 'Upload'; branch: string; commit: string; comment: string; archive: StoredArchiveRef };

export interface PlanInput {
  project: PlanProject;
  webhooks: readonly WebhookObject[];
  latestManualBundle: BundleObject | undefined;
  trigger: BuildTrigger;
  /** When the push or upload arrived; orders bundles created within the same second. */
  receivedAt?: Date;
  /** Bundles the project pruned lately: making one again is a replay, answered as a duplicate. */
  prunedBundles?: ReadonlySet<string>;
}

export interface PlannedBundle {
  bundle: BundleObject;
  webhook: string | null;
  environment: string | null;
  /** Made before and pruned since: not created again (rules/pruned-bundles.ts). */
  pruned: boolean;
}

export type Plan =
  | { outcome: 'create'; bundles: PlannedBundle[] }
  | { outcome: 'ignored'; reason: string }
  | { outcome: 'unprocessable'; code: 'no_manual_bundle' | 'manual_bundle_incomplete'; message: string };

const MAX_COMMENT_LENGTH = 4096;

export function planBundles(input: PlanInput): Plan {
  const { project, trigger } = input;
  const webhooks = input.webhooks
    .filter((w) => w.spec.projectRef.name === project.name && !w.metadata.deletionTimestamp)
    .toSorted((a, b) => compareNames(a.metadata.name, b.metadata.name));

  // One candidate per (change, matching webhook); an upload with no match still builds once.
  const candidates: Array<{ change: BranchChange; webhook: WebhookObject | undefined }> = [];
  if (trigger.type === 'Webhook') {
    for (const change of trigger.changes) {
      for (const webhook of webhooks) {
        if (matchesBranch(change.branch, webhook.spec.branch, webhook.spec.matchMode)) {
          candidates.push({ change, webhook });
        }
      }
    }
    if (candidates.length === 0) {
      const branches = [...new Set(trigger.changes.map((c) => c.branch))].join(', ');
      return {
        outcome: 'ignored',
        reason: `no webhook of project ${project.name} matches branch ${branches}`,
      };
    }
  } else {
    const change = { branch: trigger.branch, commit: trigger.commit, comment: trigger.comment };
    const matching = webhooks.filter((w) => matchesBranch(trigger.branch, w.spec.branch, w.spec.matchMode));
    if (matching.length === 0) candidates.push({ change, webhook: undefined });
    for (const webhook of matching) candidates.push({ change, webhook });
  }

  const unbuildable = manualBundleProblem(project.name, input.latestManualBundle);
  if (unbuildable) return unbuildable;
  const manual = input.latestManualBundle!; // checked just above

  const bundles = new Map<string, PlannedBundle>();
  for (const { change, webhook } of candidates) {
    const planned = plannedBundle(input, manual, change, webhook);
    // The same commit reaching one webhook through two branches is one build.
    if (!bundles.has(planned.bundle.metadata.name)) bundles.set(planned.bundle.metadata.name, planned);
  }
  return { outcome: 'create', bundles: [...bundles.values()] };
}

function plannedBundle(
  input: PlanInput,
  manual: BundleObject,
  change: BranchChange,
  webhook: WebhookObject | undefined,
): PlannedBundle {
  const { project, trigger } = input;
  const webhookName = webhook?.metadata.name;
  const environment = webhook?.spec.environmentRef?.name;

  const bundle = newBundle({
    name: bundleName(project.name, nameSeed(trigger, webhookName, change)),
    namespace: project.namespace,
    project,
    source:
      trigger.type === 'Webhook'
        ? {
            git: {
              commit: change.commit,
              branch: change.branch,
              ...(change.committedAt ? { committedAt: change.committedAt } : {}),
            },
          }
        : { archive: { ...trigger.archive, commit: change.commit, branch: change.branch } },
    comment: change.comment.slice(0, MAX_COMMENT_LENGTH),
    settingsFrom: manual,
    trigger:
      trigger.type === 'Webhook'
        ? {
            type: 'Webhook',
            provider: trigger.provider,
            ...(webhookName ? { webhookRef: { name: webhookName } } : {}),
            ...(trigger.deliveryId ? { deliveryId: trigger.deliveryId } : {}),
          }
        : { type: 'Upload', ...(webhookName ? { webhookRef: { name: webhookName } } : {}) },
    ...(environment
      ? { deploy: { environment, backupBeforeDeploy: webhook?.spec.backupBeforeDeploy === true } }
      : {}),
    ...(input.receivedAt ? { receivedAt: input.receivedAt } : {}),
  });
  return {
    bundle,
    webhook: webhookName ?? null,
    environment: environment ?? null,
    pruned: input.prunedBundles?.has(bundle.metadata.name) === true,
  };
}

/**
 * What makes two requests "the same build". A push: the webhook and the commit (so a provider's
 * redelivery, or the same commit pushed again, is a duplicate). An upload: also the archive's
 * content, so a retried upload of the same file is a duplicate but a new archive of the same
 * commit builds again instead of silently keeping the old files.
 */
function nameSeed(trigger: BuildTrigger, webhookName: string | undefined, change: BranchChange): string {
  const parts = [trigger.type, `webhook:${webhookName ?? ''}`, `commit:${change.commit}`];
  if (trigger.type === 'Upload') parts.push(`sha256:${trigger.archive.sha256}`);
  return parts.join('\n');
}

/**
 * What makes `existing`, a Bundle found under a planned bundle's name, another build than the
 * plan (nameSeed's parts, and the Project that owns it), or undefined when it is the same build
 * (a redelivery). Only Slipway creates push and upload bundles (the slipway-writers policy); this
 * keeps a bundle made under the name some other way from swallowing the push.
 */
export function otherBuild(existing: BundleObject, planned: BundleObject): string | undefined {
  const facts = (b: BundleObject) => ({
    trigger: b.spec.trigger.type,
    webhook: b.spec.trigger.webhookRef?.name ?? '',
    commit: b.spec.source.git?.commit ?? b.spec.source.archive?.commit ?? '',
    archive: b.spec.source.archive?.sha256 ?? '',
    owner: b.metadata.ownerReferences?.find((o) => o.controller)?.uid ?? '',
  });
  const [was, wanted] = [facts(existing), facts(planned)];
  const differ = (Object.keys(wanted) as Array<keyof typeof wanted>).filter((k) => was[k] !== wanted[k]);
  if (differ.length === 0) return undefined;
  const shown = (f: typeof was) => differ.map((k) => `${k} ${f[k] || '(none)'}`).join(', ');
  return `Bundle ${planned.metadata.name} already exists in namespace ${planned.metadata.namespace} for another build (${shown(was)}; this delivery: ${shown(wanted)})`;
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Why no webhook or upload build of the project can be made yet, if so: they copy the base
 * software and directory map of its latest manual bundle. (Uploads ask before receiving the archive.)
 */
export function manualBundleProblem(
  projectName: string,
  manual: BundleObject | undefined,
): Extract<Plan, { outcome: 'unprocessable' }> | undefined {
  if (!manual)
    return {
      outcome: 'unprocessable',
      code: 'no_manual_bundle',
      message:
        `project ${projectName} has no manual bundle yet: webhook and upload builds copy the base ` +
        'software and directory map of the latest manual bundle, so build one manually first',
    };
  if (!manual.spec.baseSoftware || !manual.spec.directoryMap)
    return {
      outcome: 'unprocessable',
      code: 'manual_bundle_incomplete',
      message: `the latest manual bundle ${manual.metadata.name} has no base software or directory map to copy`,
    };
  return undefined;
}
