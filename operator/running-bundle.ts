// Which bundle an environment's Deployment runs, as the operator's rollout patch recorded it
// (bundle/rollout.ts): read by the Bundle, Environment and Project controllers.
import type { V1Deployment } from '@kubernetes/client-node';
import { ANNOTATION_BUNDLE } from '../crds/labels.ts';

/** The bundle the Deployment's pod template was last set to, if the operator set one. */
export function runningBundle(deployment: V1Deployment | undefined): string | undefined {
  return deployment?.spec?.template?.metadata?.annotations?.[ANNOTATION_BUNDLE];
}
