// What decide.ts reads and answers for a bundle: the gathered inputs, the one action to take,
// the status to write and when to look again.
import type { V1Deployment, V1Job, V1Pod } from '@kubernetes/client-node';
import type { BundleObject, BundlePhase, EnvironmentObject, ProjectObject } from '../../crds/index.ts';
import type { ConditionUpdate } from '../../lib/conditions.ts';

export const REQUEUE_PROGRESSING_MS = 30_000;
export const REQUEUE_WAITING_MS = 60_000;
/** A Job with no pod yet is looked at again this soon: its pods may be refused (quota, Pod Security). */
export const REQUEUE_NO_POD_MS = 5_000;

/** A bundle's pods by what they run, from the operator's pod cache. */
export interface BundlePods {
  build: readonly V1Pod[];
  backup: readonly V1Pod[];
  /** The pods of its rollout (the Deployment's pods carrying the bundle's label). */
  rollout: readonly V1Pod[];
}

export interface BundleInputs {
  bundle: BundleObject;
  project: ProjectObject | undefined;
  /** The environment of spec.deploy, when there is one and it exists. */
  environment: EnvironmentObject | undefined;
  /** That environment's Deployment. */
  deployment: V1Deployment | undefined;
  buildJob: V1Job | undefined;
  backupJob: V1Job | undefined;
  /** Every bundle of the same project (this one may be among them). */
  projectBundles: readonly BundleObject[];
  /** Unfinished build Jobs of the project, not counting this bundle's. */
  runningBuilds: number;
  /**
   * Every build Job of the project known to exist or to be on its way (created by this process,
   * not yet in the cache), not counting this bundle's: their bundles hold a slot or are past
   * one, even while the cache does not show the status.buildJob that says so.
   */
  startedBuilds: ReadonlySet<string>;
  /** Builds per project at the same time, unless the Project's annotation says otherwise. */
  defaultBuildConcurrency: number;
  /** The most a Project's annotation may raise it to. */
  maxBuildConcurrency: number;
  /** Unfinished build Jobs of the bundle's namespace (all its projects), not counting this bundle's. */
  namespaceRunningBuilds: number;
  /** The most of those at once (SLIPWAY_MAX_NAMESPACE_BUILDS). */
  maxNamespaceBuilds: number;
  /** The image reference (a tag) the build pushes to. */
  image: string;
  /**
   * What the build Job's push container reported pushing, `image@sha256:…`, read live once the
   * Job succeeded (its pod has left the cache by then); null when its pod or report is missing.
   */
  pushedImage?: string | null;
  /** Where the gateway serves uploaded archives: the only archive URLs a build may be given. */
  archiveBaseUrl: string;
  /** Slipway's registry: a build starts only from this namespace's images there. */
  registry: string;
  /** Why no build may start as far as the registry goes (outbound/registry-guard.ts), if so. */
  registryProblem?: string;
  /** Where build Jobs run (config.buildNamespace). */
  buildNamespace: string;
  /** Where the gateway serves this bundle's build logs (status.logsUrl), when it signs URLs. */
  logsUrl?: string;
  /** Where the backup Job writes, as shown in status.backup.location. */
  backupLocation: string | undefined;
  /** The last log lines of the failed container of a failed build or backup Job (read live). */
  failedOutput?: { build?: string; backup?: string };
  pods?: BundlePods;
  /** Why a running Job could not create its pod (its FailedCreate Event), when it could not. */
  refusedPods?: { build?: string; backup?: string };
  now: Date;
}

export type BundleAction =
  | { type: 'none' }
  | { type: 'createBuildJob' }
  | { type: 'createBackupJob' }
  | { type: 'startRollout'; container: string; image: string }
  /** The environment asked for automatic rollback: a Rollback bundle that reuses `to`'s image. */
  | { type: 'rollBack'; to: string; environment: string }
  /** Superseded: stop this bundle's unfinished Jobs so they free their slot. */
  | { type: 'stopJobs' };

export interface BundleDecision {
  /** Nothing to do and nothing to write (finished or being deleted). */
  skip: boolean;
  phase: BundlePhase;
  /** In order: the step conditions reached, then Ready. */
  conditions: ConditionUpdate[];
  action: BundleAction;
  /** finished: the chain has ended for good; waiting: blocked on something outside; progressing: on its way. */
  outcome: 'finished' | 'waiting' | 'progressing';
  requeueAfterMs?: number;
  /** Status fields to set besides phase and conditions. */
  status: {
    image?: string;
    buildJob?: string;
    build?: { namespace: string; job: string };
    logsUrl?: string;
    backup?: { job: string; location?: string };
    startedAt?: string;
    finishedAt?: string;
  };
}
