// POST /hooks/{slug}/{token}: a git provider's push or pull-request notification. POST
// /hooks/{slug}, the Project's status.webhook.url as pasted into a provider's form, takes the
// same deliveries when they prove the secret themselves (a signature, GitLab's token, Azure
// DevOps' key): only Bitbucket's unsigned URL-only mode needs the URL's token.
// Order of checks: 413 → 503 → 404 → 503 → 415 → 401 → 400 → action; a failed authentication
// (404 or 401) becomes 429 once the client failed too often.
import { HOOK_BODY_TIMEOUT_MS, MAX_DELIVERY_BRANCH_CHANGES, MAX_HOOK_BODY_BYTES } from '../limits.ts';
import { planBundles } from '../plan.ts';
import {
  MalformedPayloadError,
  UnsupportedProviderError,
  parseDelivery,
  recogniseProvider,
  unrecognisedDeliveryMessage,
  verifyDelivery,
  isUnsigned,
  type ParsedDelivery,
} from '../../providers/index.ts';
import { isWebhookToken } from '../token.ts';
import { applyPlan } from './apply-plan.ts';
import { applyPullRequest } from './previews.ts';
import type { GatewayContext } from './context.ts';
import { sendJson, type Exchange } from './exchange.ts';
import { admitProjectRequest, authFailure } from './guards.ts';
import { HttpError, NOT_AUTHENTICATED, NO_SUCH_HOOK, UNSIGNED_WITHOUT_TOKEN } from './http-error.ts';
import { mediaType, readBody } from './read-body.ts';

export async function handleHook(
  ctx: GatewayContext,
  exchange: Exchange,
  slug: string,
  token: string | undefined,
): Promise<void> {
  const project = await admitProjectRequest(ctx, exchange, slug, MAX_HOOK_BODY_BYTES);
  if (token !== undefined && !isWebhookToken(token, project.secret, slug)) {
    throw authFailure(ctx, exchange, new HttpError(404, 'not_found', NO_SUCH_HOOK));
  }

  const type = mediaType(exchange);
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw new HttpError(
      415,
      'unsupported_media_type',
      'send the delivery as application/json (set the webhook content type to JSON)',
    );
  }

  const body = await readBody(exchange, MAX_HOOK_BODY_BYTES, HOOK_BODY_TIMEOUT_MS);
  const { headers } = exchange.req;
  const source = recogniseProvider(headers, body);
  if (source === undefined) {
    throw new HttpError(400, 'unrecognised_delivery', unrecognisedDeliveryMessage());
  }
  exchange.observation.provider = source;
  // Without the URL's token, nothing but the delivery's own proof of the secret counts.
  const options = { requireSignature: project.requireSignature === true || token === undefined };
  if (!verifyDelivery(source, headers, body, project.secret, project.provider, options)) {
    const unsignedWithoutToken = token === undefined && isUnsigned(source, headers);
    throw authFailure(
      ctx,
      exchange,
      new HttpError(
        401,
        'unauthenticated',
        unsignedWithoutToken ? UNSIGNED_WITHOUT_TOKEN : NOT_AUTHENTICATED,
      ),
    );
  }

  let delivery: ParsedDelivery;
  try {
    delivery = parseDelivery(source, headers, body);
  } catch (error) {
    if (error instanceof MalformedPayloadError || error instanceof UnsupportedProviderError) {
      throw new HttpError(400, error.code, error.message);
    }
    throw error;
  }
  exchange.log.deliveryId = delivery.deliveryId;

  if (delivery.kind === 'ignored') {
    exchange.observation.result = 'ignored';
    exchange.log.reason = delivery.reason;
    sendJson(exchange, 202, { result: 'ignored', reason: delivery.reason });
    return;
  }
  if (delivery.kind === 'pull-request') {
    await applyPullRequest(ctx, exchange, project, delivery.provider, delivery.pullRequest);
    return;
  }
  if (delivery.changes.length > MAX_DELIVERY_BRANCH_CHANGES)
    throw new HttpError(
      422,
      'too_many_changes',
      `the push updates ${delivery.changes.length} branches; a delivery may update at most ${MAX_DELIVERY_BRANCH_CHANGES}: push fewer branches at once`,
    );
  exchange.log.changes = delivery.changes.map((c) => `${c.branch}@${c.commit}`);
  const plan = planBundles({
    project,
    webhooks: project.webhooks,
    latestManualBundle: project.latestManualBundle,
    ...(project.prunedBundles ? { prunedBundles: project.prunedBundles } : {}),
    receivedAt: ctx.now(),
    trigger: {
      type: 'Webhook',
      provider: delivery.provider,
      deliveryId: delivery.deliveryId,
      changes: delivery.changes,
    },
  });
  await applyPlan(ctx, exchange, plan, project.suspended);
}
