// Pure decisions of the Environment controller: are its references usable, and what do its
// rollouts say?
import type { V1Deployment } from '@kubernetes/client-node';
import type { BundleObject, EnvironmentObject, EnvironmentReason, ProjectObject } from '../../crds/index.ts';
import { findCondition, type ConditionUpdate } from '../../lib/conditions.ts';
import { runningBundle } from '../running-bundle.ts';
import { ANNOTATION_ROLLOUT_STARTED } from '../names.ts';

/** The keys of the database Secret the backup Job reads (port is optional). */
export const DATABASE_SECRET_KEYS = ['host', 'database', 'username', 'password'] as const;

/** What the environment's spec points at outside Slipway, read from the API server. */
export interface EnvironmentReferences {
  /** The keys of spec.database.secretRef's Secret; null when it does not exist. */
  databaseSecretKeys?: readonly string[] | null;
  /** Whether spec.backupStorage's claim exists. */
  backupClaimExists?: boolean;
}

export interface EnvironmentInputs {
  environment: EnvironmentObject;
  project: ProjectObject | undefined;
  deployment: V1Deployment | undefined;
  references?: EnvironmentReferences;
}

export function decideEnvironment({
  environment,
  project,
  deployment,
  references = {},
}: EnvironmentInputs): ConditionUpdate {
  const not = (reason: EnvironmentReason, message: string): ConditionUpdate => ({
    type: 'Ready',
    status: 'False',
    reason,
    message,
  });
  const { projectRef, deploymentRef } = environment.spec;
  if (!project || project.metadata.deletionTimestamp)
    return not('ProjectNotFound', `project ${projectRef.name} does not exist`);
  if (!deployment) return not('DeploymentNotFound', `Deployment ${deploymentRef.name} does not exist`);
  const containers = deployment.spec?.template?.spec?.containers ?? [];
  if (deploymentRef.container && !containers.some((c) => c.name === deploymentRef.container))
    return not(
      'ContainerNotFound',
      `Deployment ${deploymentRef.name} has no container ${deploymentRef.container}`,
    );
  if (containers.length === 0)
    return not('ContainerNotFound', `Deployment ${deploymentRef.name} has no containers`);
  const { database, backupStorage } = environment.spec;
  if (database && references.databaseSecretKeys === null)
    return not(
      'DatabaseSecretNotFound',
      `Secret ${database.secretRef.name} (spec.database.secretRef) does not exist; backups need it`,
    );
  const missingKeys = database
    ? DATABASE_SECRET_KEYS.filter(
        (k) => references.databaseSecretKeys && !references.databaseSecretKeys.includes(k),
      )
    : [];
  if (database && missingKeys.length > 0)
    return not(
      'DatabaseSecretIncomplete',
      `Secret ${database.secretRef.name} has no ${missingKeys.join(', ')}: the backup reads ${DATABASE_SECRET_KEYS.join(', ')} (and port, if set)`,
    );
  if (backupStorage && references.backupClaimExists === false)
    return not(
      'BackupClaimNotFound',
      `persistentvolumeclaim ${backupStorage.persistentVolumeClaim.claimName} (spec.backupStorage) does not exist; backups are written there`,
    );
  return {
    type: 'Ready',
    status: 'True',
    reason: 'Valid',
    message: `deploys to container ${deploymentRef.container ?? containers[0]!.name} of Deployment ${deploymentRef.name}`,
  };
}

type LastDeployment = NonNullable<NonNullable<EnvironmentObject['status']>['lastDeployment']>;

/** Status fields as merge-patched: `finishedAt: null` clears the previous rollout's end. */
export type DeploymentRecord = {
  currentBundle?: string;
  lastDeployment?: Omit<LastDeployment, 'finishedAt'> & { finishedAt?: string | null };
};

/**
 * What the environment reports about its rollouts, read from what the rollout left behind: the
 * Deployment names the bundle it runs (and since when), that bundle's Deployed condition says
 * how it went. The Bundle controller rolls out; this controller alone writes the Environment's
 * status. When the bundle is gone (pruned), what the status already says stays.
 */
export function deploymentRecord(
  environment: EnvironmentObject,
  deployment: V1Deployment | undefined,
  bundleNamed: (name: string) => BundleObject | undefined,
): DeploymentRecord {
  const previous = {
    ...(environment.status?.currentBundle ? { currentBundle: environment.status.currentBundle } : {}),
    ...(environment.status?.lastDeployment ? { lastDeployment: environment.status.lastDeployment } : {}),
  };
  const running = runningBundle(deployment);
  const bundle = running ? bundleNamed(running) : undefined;
  if (!running || !bundle) return { ...previous, ...ended(previous.lastDeployment, bundleNamed) };
  const last = previous.lastDeployment;
  const startedAt =
    deployment?.metadata?.annotations?.[ANNOTATION_ROLLOUT_STARTED] ??
    (last?.bundle === running ? last.startedAt : undefined);
  if (!startedAt) return previous;
  const { result, finishedAt } = outcome(bundle);
  const currentBundle = result === 'Succeeded' ? running : previous.currentBundle;
  return {
    ...(currentBundle ? { currentBundle } : {}),
    lastDeployment: { bundle: running, startedAt, finishedAt, result },
  };
}

/** How a bundle's rollout went, from its Deployed condition. */
function outcome(bundle: BundleObject): Pick<LastDeployment, 'result'> & { finishedAt: string | null } {
  const deployed = findCondition(bundle.status?.conditions, 'Deployed');
  const result =
    deployed?.status === 'True' ? 'Succeeded' : deployed?.status === 'False' ? 'Failed' : 'InProgress';
  return { result, finishedAt: result === 'InProgress' ? null : (deployed?.lastTransitionTime ?? null) };
}

/**
 * A rollout recorded as in progress whose bundle the Deployment no longer names (someone put an
 * older pod template back, kubectl rollout undo): its end, once its bundle has one.
 */
function ended(
  last: DeploymentRecord['lastDeployment'],
  bundleNamed: (name: string) => BundleObject | undefined,
): Pick<DeploymentRecord, 'lastDeployment'> {
  if (last?.result !== 'InProgress') return {};
  const bundle = bundleNamed(last.bundle);
  if (!bundle) return {};
  const { result, finishedAt } = outcome(bundle);
  return result === 'InProgress' ? {} : { lastDeployment: { ...last, result, finishedAt } };
}
