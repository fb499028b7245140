// Answers a planned build: writes the Bundles and reports created / duplicate / ignored / 422.
import { bundleStatusUrl } from '../../rules/bundle-status-url.ts';
import type { Plan } from '../plan.ts';
import type { GatewayContext } from './context.ts';
import { sendJson, type Exchange } from './exchange.ts';
import { HttpError } from './http-error.ts';
import { unavailable } from './guards.ts';
import { PartialCreationError, type BundleCreation } from './ports.ts';

/** `suspended`: the project is suspended, and the answer says so (its bundles build on resume). */
export async function applyPlan(
  ctx: GatewayContext,
  exchange: Exchange,
  plan: Plan,
  suspended = false,
): Promise<void> {
  const told = suspended ? { suspended: true } : {};
  if (plan.outcome === 'ignored') {
    exchange.observation.result = 'ignored';
    exchange.log.reason = plan.reason;
    sendJson(exchange, 202, { result: 'ignored', reason: plan.reason, ...told });
    return;
  }
  if (plan.outcome === 'unprocessable') throw new HttpError(422, plan.code, plan.message);

  let creations;
  try {
    // A bundle made before and pruned since is not made again: the delivery is a replay.
    const made = await ctx.createBundles(plan.bundles.filter((p) => !p.pruned).map((p) => p.bundle));
    const pruned = plan.bundles
      .filter((p) => p.pruned)
      .map((p) => ({ name: p.bundle.metadata.name, uid: '', result: 'duplicate' as const }));
    creations = [...made, ...pruned];
  } catch (error) {
    const created = error instanceof PartialCreationError ? error.created : [];
    if (created.length > 0) exchange.log.bundles = created.map((name) => `${name}:created`);
    ctx.logger.error({ err: error, ...exchange.log }, 'creating bundles failed');
    // A retry creates the rest and finds the others made (200 duplicate for those).
    throw created.length > 0
      ? new BundlesPartlyCreated()
      : unavailable('the bundles could not be created; retry the delivery');
  }
  exchange.log.bundles = creations.map((c) => `${c.name}:${c.result}`);
  const conflict = creations.find((c): c is BundleCreation => c.result === 'conflict');
  // Never answered as a duplicate: the push would then never be built, unseen.
  if (conflict)
    throw new HttpError(409, 'bundle_name_taken', `${conflict.conflict}: delete it, then redeliver`);
  const created = creations.some((c) => c.result === 'created');
  const result = created ? 'created' : 'duplicate';
  exchange.observation.result = result;
  sendJson(exchange, created ? 201 : 200, {
    result,
    ...told,
    bundles: plan.bundles.map((p) => {
      const uid = creations.find((c) => c.name === p.bundle.metadata.name)?.uid ?? '';
      return {
        name: p.bundle.metadata.name,
        namespace: p.bundle.metadata.namespace,
        webhook: p.webhook,
        environment: p.environment,
        ...(p.pruned ? { pruned: true } : {}),
        // Where CI (upload.sh) and the provider's delivery log follow the bundle (gone once pruned).
        ...(ctx.archiveSigningKey === undefined || p.pruned
          ? {}
          : {
              statusUrl: bundleStatusUrl(ctx.publicBaseUrl, ctx.archiveSigningKey, {
                namespace: p.bundle.metadata.namespace,
                name: p.bundle.metadata.name,
                uid,
              }),
            }),
      };
    }),
  });
}

/** 503 after some bundles were created: whatever they refer to (an uploaded archive) must stay. */
export class BundlesPartlyCreated extends HttpError {
  constructor() {
    const { status, code, message, headers } = unavailable(
      'some of the bundles could not be created; retry the delivery',
    );
    super(status, code, message, headers);
  }
}
