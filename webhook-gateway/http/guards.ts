// The checks every POST route runs first: too big → 413,
// not ready → 503, unknown project → the route's answer for a wrong secret, project not ready → 503.
import { limitKey } from '../../lib/client-address.ts';
import { RETRY_AFTER_SECONDS } from '../limits.ts';
import type { GatewayContext } from './context.ts';
import type { Exchange } from './exchange.ts';
import { HttpError, NO_SUCH_HOOK } from './http-error.ts';
import { SecretUnavailableError, type ProjectLookup } from './ports.ts';
import { rejectDeclaredLength } from './read-body.ts';

/**
 * Failed authentications count per sender and project — one stale hook (a deleted project, an old
 * secret) slows down its own deliveries, not every project's that share the sender's address — and
 * per sender across projects, with a higher limit, so probing many project names is slowed too.
 * IPv6 senders count by their /64.
 */
function failureKeys(ctx: GatewayContext, exchange: Exchange): { perProject: string; perClient: string } {
  const client = limitKey(ctx.clientAddress(exchange.req));
  return { perProject: `${client} ${String(exchange.log.slug ?? '')}`, perClient: client };
}

/**
 * A failed authentication: counted, and answered with `answer` — or with 429 once the client is
 * over a limit. Only failures are throttled: a delivery that authenticates always goes through,
 * so nobody can lock a project out by failing on purpose from a provider's shared addresses.
 */
export function authFailure(ctx: GatewayContext, exchange: Exchange, answer: HttpError): HttpError {
  const keys = failureKeys(ctx, exchange);
  const now = ctx.now();
  // Over a limit already? (The first `limit` failures get the plain answer.)
  const perProject = ctx.authFailures.retryAfterSeconds(keys.perProject, now);
  const perClient = ctx.clientAuthFailures.retryAfterSeconds(keys.perClient, now);
  ctx.authFailures.recordFailure(keys.perProject, now);
  ctx.clientAuthFailures.recordFailure(keys.perClient, now);
  const retryAfter = Math.max(perProject, perClient);
  if (retryAfter === 0) return answer;
  return new HttpError(
    429,
    'too_many_failures',
    perClient > 0
      ? 'too many failed authentications from this address; try again later'
      : 'too many failed authentications from this address for this project; try again later',
    { 'Retry-After': String(retryAfter) },
  );
}

/** Size, readiness and project lookup, in that order. */
export async function admitProjectRequest(
  ctx: GatewayContext,
  exchange: Exchange,
  slug: string,
  maxBodyBytes: number,
  // Made only when it is the answer: an Error's stack trace cost 30 µs on every delivery.
  unknown: () => HttpError = () => new HttpError(404, 'not_found', NO_SUCH_HOOK),
): Promise<ProjectLookup & { secret: string }> {
  rejectDeclaredLength(exchange, maxBodyBytes);
  if (!ctx.isReady()) throw unavailable('the gateway is starting; try again shortly');
  let project: ProjectLookup | undefined;
  try {
    project = await ctx.projectBySlug(slug);
  } catch (error) {
    // The webhook Secret could not be read (the API server unreachable past the stale window, or
    // the read refused while the operator's grant is on its way; the reader logs which): try
    // again. Anything else is a bug, answered 500.
    if (!(error instanceof SecretUnavailableError)) throw error;
    throw unavailable('the project could not be looked up; try again shortly');
  }
  if (!project) {
    // The same answer as for a wrong secret or token (`unknown`): project names cannot be probed.
    throw authFailure(ctx, exchange, unknown());
  }
  exchange.log.project = `${project.namespace}/${project.name}`;
  if (project.secret === undefined) {
    // Not published yet, a slug conflict, or its Secret missing or empty: the caller gets the
    // unknown-project answer (telling it apart would reveal the name); the log says why.
    ctx.logger.warn({ project: exchange.log.project }, 'the project has no usable webhook secret yet');
    throw authFailure(ctx, exchange, unknown());
  }
  return { ...project, secret: project.secret };
}

export function unavailable(message: string): HttpError {
  return new HttpError(503, 'unavailable', message, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
}
