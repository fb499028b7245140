// A verified pull-request delivery: makes, updates or removes the pull request's Preview
// (preview-plan.ts decides which) and says what it did. The operator builds and serves it.
import type { PullRequestState } from '../../providers/index.ts';
import type { Provider } from '../../crds/index.ts';
import { planPreview } from '../../rules/preview-plan.ts';
import type { GatewayContext } from './context.ts';
import { sendJson, type Exchange } from './exchange.ts';
import { unavailable } from './guards.ts';
import type { ProjectLookup, PreviewChange, PreviewWriteResult } from './ports.ts';

export async function applyPullRequest(
  ctx: GatewayContext,
  exchange: Exchange,
  project: ProjectLookup,
  provider: Provider,
  pr: PullRequestState,
): Promise<void> {
  exchange.log.pullRequest = `#${pr.number} ${pr.action} ${pr.state}@${pr.headCommit}`;
  const plan = planPreview(project, provider, pr);
  if (plan.outcome === 'ignored') {
    exchange.observation.result = 'ignored';
    exchange.log.reason = plan.reason;
    sendJson(exchange, 202, { result: 'ignored', reason: plan.reason });
    return;
  }
  const change: PreviewChange =
    plan.outcome === 'apply'
      ? { kind: 'apply', preview: plan.preview }
      : { kind: 'remove', namespace: project.namespace, name: plan.name };
  const name = plan.outcome === 'apply' ? plan.preview.metadata.name : plan.name;
  let result: PreviewWriteResult;
  try {
    if (!ctx.writePreview) throw new Error('this gateway writes no previews');
    result = await ctx.writePreview(change);
  } catch (error) {
    ctx.logger.error({ err: error, ...exchange.log }, 'writing the preview failed');
    throw unavailable('the preview could not be written; retry the delivery');
  }
  // A removal of a preview that never was is a delivery that changes nothing.
  const shown = result === 'absent' ? 'ignored' : result;
  exchange.observation.result = shown;
  exchange.log.preview = `${name}:${result}`;
  sendJson(exchange, result === 'created' ? 201 : result === 'absent' ? 202 : 200, {
    result: shown,
    preview: { name, namespace: project.namespace },
    ...(plan.outcome === 'remove' ? { reason: plan.reason } : {}),
  });
}
