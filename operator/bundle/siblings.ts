// How a bundle stands among its project's other bundles (pure): newest intent wins per
// environment (superseded), builds go oldest first within the project's limit, and a failed
// rollout goes back to the bundle the environment ran before unless a newer one is on its way.
import type { BundleObject, EnvironmentObject, ProjectObject } from '../../crds/index.ts';
import { isFinished } from '../../rules/bundle-outcome.ts';
import { isNewer } from '../../rules/bundle-order.ts';
import { ANNOTATION_BUILD_CONCURRENCY, buildJobName } from '../names.ts';
import type { BundleAction, BundleInputs } from './decision.ts';
import { rolloutBegun } from './workload-readings.ts';
import { buildSettingsProblem } from './settings.ts';
import { environmentOf, wasDeployedTo } from './workload-state.ts';
import { runningBundle } from '../running-bundle.ts';

/** The message saying why this bundle is superseded, or undefined when it is not. */
export function supersededBy(input: BundleInputs): string | undefined {
  const { bundle, deployment } = input;
  const env = environmentOf(bundle);
  if (!env) return undefined;
  if (rolloutBegun(bundle, deployment)) return undefined;
  const newer = input.projectBundles.filter(
    (b) =>
      b.metadata.name !== bundle.metadata.name &&
      !b.metadata.deletionTimestamp &&
      environmentOf(b) === env &&
      isNewer(b, bundle),
  );
  if (newer.length > 0) {
    const newest = newer.reduce((a, b) => (isNewer(b, a) ? b : a));
    return `bundle ${newest.metadata.name} for environment ${env} is newer`;
  }
  // An older bundle never replaces a newer one that is already deployed.
  const running = runningBundle(deployment);
  const runningObj = running && input.projectBundles.find((b) => b.metadata.name === running);
  if (runningObj && isNewer(runningObj, bundle))
    return `environment ${env} already runs the newer bundle ${running}`;
  return undefined;
}

/** Older bundles of the project that want a build slot first (first come, first built). */
export function olderBundlesWaitingToBuild(input: BundleInputs): BundleObject[] {
  const { bundle } = input;
  return input.projectBundles.filter((b) => {
    if (b.metadata.name === bundle.metadata.name || b.metadata.deletionTimestamp) return false;
    if (!isNewer(bundle, b) || isFinished(b) || b.status?.buildJob || b.status?.image) return false;
    // Counted among the running builds already (its status write may not have reached the cache).
    if (input.startedBuilds.has(buildJobName(b.metadata.namespace, b.metadata.name))) return false;
    // A bundle that cannot build yet (say, a git bundle of a project with no repository) holds
    // no place in the queue: an upload behind it must not wait for it.
    if (input.project && buildSettingsProblem(b, input.project, input)) return false;
    // A bundle that is about to be superseded will not build.
    return supersededBy({ ...input, bundle: b }) === undefined;
  });
}

/** The project's build limit: its annotation (at most `max`, the operator's cap), else the default. */
export function buildConcurrency(project: ProjectObject, fallback: number, max: number): number {
  const raw = project.metadata.annotations?.[ANNOTATION_BUILD_CONCURRENCY];
  const n = raw === undefined ? NaN : Number(raw);
  return Math.min(Number.isInteger(n) && n >= 1 ? n : fallback, max);
}

/**
 * After a failed rollout, when the environment asks for it: back to the bundle it ran before,
 * unless a newer bundle for the environment exists (newest intent wins) or this bundle was a
 * rollback itself (no loops).
 */
export function automaticRollback(
  input: BundleInputs,
  environment: EnvironmentObject,
): { to: string; action: Extract<BundleAction, { type: 'rollBack' }>; made: boolean } | undefined {
  const { bundle } = input;
  const previous = environment.status?.currentBundle;
  if (!environment.spec.autoRollback || bundle.spec.trigger.type === 'Rollback') return undefined;
  if (!previous || previous === bundle.metadata.name) return undefined;
  const envName = environment.metadata.name;
  // status.currentBundle is Slipway's (the slipway-writers policy); still, only a bundle of the
  // project that was deployed to this Environment is rolled back to.
  const target = input.projectBundles.find((b) => b.metadata.name === previous);
  if (!target || !wasDeployedTo(target, envName)) return undefined;
  // Newer bundles that will never roll out (failed, superseded, being deleted) do not count.
  const newer = input.projectBundles.filter(
    (b) =>
      b.metadata.name !== bundle.metadata.name &&
      environmentOf(b) === envName &&
      isNewer(b, bundle) &&
      !b.metadata.deletionTimestamp &&
      b.status?.phase !== 'Failed' &&
      b.status?.phase !== 'Superseded',
  );
  // The rollback this decision made earlier (the bundle is decided again until its status shows).
  const isOurRollback = (b: BundleObject) =>
    b.spec.trigger.type === 'Rollback' && b.spec.source.bundleRef?.name === previous;
  if (newer.some((b) => !isOurRollback(b))) return undefined;
  return {
    to: previous,
    action: { type: 'rollBack', to: previous, environment: envName },
    made: newer.length > 0,
  };
}
