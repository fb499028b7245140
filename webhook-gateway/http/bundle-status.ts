// GET /bundles/{namespace}/{name}/{token}: how a bundle is doing, for CI (upload.sh waits on
// it) and a provider's delivery log, without cluster credentials. Served from the gateway's
// cache: no API call per request. A wrong token and an unknown bundle get the same 404.
import { isFinished } from '../../rules/bundle-outcome.ts';
import { bundleStatusToken, type BundleIdentity } from '../../rules/bundle-status-url.ts';
import { withoutOutput } from '../../rules/container-output.ts';
import type { BundleObject } from '../../crds/index.ts';
import { constantTimeEqual } from '../../lib/constant-time.ts';
import type { GatewayContext } from './context.ts';
import { sendJson, type Exchange } from './exchange.ts';
import { HttpError } from './http-error.ts';

export const BUNDLE_STATUS_PATH = /^\/bundles\/([^/]+)\/([^/]+)\/([^/]+)$/;

export function handleBundleStatus(
  ctx: GatewayContext,
  exchange: Exchange,
  target: { namespace: string; name: string; token: string },
): void {
  const bundle = signedBundle(ctx, target, (key, b) => bundleStatusToken(key, identityOf(b)));
  exchange.res.setHeader('Cache-Control', 'no-store');
  sendJson(exchange, 200, bundleReport(bundle));
}

/**
 * The cached bundle a signed bundle URL names, when its token is right for it (`tokenOf`: the
 * URL's purpose); a wrong token and an unknown bundle are the same 404.
 */
export function signedBundle(
  ctx: GatewayContext,
  target: { namespace: string; name: string; token: string },
  tokenOf: (key: string | Buffer, bundle: BundleObject) => string,
): BundleObject {
  const key = ctx.archiveSigningKey;
  const bundle = ctx.bundleByName(target.namespace, target.name);
  // The same answer, and a token compared all the same, whether the bundle exists or not.
  const expected = key !== undefined && bundle ? tokenOf(key, bundle) : '';
  if (!bundle || key === undefined || !constantTimeEqual(target.token, expected))
    throw new HttpError(404, 'not_found', 'no such bundle (yet)');
  return bundle;
}

/** A cached bundle as its URLs name it. */
export const identityOf = (b: BundleObject): BundleIdentity => ({
  namespace: b.metadata.namespace,
  name: b.metadata.name,
  uid: b.metadata.uid ?? '',
});

/** What the bundle's status shows, and no more: a failed step's output stays in its logs. */
export function bundleReport(bundle: BundleObject) {
  const conditions = bundle.status?.conditions ?? [];
  const ready = conditions.find((c) => c.type === 'Ready');
  const finished = isFinished(bundle);
  return {
    name: bundle.metadata.name,
    namespace: bundle.metadata.namespace,
    project: bundle.spec.projectRef.name,
    phase: bundle.status?.phase ?? 'Pending',
    finished,
    succeeded: finished && ready?.status === 'True',
    ready: ready
      ? { status: ready.status, reason: ready.reason, message: withoutOutput(ready.message) }
      : null,
    steps: conditions
      .filter((c) => c.type !== 'Ready' && c.type !== 'Reconciling' && c.type !== 'Stalled')
      .map((c) => ({ type: c.type, status: c.status, reason: c.reason, message: withoutOutput(c.message) })),
    environment: bundle.spec.deploy?.environmentRef.name ?? null,
    image: bundle.status?.image ?? null,
    finishedAt: bundle.status?.finishedAt ?? null,
  };
}
