// What `promote` and `promotion` share: who the requester is (as the API server sees them, so
// --as and any authenticator agree with admission), and following a Promotion to its end.
import { AuthenticationV1Api } from '@kubernetes/client-node';
import type { PromotionObject } from '../crds/index.ts';
import { followBundle } from './bundles.ts';
import type { CliContext } from './context.ts';
import { CommandError, EXIT } from './errors.ts';
import { readObject, readyOf } from './read.ts';

/** The user name the API server gives the caller (a SelfSubjectReview, like `kubectl auth whoami`). */
export async function whoAmI(ctx: CliContext): Promise<string> {
  const review = await ctx.kc.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
  const user = review.status?.userInfo?.username;
  if (!user) throw new CommandError('the API server did not say who you are (SelfSubjectReview)');
  return user;
}

/** "Waiting: IncidentOpen: StatusNotice … is open on component api", for people. */
export function promotionLine(p: PromotionObject): string {
  const ready = readyOf(p);
  return [p.status?.phase ?? 'Pending', ready?.reason, ready?.message].filter(Boolean).join(': ');
}

/**
 * Prints each new state of the promotion until it ends (following its bundle once it rolls out);
 * resolves with 0 when it succeeded, rejects when it failed or `timeoutMs` passed (exit code 3).
 */
export async function followPromotion(ctx: CliContext, name: string, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  let followed = false;
  for (;;) {
    const promotion = await readObject<PromotionObject>(ctx, 'Promotion', name);
    const line = promotionLine(promotion);
    if (line !== last) ctx.err(`promotion ${name}: ${line}`);
    last = line;
    const phase = promotion.status?.phase;
    if (phase === 'Succeeded') return EXIT.ok;
    if (phase === 'Failed')
      throw new CommandError(`promotion ${name} failed: ${readyOf(promotion)?.message ?? ''}`);
    const rollout = promotion.status?.rolloutBundle;
    if (phase === 'Promoting' && rollout && !followed) {
      followed = true;
      // Its phases as they come; how it ended, the promotion's own status says next.
      await followBundle(ctx, ctx.namespace, rollout, Math.max(1_000, deadline - Date.now())).catch(
        () => undefined,
      );
      continue;
    }
    if (Date.now() >= deadline)
      throw new CommandError(
        `promotion ${name} has not finished after ${Math.round(timeoutMs / 1000)} s: ${line}`,
        EXIT.timeout,
      );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
