// The bundle that built the image another bundle rolls out: a rollback's or a promotion's
// source.bundleRef, followed through chains (a promotion of a promotion, a rollback to a
// promotion), at most a few steps. What lead times count from and commit statuses are about.
import type { BundleObject } from '../crds/index.ts';

/** How many source.bundleRef steps are followed at most (dev → staging → production → rollback). */
const MAX_STEPS = 8;

export function bundleOrigin(
  bundle: BundleObject,
  get: (name: string) => BundleObject | undefined,
): BundleObject | undefined {
  let current: BundleObject | undefined = bundle;
  for (let step = 0; current?.spec.source.bundleRef; step++) {
    if (step === MAX_STEPS) return undefined;
    current = get(current.spec.source.bundleRef.name);
  }
  return current;
}
