// Takes down what serves a preview: the copies of its environment's Deployment and Services and
// its Ingress — all of them when it may not be served now (a fork under forks: Deny, no slot
// left, its host taken), or those a new rollout no longer made (its environment changed, a
// Service stopped selecting the pods). Only objects this Preview owns are touched.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { PreviewObject } from '../../crds/index.ts';
import { LABEL_PREVIEW, labelValue } from '../../crds/labels.ts';
import { isNotFound } from '../../lib/kube.ts';
import type { OperatorContext } from '../context.ts';

/** `Kind/name` of a copy, as `keep` names them. */
export const copyKey = (kind: 'Deployment' | 'Service' | 'Ingress', name: string) => `${kind}/${name}`;

/**
 * Deletes the preview's copies but those in `keep`. With nothing to keep, the Deployment
 * informer says first whether there is anything at all, so a waiting preview costs no call.
 */
export async function removeCopies(
  ctx: OperatorContext,
  preview: PreviewObject,
  keep: ReadonlySet<string> = new Set(),
): Promise<number> {
  const { namespace, uid } = preview.metadata;
  const owned = (o: KubernetesObject) =>
    o.metadata?.ownerReferences?.some((r) => r.kind === 'Preview' && r.uid === uid) === true;
  const gone = (kind: 'Deployment' | 'Service' | 'Ingress') => (o: KubernetesObject) =>
    owned(o) && !keep.has(copyKey(kind, o.metadata?.name ?? ''));
  const deployments = ctx.informers.deployments.list(namespace).filter(gone('Deployment'));
  if (keep.size === 0 && deployments.length === 0) return 0;
  const labelSelector = `${LABEL_PREVIEW}=${labelValue(preview.metadata.name)}`;
  const [services, ingresses] = await Promise.all([
    ctx.clients.core.listNamespacedService({ namespace, labelSelector }),
    ctx.clients.networking.listNamespacedIngress({ namespace, labelSelector }),
  ]);
  const deletes = [
    ...deployments.map(
      (d) => () => ctx.clients.apps.deleteNamespacedDeployment({ namespace, name: d.metadata!.name! }),
    ),
    ...services.items
      .filter(gone('Service'))
      .map((s) => () => ctx.clients.core.deleteNamespacedService({ namespace, name: s.metadata!.name! })),
    ...ingresses.items
      .filter(gone('Ingress'))
      .map(
        (i) => () => ctx.clients.networking.deleteNamespacedIngress({ namespace, name: i.metadata!.name! }),
      ),
  ];
  for (const remove of deletes) {
    try {
      await remove();
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return deletes.length;
}
