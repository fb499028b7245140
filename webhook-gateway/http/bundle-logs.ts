// GET /bundles/{namespace}/{name}/logs/{token}: the logs of a bundle's build, for whoever may get
// the bundle (its status.logsUrl holds the URL): the build runs in the build namespace, where
// tenants have no rights (docs/adr/0004), and the gateway reads its pods' logs there. The bundle
// comes from the cache; the logs are read from the API server per request (a person's command,
// not a hot path), a few requests at a time. A wrong token and an unknown bundle get the same 404.
import { bundleLogsToken } from '../../rules/bundle-status-url.ts';
import { buildJobName } from '../../rules/build-namespace.ts';
import { identityOf, signedBundle } from './bundle-status.ts';
import type { GatewayContext } from './context.ts';
import { sendJson, type Exchange } from './exchange.ts';
import { HttpError } from './http-error.ts';

export const BUNDLE_LOGS_PATH = /^\/bundles\/([^/]+)\/([^/]+)\/logs\/([^/]+)$/;

/** Log requests read from the API server at the same time; more are asked to come back. */
export const MAX_CONCURRENT_LOG_READS = 4;
/** Of those, at most this many for bundles of one namespace: one namespace never takes them all. */
export const MAX_LOG_READS_PER_NAMESPACE = 2;

export async function handleBundleLogs(
  ctx: GatewayContext,
  exchange: Exchange,
  target: { namespace: string; name: string; token: string },
): Promise<void> {
  const { namespace, name } = target;
  const bundle = signedBundle(ctx, target, (key, b) => bundleLogsToken(key, identityOf(b)));
  exchange.res.setHeader('Cache-Control', 'no-store');
  // Where its build runs is worked out here, never taken from a status: this release's build
  // namespace, the Job named for this bundle, its pods labelled with this bundle's uid.
  const build = bundle.status?.build
    ? { namespace: ctx.buildNamespace, job: buildJobName(namespace, name) }
    : undefined;
  if (!build) {
    sendJson(exchange, 200, { namespace, name, build: null, pods: [] });
    return;
  }
  const ofNamespace = ctx.logReadsOf.get(namespace) ?? 0;
  if (ctx.activeLogReads >= MAX_CONCURRENT_LOG_READS || ofNamespace >= MAX_LOG_READS_PER_NAMESPACE)
    throw new HttpError(
      503,
      'busy',
      ofNamespace >= MAX_LOG_READS_PER_NAMESPACE
        ? `too many log reads of namespace ${namespace} at once; try again in a second`
        : 'too many log reads at once; try again in a second',
      { 'Retry-After': '1' },
    );
  ctx.activeLogReads += 1;
  ctx.logReadsOf.set(namespace, ofNamespace + 1);
  try {
    const pods = await ctx.buildLogs(build.namespace, build.job, bundle.metadata.uid ?? '');
    sendJson(exchange, 200, { namespace, name, build, pods });
  } finally {
    ctx.activeLogReads -= 1;
    const left = (ctx.logReadsOf.get(namespace) ?? 1) - 1;
    if (left > 0) ctx.logReadsOf.set(namespace, left);
    else ctx.logReadsOf.delete(namespace);
  }
}
