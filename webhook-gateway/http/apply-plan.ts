// Answers a planned build: writes the Bundles and reports created / duplicate / ignored / 422.
import { bundleStatusUrl } from '../../crds/bundle-status-url.ts';
import type { Plan } from '../plan.ts';
import type { GatewayContext } from './context.ts';
import { sendJson, type Exchange } from './exchange.ts';
import { HttpError } from './http-error.ts';
import { unavailable } from './guards.ts';

export async function applyPlan(ctx: GatewayContext, exchange: Exchange, plan: Plan): Promise<void> {
  if (plan.outcome === 'ignored') {
    exchange.observation.result = 'ignored';
    exchange.log.reason = plan.reason;
    sendJson(exchange, 202, { result: 'ignored', reason: plan.reason });
    return;
  }
  if (plan.outcome === 'unprocessable') throw new HttpError(422, plan.code, plan.message);

  let creations;
  try {
    creations = await ctx.createBundles(plan.bundles.map((p) => p.bundle));
  } catch (error) {
    ctx.logger.error({ err: error, ...exchange.log }, 'creating bundles failed');
    throw unavailable('the bundles could not be created; retry the delivery');
  }
  const created = creations.some((c) => c.result === 'created');
  const result = created ? 'created' : 'duplicate';
  exchange.observation.result = result;
  exchange.log.bundles = creations.map((c) => `${c.name}:${c.result}`);
  sendJson(exchange, created ? 201 : 200, {
    result,
    bundles: plan.bundles.map((p) => ({
      name: p.bundle.metadata.name,
      namespace: p.bundle.metadata.namespace,
      webhook: p.webhook,
      environment: p.environment,
      // Where CI (upload.sh) and the provider's delivery log follow the bundle.
      ...(ctx.archiveSigningKey === undefined
        ? {}
        : {
            statusUrl: bundleStatusUrl(
              ctx.publicBaseUrl,
              ctx.archiveSigningKey,
              p.bundle.metadata.namespace,
              p.bundle.metadata.name,
            ),
          }),
    })),
  });
}
