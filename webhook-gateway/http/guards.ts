// The checks every POST route runs first, in Flux's order: throttled → 429, too big → 413,
// not ready → 503, unknown project → 404, project not ready → 503.
import { RETRY_AFTER_SECONDS } from '../limits.ts';
import type { GatewayContext } from './context.ts';
import type { Exchange } from './exchange.ts';
import { HttpError, NO_SUCH_HOOK } from './http-error.ts';
import type { ProjectLookup } from './ports.ts';
import { rejectDeclaredLength } from './read-body.ts';

/**
 * Failed authentications count per sender and project: one stale hook (a deleted project, an old
 * secret) slows down its own deliveries, not every project's that share the sender's address.
 */
function failureKey(ctx: GatewayContext, exchange: Exchange): string {
  return `${ctx.clientAddress(exchange.req)} ${String(exchange.log.slug ?? '')}`;
}

export function rejectThrottledClient(ctx: GatewayContext, exchange: Exchange): void {
  const retryAfter = ctx.authFailures.retryAfterSeconds(failureKey(ctx, exchange), ctx.now());
  if (retryAfter > 0) {
    throw new HttpError(
      429,
      'too_many_failures',
      'too many failed authentications from this address for this project; try again later',
      {
        'Retry-After': String(retryAfter),
      },
    );
  }
}

export function recordAuthFailure(ctx: GatewayContext, exchange: Exchange): void {
  ctx.authFailures.recordFailure(failureKey(ctx, exchange), ctx.now());
}

/** Throttle, size, readiness and project lookup, in that order. */
export async function admitProjectRequest(
  ctx: GatewayContext,
  exchange: Exchange,
  slug: string,
  maxBodyBytes: number,
  unknownMessage: string = NO_SUCH_HOOK,
): Promise<ProjectLookup & { secret: string }> {
  rejectThrottledClient(ctx, exchange);
  rejectDeclaredLength(exchange, maxBodyBytes);
  if (!ctx.isReady()) throw unavailable('the gateway is starting; try again shortly');
  const project = await ctx.projectBySlug(slug);
  if (!project) {
    recordAuthFailure(ctx, exchange);
    throw new HttpError(404, 'not_found', unknownMessage);
  }
  exchange.log.project = `${project.namespace}/${project.name}`;
  if (project.secret === undefined) throw unavailable('the project is not ready yet; try again shortly');
  return { ...project, secret: project.secret };
}

export function unavailable(message: string): HttpError {
  return new HttpError(503, 'unavailable', message, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
}
