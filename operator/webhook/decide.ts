// Pure decision of the Webhook controller: are its project and environment usable, what URL
// does it publish, and which bundle did it trigger last?
import type {
  BundleObject,
  EnvironmentObject,
  ProjectObject,
  WebhookObject,
  WebhookReason,
} from '../../crds/index.ts';
import { findCondition, type ConditionUpdate } from '../../lib/conditions.ts';
import { isNewer } from '../../rules/bundle-order.ts';

export interface WebhookInputs {
  webhook: WebhookObject;
  project: ProjectObject | undefined;
  environment: EnvironmentObject | undefined;
  /** Bundles whose spec.trigger.webhookRef names this webhook. */
  bundles: readonly BundleObject[];
}

export interface WebhookDecision {
  ready: ConditionUpdate;
  /** The project's webhook URL, when the webhook can be used. */
  url: string | undefined;
  lastTriggered: { bundle: string; commit: string; branch: string; at: string } | undefined;
}

export function decideWebhook({ webhook, project, environment, bundles }: WebhookInputs): WebhookDecision {
  const lastTriggered = newestTrigger(bundles);
  const not = (reason: WebhookReason, message: string): WebhookDecision => ({
    ready: { type: 'Ready', status: 'False', reason, message },
    url: undefined,
    lastTriggered,
  });
  const { projectRef, environmentRef, backupBeforeDeploy } = webhook.spec;
  if (!project || project.metadata.deletionTimestamp)
    return not('ProjectNotFound', `project ${projectRef.name} does not exist`);
  const url = project.status?.webhook?.url;
  if (!url) {
    const why = findCondition(project.status?.conditions, 'Ready');
    return not(
      'ProjectNotReady',
      `project ${projectRef.name} has no webhook URL yet${why && why.status !== 'True' ? `: ${why.reason}: ${why.message}` : ''}`,
    );
  }
  if (environmentRef) {
    if (!environment || environment.metadata.deletionTimestamp)
      return not('EnvironmentNotFound', `environment ${environmentRef.name} does not exist`);
    if (environment.spec.projectRef.name !== projectRef.name)
      return not(
        'EnvironmentProjectMismatch',
        `environment ${environmentRef.name} belongs to project ${environment.spec.projectRef.name}, not ${projectRef.name}`,
      );
    if (backupBeforeDeploy && (!environment.spec.database || !environment.spec.backupStorage))
      return not(
        'BackupNotConfigured',
        `backupBeforeDeploy is set, but environment ${environmentRef.name} has no spec.database and spec.backupStorage`,
      );
  }
  const target = environmentRef ? `builds and deploys to ${environmentRef.name}` : 'builds';
  return {
    ready: {
      type: 'Ready',
      status: 'True',
      reason: 'Valid',
      message: `${target} on pushes to ${describeMatch(webhook)}`,
    },
    url,
    lastTriggered,
  };
}

function describeMatch(webhook: WebhookObject): string {
  const { branch, matchMode } = webhook.spec;
  switch (matchMode) {
    case 'Exact':
      return `branch ${branch}`;
    case 'StartsWith':
      return `branches starting with ${branch}`;
    case 'EndsWith':
      return `branches ending with ${branch}`;
    case 'Contains':
      return `branches containing ${branch}`;
  }
}

function newestTrigger(bundles: readonly BundleObject[]): WebhookDecision['lastTriggered'] {
  if (bundles.length === 0) return undefined;
  const newest = bundles.reduce((a, b) => (isNewer(b, a) ? b : a));
  if (!newest.metadata.creationTimestamp) return undefined;
  const { git, archive } = newest.spec.source;
  return {
    bundle: newest.metadata.name,
    commit: git?.commit ?? archive?.commit ?? '',
    branch: git?.branch ?? archive?.branch ?? '',
    at: newest.metadata.creationTimestamp,
  };
}
