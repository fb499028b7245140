// Sharding (like Flux's): an operator started with a label selector sees only its shard's
// Projects, Bundles, Jobs, pods and status objects (informers.ts). Environments and Webhooks
// are watched whole, so each shard acts only for the Projects in its cache; and a Bundle whose
// Project is in another shard (moved there, or a manual bundle made without the label) is handed
// over: it and its Jobs take the Project's label, which takes them out of this shard's caches
// and into the other's, mid-build too. (Their pods keep theirs: the operator may not patch pods.
// A moved build's pod is then not watched for why it cannot run; its Job still says how it ended.)
import type { BundleObject, ProjectObject } from '../crds/index.ts';
import { LABEL_BUNDLE, LABEL_SHARD, labelValue } from '../crds/labels.ts';
import { ignoreNotFound, isNotFound, mergePatch } from '../lib/kube.ts';
import type { OperatorContext } from './context.ts';

/**
 * The Project when it exists but another shard has it; undefined when this operator watches
 * everything, has it in its cache, or it does not exist (one live read, only on a cache miss).
 */
export async function projectOfAnotherShard(
  ctx: Pick<OperatorContext, 'config' | 'informers' | 'slipway'>,
  namespace: string,
  project: string,
): Promise<ProjectObject | undefined> {
  if (!ctx.config.watchLabelSelector || ctx.informers.projects.get(namespace, project)) return undefined;
  try {
    return await ctx.slipway.get<ProjectObject>('Project', namespace, project);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * Gives the bundle to its Project's shard: its Jobs first (so the other shard finds them when
 * the bundle arrives), then the bundle. True when it was handed over.
 */
export async function handOver(ctx: OperatorContext, bundle: BundleObject): Promise<boolean> {
  const { namespace, name } = bundle.metadata;
  const project = await projectOfAnotherShard(ctx, namespace, bundle.spec.projectRef.name);
  if (!project) return false;
  const shard = project.metadata.labels?.[LABEL_SHARD] ?? null;
  if ((bundle.metadata.labels?.[LABEL_SHARD] ?? null) === shard) return false;
  const body = { metadata: { labels: { [LABEL_SHARD]: shard } } };
  const { batch } = ctx.clients;
  const jobs = await batch.listNamespacedJob({
    namespace,
    labelSelector: `${LABEL_BUNDLE}=${labelValue(name)}`,
  });
  for (const job of jobs.items)
    await batch
      .patchNamespacedJob({ name: job.metadata!.name!, namespace, body }, mergePatch)
      .catch(ignoreNotFound);
  await ctx.slipway.patch('Bundle', namespace, name, body);
  ctx.log.info(
    { bundle: `${namespace}/${name}`, shard: shard ?? '(default)', jobs: jobs.items.length },
    "handed the bundle over to its project's shard",
  );
  return true;
}
