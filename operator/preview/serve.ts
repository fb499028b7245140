// Serves a preview's built image: applies the copies of its environment's Deployment and of the
// Services that select its pods, and the Ingress of its host (copies.ts), by server-side apply
// with field manager slipway. The environment's own objects are only read.
import type { PreviewDecision } from './decide.ts';
import { deploymentCopy, ingressFor, selectsPods, serviceCopy, type PreviewSource } from './copies.ts';
import type { OperatorContext } from '../context.ts';

/** Applies the copies; a decision of its own when there is nothing to route the host to. */
export async function servePreview(
  ctx: OperatorContext,
  source: PreviewSource,
): Promise<PreviewDecision | undefined> {
  const { namespace } = source.preview.metadata;
  // Services are not watched (a preview is served rarely): read when a preview is rolled out.
  const { items } = await ctx.clients.core.listNamespacedService({ namespace });
  const services = items.filter((s) => !s.metadata?.ownerReferences?.some((o) => o.kind === 'Preview'));
  const selecting = services.filter((s) => selectsPods(s, source.deployment));
  if (selecting.length === 0)
    return {
      phase: 'Waiting',
      ready: {
        type: 'Ready',
        status: 'False',
        reason: 'ServiceNotFound',
        message: `no Service in namespace ${namespace} selects the pods of Deployment ${source.deployment.metadata?.name}: a preview copies those Services and routes its host to the first`,
      },
      next: { step: 'wait' },
    };
  const copies = selecting.map((s) => serviceCopy(source, s));
  for (const service of copies) await ctx.clients.apply(service);
  await ctx.clients.apply(deploymentCopy(source));
  await ctx.clients.apply(ingressFor(source, copies[0]!));
  return undefined;
}
