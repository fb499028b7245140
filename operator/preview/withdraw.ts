// Takes down what serves a preview: the copies of its environment's Deployment and Services and
// its Ingress — all of them when it may not be served now (a fork under forks: Deny, no slot
// left, its host taken), or those a new rollout no longer made (its environment changed, a
// Service stopped selecting the pods). Only objects this Preview owns are touched.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { PreviewObject } from '../../crds/index.ts';
import { LABEL_PREVIEW, MANAGED_BY, labelValue } from '../../crds/labels.ts';
import { isConflict, isNotFound } from '../../lib/kube.ts';
import { MANAGER } from '../names.ts';
import type { OperatorContext } from '../context.ts';

type CopyKind = 'Deployment' | 'Service' | 'Ingress';

/** `Kind/name` of a copy, as `keep` names them. */
export const copyKey = (kind: CopyKind, name: string) => `${kind}/${name}`;

/**
 * Deletes the preview's copies but those in `keep`: the Ingress first and the Deployment last,
 * so a pass cut short leaves the Deployment that makes the next one look again. Only what this
 * Preview controls and Slipway labelled, each delete bound to the uid read (an object of the
 * same name made since is not this one). With nothing to keep, the Deployment informer says
 * first whether there is anything at all, so a waiting preview costs no call.
 */
export async function removeCopies(
  ctx: OperatorContext,
  preview: PreviewObject,
  keep: ReadonlySet<string> = new Set(),
): Promise<number> {
  const { namespace, uid } = preview.metadata;
  const ours = (kind: CopyKind) => (o: KubernetesObject) =>
    o.metadata?.labels?.[MANAGED_BY] === MANAGER &&
    o.metadata.ownerReferences?.some((r) => r.kind === 'Preview' && r.uid === uid && r.controller) === true &&
    !keep.has(copyKey(kind, o.metadata.name ?? ''));
  const deployments = ctx.informers.deployments.list(namespace).filter(ours('Deployment'));
  if (keep.size === 0 && deployments.length === 0) return 0;
  const labelSelector = `${LABEL_PREVIEW}=${labelValue(preview.metadata.name)}`;
  const [services, ingresses] = await Promise.all([
    ctx.clients.core.listNamespacedService({ namespace, labelSelector }),
    ctx.clients.networking.listNamespacedIngress({ namespace, labelSelector }),
  ]);
  const bound = (o: KubernetesObject) => ({
    namespace,
    name: o.metadata!.name!,
    body: { preconditions: { uid: o.metadata!.uid! } },
  });
  const deletes = [
    ...ingresses.items
      .filter(ours('Ingress'))
      .map((i) => () => ctx.clients.networking.deleteNamespacedIngress(bound(i))),
    ...services.items
      .filter(ours('Service'))
      .map((s) => () => ctx.clients.core.deleteNamespacedService(bound(s))),
    ...deployments.map((d) => () => ctx.clients.apps.deleteNamespacedDeployment(bound(d))),
  ];
  for (const remove of deletes) {
    try {
      await remove();
    } catch (err) {
      // Gone already, or another object of that name now (the precondition's 409).
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }
  return deletes.length;
}
