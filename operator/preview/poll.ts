// The periodic look at a project's open pull requests (every POLL_MS, and at once when its
// Project changes): a delivery the gateway never got — the top complaint of preview tools — and
// pull requests opened before previews were turned on become Previews as their deliveries would
// (rules/preview-plan.ts), and a Preview whose pull request is no longer open is removed. It
// reads the provider's API with the project's spec.report token, through the outbound guard; a
// page that may not hold every open pull request removes nothing.
import { API_VERSION, type PreviewObject, type ProjectObject } from '../../crds/index.ts';
import { objectKey } from '../../lib/informer.ts';
import { previewWriter, type WritePreview } from '../../lib/preview-writer.ts';
import type { HandlerResult } from '../../lib/queue.ts';
import { LABEL_SHARD } from '../../crds/labels.ts';
import { planPreview } from '../../rules/preview-plan.ts';
import { timeMs } from '../../rules/timestamps.ts';
import type { OperatorContext } from '../context.ts';
import { attempt } from '../delivery/attempt.ts';
import { INDEX } from '../informers.ts';
import type { Controller, Reconciler } from '../reconcile/controller.ts';
import { reportDestination } from '../../providers/report-destination.ts';
import { inShard } from '../shard.ts';
import type { SecretReader } from '../../lib/secret-reader.ts';
import type { RemovedPreviews } from './removed-previews.ts';

/** How often a project's open pull requests are looked at. */
export const POLL_MS = 10 * 60_000;
/** A Preview younger than this when the page was read may be of a pull request opened since. */
const FRESH_MS = 60_000;

export class PullRequestPoll implements Reconciler {
  private readonly ctx: OperatorContext;
  private readonly secrets: SecretReader;
  private readonly fetch: typeof fetch;
  private readonly write: WritePreview;
  private readonly removed: RemovedPreviews;

  constructor(
    ctx: OperatorContext,
    secrets: SecretReader,
    guardedFetch: typeof fetch,
    removed: RemovedPreviews,
  ) {
    this.ctx = ctx;
    this.secrets = secrets;
    this.fetch = guardedFetch;
    this.removed = removed;
    this.write = previewWriter(ctx.slipway);
  }

  async reconcile(namespace: string, name: string): Promise<HandlerResult | void> {
    const project = this.ctx.informers.projects.get(namespace, name);
    if (!project?.spec.previews || !project.spec.report || !inShard(this.ctx, project)) return;
    const where = reportDestination(project);
    if ('reason' in where) return;
    const api = where.report.openPullRequests;
    if (!api) return;
    const ref = project.spec.report.tokenSecretRef;
    const token = await this.secrets.value(namespace, ref.name, ref.key, true);
    if (!token) return { requeueAfterMs: POLL_MS };
    const readAt = this.ctx.now().getTime();
    const result = await attempt(api.request(where.target, token), {
      fetch: this.fetch,
      secrets: [token],
      attempt: 1,
      now: Date.now(),
      readsAnswer: true,
    });
    if (!result.ok) {
      this.ctx.log.warn(
        { project: objectKey(namespace, name), problem: result.problem },
        'listing open pull requests failed',
      );
      return { requeueAfterMs: POLL_MS };
    }
    const open = api.parse(result.answer);
    const owner = {
      namespace,
      name,
      uid: project.metadata.uid,
      shard: project.metadata.labels?.[LABEL_SHARD],
      previews: project.spec.previews,
    };
    const now = this.ctx.now().getTime();
    for (const pr of open) {
      const plan = planPreview(owner, where.provider, pr);
      // One removed at this head (idle, or by hand) is not made again until a push or a delivery.
      const gone =
        plan.outcome === 'apply' &&
        !this.ctx.informers.previews.get(namespace, plan.preview.metadata.name) &&
        this.removed.wentAt(namespace, name, pr.number, pr.headCommit, now);
      if (gone) continue;
      if (plan.outcome === 'apply') await this.write({ kind: 'apply', preview: plan.preview });
      else if (plan.outcome === 'remove') await this.write({ kind: 'remove', namespace, name: plan.name });
    }
    // Only a page that holds them all says which are closed.
    if (open.length < api.pageSize)
      await this.removeClosed(project, new Set(open.map((pr) => pr.number)), readAt);
    return { requeueAfterMs: POLL_MS };
  }

  private async removeClosed(
    project: ProjectObject,
    open: ReadonlySet<number>,
    readAt: number,
  ): Promise<void> {
    const { namespace, name } = project.metadata;
    const previews = this.ctx.informers.previews.byIndex(INDEX.project, objectKey(namespace, name));
    for (const preview of previews) {
      const made = timeMs(preview.metadata.creationTimestamp) ?? readAt;
      if (open.has(preview.spec.number) || preview.metadata.deletionTimestamp || readAt - made < FRESH_MS)
        continue;
      this.ctx.log.info(
        { preview: objectKey(namespace, preview.metadata.name) },
        'its pull request is no longer open',
      );
      void this.ctx.events.normal(
        { apiVersion: API_VERSION, kind: 'Preview', metadata: (preview as PreviewObject).metadata },
        'PullRequestClosed',
        `pull request #${preview.spec.number} is no longer open on the provider: removed`,
      );
      await this.write({ kind: 'remove', namespace, name: preview.metadata.name });
    }
  }
}

/** A look at once when a Project changes (previews turned on, a new token); then every POLL_MS. */
export function watchForPolls(ctx: OperatorContext, controller: Controller): void {
  // Only a change of the spec: the sinks' status writes must not set off a look each.
  const seen = new Map<string, number | undefined>();
  ctx.informers.projects.onEvent((p, type) => {
    const key = objectKey(p.metadata.namespace, p.metadata.name);
    if (type === 'delete') return void seen.delete(key);
    if (seen.has(key) && seen.get(key) === p.metadata.generation) return;
    seen.set(key, p.metadata.generation);
    if (p.spec?.previews && p.spec.report) controller.enqueue(p.metadata.namespace, p.metadata.name);
  });
}
