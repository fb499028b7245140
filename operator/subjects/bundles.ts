// What the sinks about bundles share (commit statuses, deployments, notifications): a lane per
// bundle (`namespace/name`, then anything more), the bundle with its newest status and its
// project, its commit and branch, where a person sees it, and how long it is tried.
import type { BundleObject, ProjectObject } from '../../crds/index.ts';
import { bundleOrigin } from '../../rules/bundle-origin.ts';
import { bundleStatusUrl } from '../../rules/bundle-status-url.ts';
import { timeMs } from '../../rules/timestamps.ts';
import type { Receipt, ReceiptBook, SinkDeps } from '../delivery/sink.ts';
import type { BundleLifecycle } from '../bundle/lifecycle.ts';
import type { StatusWriterName } from '../reconcile/status-owners.ts';
import type { OperatorContext } from '../context.ts';
import { statusBook } from './status-book.ts';

/** What a sink about bundles is given: the engine's dependencies and the bundles' life-cycle events. */
export interface BundleSinkDeps extends SinkDeps {
  lifecycle: BundleLifecycle;
}

/** A bundle that finished longer ago than this is not tried again. */
export const RETRY_WINDOW_MS = 24 * 3600_000;

/** The commit a bundle built, when it names one (git bundles; uploads that say theirs). */
export function bundleCommit(bundle: BundleObject): string | undefined {
  const commit = bundle.spec.source.git?.commit ?? bundle.spec.source.archive?.commit;
  return commit && /^[0-9a-f]{7,64}$/i.test(commit) ? commit.toLowerCase() : undefined;
}

/**
 * The commit a bundle's reports are about: its own, or for a promotion's (trigger Promotion) the
 * promoted bundle's, whose image it rolls out.
 */
export function reportedCommit(ctx: OperatorContext, bundle: BundleObject): string | undefined {
  const own = bundleCommit(bundle);
  if (own || bundle.spec.trigger.type !== 'Promotion') return own;
  const origin = bundleOrigin(bundle, (name) => ctx.informers.bundles.get(bundle.metadata.namespace, name));
  return origin ? bundleCommit(origin) : undefined;
}

/** The branch a bundle's commit was pushed to, when it says (git bundles; uploads that name one). */
export const bundleBranch = (bundle: BundleObject): string | undefined =>
  bundle.spec.source.git?.branch ?? bundle.spec.source.archive?.branch;

/**
 * Where a person sees the bundle without credentials: its status URL on the gateway (signed with
 * SLIPWAY_ARCHIVE_URL_KEY), or undefined without that key.
 */
export function publicBundleUrl(ctx: OperatorContext, bundle: BundleObject): string | undefined {
  const { gatewayBaseUrl, archiveUrlKey } = ctx.config;
  const { namespace, name, uid = '' } = bundle.metadata;
  return archiveUrlKey ? bundleStatusUrl(gatewayBaseUrl, archiveUrlKey, { namespace, name, uid }) : undefined;
}

/** The project a bundle belongs to, from the cache. */
export const projectOf = (ctx: OperatorContext, bundle: BundleObject): ProjectObject | undefined =>
  ctx.informers.projects.get(bundle.metadata.namespace, bundle.spec.projectRef.name);

/** The bundle a lane is about: its first two parts. */
export function laneBundle(lane: string): { namespace: string; name: string; rest: string[] } {
  const [namespace, name, ...rest] = lane.split('/') as [string, string, ...string[]];
  return { namespace, name, rest };
}

/**
 * The bundle with its newest status (what this process wrote last may not be in the cache yet),
 * and its project; undefined when either is gone.
 */
export function newestBundle(
  ctx: OperatorContext,
  namespace: string,
  name: string,
): { bundle: BundleObject; project: ProjectObject } | undefined {
  const bundle = currentBundle(ctx, `${namespace}/${name}`);
  const project = bundle && projectOf(ctx, bundle);
  return project && { bundle, project };
}

/** The bundle of a lane or receipt subject with its newest status; undefined when it is gone. */
export function currentBundle(ctx: OperatorContext, lane: string): BundleObject | undefined {
  const { namespace, name } = laneBundle(lane);
  const cached = ctx.informers.bundles.get(namespace, name);
  return cached && { ...cached, status: ctx.status.current(cached) };
}

/** Whether the bundle finished longer ago than `windowMs` (or is gone): nothing more is sent for it. */
export function finishedLongAgo(
  ctx: OperatorContext,
  namespace: string,
  name: string,
  windowMs: number,
): boolean {
  const bundle = ctx.informers.bundles.get(namespace, name);
  const finished = timeMs(bundle?.status?.finishedAt);
  return !bundle || (finished !== undefined && ctx.now().getTime() - finished > windowMs);
}

type BundleStatus = NonNullable<BundleObject['status']>;

/** A receipt book kept in one field of a bundle's status (its subject is the bundle's `namespace/name`). */
export const bundleBook = <F extends 'reported' | 'notified'>(
  ctx: OperatorContext,
  { field, writer }: { field: F; writer: StatusWriterName },
  entries: (shown: NonNullable<BundleStatus[F]>) => Array<[string, Receipt]>,
  shown: (receipts: ReadonlyMap<string, Receipt>) => NonNullable<BundleStatus[F]>,
): ReceiptBook =>
  statusBook(ctx, {
    name: field,
    kind: 'Bundle',
    field,
    writer,
    find: (subject) => currentBundle(ctx, subject),
    entries,
    shown,
  });
