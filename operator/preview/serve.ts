// Serves a preview's built image: applies the copies of its environment's Deployment and of the
// Services that select its pods, and the Ingress of its host (copies.ts), by server-side apply
// with field manager slipway. The environment's own objects are only read, and an object of a
// copy's name that this Preview does not own is never taken over: the preview says so and waits.
// What an earlier rollout made and this one does not is removed (withdraw.ts).
import type { KubernetesObject } from '@kubernetes/client-node';
import type { PreviewDecision } from './decide.ts';
import {
  deploymentCopy,
  ingressFor,
  routedService,
  selectsPods,
  serviceCopy,
  type PreviewSource,
} from './copies.ts';
import type { OperatorContext } from '../context.ts';
import { isNotFound } from '../../lib/kube.ts';
import { copyKey, removeCopies } from './withdraw.ts';

const waiting = (reason: 'ServiceNotFound' | 'NameTaken', message: string): PreviewDecision => ({
  phase: 'Waiting',
  ready: { type: 'Ready', status: 'False', reason, message },
  next: { step: 'wait' },
});

/** Applies the copies; a decision of its own when there is nothing to route the host to, or a name is taken. */
export async function servePreview(
  ctx: OperatorContext,
  source: PreviewSource,
): Promise<PreviewDecision | undefined> {
  const { namespace, uid } = source.preview.metadata;
  // Services are not watched (a preview is served rarely): read when a preview is rolled out.
  const { items } = await ctx.clients.core.listNamespacedService({ namespace });
  const ours = (o: KubernetesObject | undefined) =>
    !o || o.metadata?.ownerReferences?.some((r) => r.kind === 'Preview' && r.uid === uid) === true;
  const selecting = items
    .filter((s) => !s.metadata?.ownerReferences?.some((o) => o.kind === 'Preview'))
    .filter((s) => selectsPods(s, source.deployment));
  if (selecting.length === 0)
    return waiting(
      'ServiceNotFound',
      `no Service in namespace ${namespace} selects the pods of Deployment ${source.deployment.metadata?.name}: a preview copies those Services and routes its host to one of them`,
    );
  const services = selecting.map((s) => serviceCopy(source, s));
  const deployment = deploymentCopy(source);
  const routed = routedService(selecting, source.deployment)!;
  const ingress = ingressFor(source, services[selecting.indexOf(routed)]!);
  const existing = [
    ...services.map(
      (s) =>
        ['Service', s.metadata!.name!, items.find((i) => i.metadata?.name === s.metadata!.name)] as const,
    ),
    [
      'Deployment',
      deployment.metadata!.name!,
      ctx.informers.deployments.get(namespace, deployment.metadata!.name!),
    ] as const,
    ['Ingress', ingress.metadata!.name!, await readIngress(ctx, namespace, ingress.metadata!.name!)] as const,
  ];
  const taken = existing.find(([, , object]) => !ours(object));
  if (taken)
    return waiting(
      'NameTaken',
      `${taken[0]} ${taken[1]} exists and is not this preview's: the preview does not take it over; rename or delete it`,
    );
  for (const service of services) await ctx.clients.apply(service);
  await ctx.clients.apply(deployment);
  await ctx.clients.apply(ingress);
  // What an earlier rollout made and this one did not: another environment's copy, a Service
  // that no longer selects the pods.
  await removeCopies(
    ctx,
    source.preview,
    new Set([
      ...services.map((s) => copyKey('Service', s.metadata!.name!)),
      copyKey('Deployment', deployment.metadata!.name!),
      copyKey('Ingress', ingress.metadata!.name!),
    ]),
  );
  return undefined;
}

async function readIngress(ctx: OperatorContext, namespace: string, name: string) {
  try {
    return await ctx.clients.networking.readNamespacedIngress({ name, namespace });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
