// When a bundle's chain has ended, as the operator decides it and as the gateway reports it to CI.
import type { BundleObject } from '../crds/index.ts';

/** A bundle whose chain has ended: nothing more will happen to it. */
export function isFinished(bundle: Pick<BundleObject, 'spec' | 'status'>): boolean {
  const phase = bundle.status?.phase;
  if (phase === 'Ready' || phase === 'Failed' || phase === 'Superseded') return true;
  return (
    phase === 'Built' &&
    !bundle.spec.deploy &&
    bundle.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true
  );
}
