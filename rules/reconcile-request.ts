// "Look again now" (kubectl slipway reconcile): the annotation slipway.dev/requested-at asks for
// a look until status.lastHandledReconcileAt shows the same value.
import { ANNOTATION_REQUESTED_AT } from '../crds/labels.ts';

/** Whether `object` asks for a look it has not had yet: the requested value, else undefined. */
export function reconcileRequested(object: {
  metadata?: { annotations?: Record<string, string> };
  status?: { lastHandledReconcileAt?: string };
}): string | undefined {
  const requested = object.metadata?.annotations?.[ANNOTATION_REQUESTED_AT];
  return requested && requested !== object.status?.lastHandledReconcileAt ? requested : undefined;
}
