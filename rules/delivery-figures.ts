// The four delivery figures of a project, per environment, from its bundles' own records (pure:
// `kubectl slipway stats` and the operator's metrics compute them the same way; docs/promotion.md
// says how, in words):
//   deployments        rollouts that succeeded in the window (a Rollback bundle is a restore, not
//                      a change, so it is not counted); per day over the window
//   lead time          from the commit's time, as the provider reported it, to the rollout being
//                      Ready on the environment (a promotion's counts from the promoted commit);
//                      the median of the deployments that know their commit's time
//   change failure     of the changes rolled out in the window (deployments and failed rollouts),
//                      those that failed: their rollout (or backup) failed, or the next rollout
//                      on the environment was a rollback
//   time to restore    from such a failure (the failed rollout's end, or the rollback's creation)
//                      to the next successful rollout on the environment; the median
import type { BundleObject } from '../crds/index.ts';
import { bundleOrigin } from './bundle-origin.ts';

export interface Median {
  /** Seconds. */
  median: number;
  /** How many durations it is the median of. */
  count: number;
}

export interface EnvironmentFigures {
  environment: string;
  deployments: number;
  perDay: number;
  leadTime: Median | null;
  changeFailure: { failed: number; changes: number; rate: number } | null;
  timeToRestore: Median | null;
}

interface Rollout {
  bundle: BundleObject;
  at: number;
  ok: boolean;
  rollback: boolean;
}

const DAY_MS = 86_400_000;
const conditionOf = (b: BundleObject, type: string) => b.status?.conditions?.find((c) => c.type === type);

/** When the bundle became Ready where it was deployed (its Deployed condition turned True). */
export function deployedAt(bundle: BundleObject): number | undefined {
  const deployed = conditionOf(bundle, 'Deployed');
  return deployed?.status === 'True' ? Date.parse(deployed.lastTransitionTime) : undefined;
}

/** When a built bundle's backup or rollout failed. */
function failedAt(bundle: BundleObject): number | undefined {
  if (bundle.status?.phase !== 'Failed' || conditionOf(bundle, 'Built')?.status !== 'True') return undefined;
  const at = Date.parse(bundle.status.finishedAt ?? '');
  return Number.isNaN(at) ? undefined : at;
}

/** The commit's time: of the bundle that built the image (a promotion's counts from the promoted commit). */
function committedAt(bundle: BundleObject, byName: ReadonlyMap<string, BundleObject>): number | undefined {
  const origin = bundleOrigin(bundle, (name) => byName.get(name));
  const at = Date.parse(origin?.spec.source.git?.committedAt ?? '');
  return Number.isNaN(at) ? undefined : at;
}

function median(values: number[]): Median | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const ms = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median: Math.round(ms / 1000), count: sorted.length };
}

/** The figures of each environment the bundles deployed to, over [since, now). */
export function deliveryFigures(
  bundles: readonly BundleObject[],
  since: number,
  now: number,
): EnvironmentFigures[] {
  const byName = new Map(bundles.map((b) => [b.metadata.name, b]));
  const byEnvironment = new Map<string, Rollout[]>();
  for (const bundle of bundles) {
    const environment = bundle.spec.deploy?.environmentRef.name;
    if (!environment || bundle.spec.trigger.previewRef) continue;
    const done = deployedAt(bundle);
    const failed = done === undefined ? failedAt(bundle) : undefined;
    const at = done ?? failed;
    if (at === undefined) continue;
    const list = byEnvironment.get(environment) ?? [];
    list.push({ bundle, at, ok: done !== undefined, rollback: bundle.spec.trigger.type === 'Rollback' });
    byEnvironment.set(environment, list);
  }
  const days = Math.max(now - since, 1) / DAY_MS;
  return [...byEnvironment.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([environment, all]) => {
      all.sort((a, b) => a.at - b.at);
      const inWindow = (r: Rollout) => r.at >= since && r.at < now;
      const changes = all.filter((r) => inWindow(r) && !r.rollback);
      const deployments = changes.filter((r) => r.ok);
      const failures: number[] = [];
      for (const change of changes) {
        if (!change.ok) failures.push(change.at);
        else {
          const next = all.find((r) => r.at > change.at);
          if (next?.rollback)
            failures.push(Date.parse(next.bundle.metadata.creationTimestamp ?? '') || next.at);
        }
      }
      const restores = failures.flatMap((at) => {
        const back = all.find((r) => r.ok && r.at > at);
        return back ? [back.at - at] : [];
      });
      const leads = deployments.flatMap((r) => {
        const commit = committedAt(r.bundle, byName);
        return commit !== undefined && r.at >= commit ? [r.at - commit] : [];
      });
      return {
        environment,
        deployments: deployments.length,
        perDay: Math.round((deployments.length / days) * 100) / 100,
        leadTime: median(leads),
        changeFailure:
          changes.length === 0
            ? null
            : { failed: failures.length, changes: changes.length, rate: failures.length / changes.length },
        timeToRestore: median(restores),
      };
    });
}
