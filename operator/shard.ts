// Sharding (like Flux's): an operator started with a label selector sees only its shard's
// Bundles, Jobs, pods and status objects (informers.ts, selected by the API server). Projects,
// Environments and Webhooks are watched whole — a slug is claimed cluster-wide, and they are
// few — and a shard acts only for the Projects its selector picks (inShard). A Bundle whose
// Project is in another shard (moved there, or a manual bundle made without the label) is handed
// over: it and its Jobs take the Project's label, which takes them out of this shard's caches
// and into the other's, mid-build too; and a shard takes its Projects' bundles that a stopped or
// removed shard still holds (takeOver). (Their pods keep theirs: the operator may not patch pods.
// A moved build's pod is then not watched for why it cannot run; its Job still says how it ended.)
import type { BundleObject, ProjectObject } from '../crds/index.ts';
import {
  LABEL_BUNDLE,
  LABEL_BUNDLE_NAMESPACE,
  LABEL_SHARD,
  MANAGED_BY,
  boundedName,
  labelValue,
} from '../crds/labels.ts';
import { objectKey } from '../lib/informer.ts';
import { MANAGER } from './names.ts';
import { ignoreNotFound, mergePatch } from '../lib/kube.ts';
import { labelSelector } from '../lib/label-selector.ts';
import type { OperatorContext } from './context.ts';

const matchers = new Map<string, ReturnType<typeof labelSelector>>();

/** Whether this operator's selector picks an object with these labels (always, without one). */
export function inShard(
  ctx: Pick<OperatorContext, 'config'>,
  object: { metadata: { labels?: Record<string, string> } },
): boolean {
  const selector = ctx.config.watchLabelSelector;
  if (!selector) return true;
  let matches = matchers.get(selector);
  if (!matches) {
    matches = labelSelector(selector);
    matchers.set(selector, matches);
  }
  return matches(object.metadata.labels);
}

/** The Project when it exists and another shard has it. */
export function projectOfAnotherShard(
  ctx: Pick<OperatorContext, 'config' | 'informers'>,
  namespace: string,
  project: string,
) {
  const found = ctx.informers.projects.get(namespace, project);
  return found && !inShard(ctx, found) ? found : undefined;
}

/**
 * Gives the bundle to its Project's shard: its Jobs first (so the other shard finds them when
 * the bundle arrives), then the bundle. True when it was handed over.
 */
export async function handOver(ctx: OperatorContext, bundle: BundleObject): Promise<boolean> {
  const project = projectOfAnotherShard(ctx, bundle.metadata.namespace, bundle.spec.projectRef.name);
  return !!project && (await relabel(ctx, bundle, project.metadata.labels?.[LABEL_SHARD]));
}

/**
 * A Project that has just come to this shard takes its bundles that another shard's label still
 * holds (that shard stopped, or was removed, before it could hand them over). Looked at when
 * this operator sees a Project's label change: `seen` remembers each Project's last value.
 */
export async function takeOver(
  ctx: OperatorContext,
  project: ProjectObject,
  seen: Map<string, string>,
): Promise<void> {
  if (!ctx.config.watchLabelSelector) return;
  const { namespace, name, uid } = project.metadata;
  const key = uid ?? objectKey(namespace, name);
  const shard = project.metadata.labels?.[LABEL_SHARD] ?? '';
  const before = seen.get(key);
  seen.set(key, shard);
  if (before === undefined || before === shard || !inShard(ctx, project)) return;
  // Every bundle of the namespace: people's manual bundles carry no project label.
  const bundles = await ctx.slipway.list<BundleObject>('Bundle', namespace);
  for (const bundle of bundles)
    if (bundle.spec.projectRef.name === name) await relabel(ctx, bundle, shard || undefined);
}

/** The bundle and its Jobs with shard label `shard` (none: undefined); false when it had it. */
async function relabel(
  ctx: OperatorContext,
  bundle: BundleObject,
  shard: string | undefined,
): Promise<boolean> {
  const { namespace, name } = bundle.metadata;
  if ((bundle.metadata.labels?.[LABEL_SHARD] ?? undefined) === shard) return false;
  const body = { metadata: { labels: { [LABEL_SHARD]: shard ?? null } } };
  const { batch } = ctx.clients;
  const ofBundle = `${MANAGED_BY}=${MANAGER},${LABEL_BUNDLE}=${labelValue(name)}`;
  // Its backup Job beside it, its build Job in the build namespace.
  const lists = await Promise.all([
    batch.listNamespacedJob({ namespace, labelSelector: ofBundle }),
    batch.listNamespacedJob({
      namespace: ctx.config.buildNamespace,
      labelSelector: `${ofBundle},${LABEL_BUNDLE_NAMESPACE}=${namespace}`,
    }),
  ]);
  const jobs = lists.flatMap((l) => l.items);
  for (const job of jobs)
    await batch
      .patchNamespacedJob(
        { name: job.metadata!.name!, namespace: job.metadata!.namespace!, body },
        mergePatch,
      )
      .catch(ignoreNotFound);
  await ctx.slipway.patch('Bundle', namespace, name, body).catch(ignoreNotFound);
  ctx.log.info(
    { bundle: `${namespace}/${name}`, shard: shard ?? '(default)', jobs: jobs.length },
    "handed the bundle over to its project's shard",
  );
  return true;
}

// `<LABEL_SHARD> in (<name>)`, `<LABEL_SHARD>=<name>` or `==<name>`: one shard, by its name.
const SHARD_NAME = '([a-z0-9]([-a-z0-9]*[a-z0-9])?)';
const ONE_SHARD = new RegExp(
  `^${LABEL_SHARD.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\s*(?:in\\s*\\(\\s*${SHARD_NAME}\\s*\\)|==?\\s*${SHARD_NAME})$`,
);

/**
 * The lease of a shard is named after its selector, so each shard elects its own leader:
 * `slipway-operator` for the default (no selector, or `!slipway.dev/shard`: an operator from
 * before sharding and the default shard then share it, so they never act at once), and
 * `slipway-operator-<name>` for `slipway.dev/shard in (<name>)` or `=<name>`.
 */
export function leaseNameFor(selector: string | undefined): string {
  return shardName('slipway-operator', selector);
}

/** `base` for the default shard, `base-<name>` for a shard (any other selector: its letters and digits). */
export function shardName(base: string, selector: string | undefined): string {
  const s = (selector ?? '').trim();
  if (s === '' || s === `!${LABEL_SHARD}`) return base;
  const one = ONE_SHARD.exec(s);
  const name = one?.[1] ?? one?.[3];
  if (name) return boundedName(`${base}-${name}`, '', 63);
  const words = s
    .toLowerCase()
    .replace(/!/g, 'not-')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return boundedName(`${base}-${words}`, '', 63);
}

/** `--watch-label-selector=<selector>` (or the flag and the value apart) among the arguments. */
export function watchLabelSelectorArg(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg.startsWith('--watch-label-selector=')) return arg.slice('--watch-label-selector='.length);
    if (arg === '--watch-label-selector') return argv[i + 1];
  }
  return undefined;
}
