// A removed preview's pull request and receivers hear of it: while its Project reports to the
// provider or has a receiver of PreviewRemoved, a Preview carries the finalizer
// slipway.dev/preview-comment, and when it is deleted the operator says Removing until the
// provider has taken the comment's last edit (operator/report/preview-sink.ts) and the receivers
// PreviewRemoved (operator/notify/preview-notification-sink.ts), then lets it go — after
// REMOVAL_WAIT_MS at the most, so an unreachable receiver never keeps a preview's pods running.
import { API_VERSION, type PreviewObject, type ProjectObject } from '../../crds/index.ts';
import { isConflict, isNotFound } from '../../lib/kube.ts';
import type { HandlerResult } from '../../lib/queue.ts';
import { timeMs } from '../../rules/timestamps.ts';
import type { OperatorContext } from '../context.ts';
import { COMMENT, commentDigest, previewComment } from '../../providers/preview-report.ts';

export const FINALIZER_PREVIEW_COMMENT = 'slipway.dev/preview-comment';
/** How long a removal waits for the provider to take the comment's last edit. */
export const REMOVAL_WAIT_MS = 2 * 60_000;

export class RemovalTold {
  private readonly ctx: OperatorContext;

  constructor(ctx: OperatorContext) {
    this.ctx = ctx;
  }

  /**
   * The finalizer on while someone is to hear of a removal (the project reports to the provider,
   * or a receiver takes PreviewRemoved), off otherwise.
   */
  async keep(preview: PreviewObject, project: ProjectObject | undefined): Promise<void> {
    const has = preview.metadata.finalizers?.includes(FINALIZER_PREVIEW_COMMENT) === true;
    const needed = !!project?.spec.report || removalReceivers(project).length > 0;
    if (has === needed) return;
    await this.setFinalizer(preview, !has);
  }

  async removed(preview: PreviewObject): Promise<HandlerResult | void> {
    if (!preview.metadata.finalizers?.includes(FINALIZER_PREVIEW_COMMENT)) return;
    const status = this.ctx.status.current(preview);
    const current = { ...preview, status };
    const comment = status?.reported?.find((r) => r.id === COMMENT);
    const waited = this.ctx.now().getTime() - (timeMs(preview.metadata.deletionTimestamp) ?? 0);
    const project = this.ctx.informers.projects.get(preview.metadata.namespace, preview.spec.projectRef.name);
    const notified = new Map((status?.notified ?? []).map((n) => [n.name, n.event]));
    const told =
      (!comment?.remoteId || comment.value === commentDigest(previewComment(current))) &&
      removalReceivers(project).every((name) => notified.get(name) === 'PreviewRemoved');
    if (told || waited >= REMOVAL_WAIT_MS) {
      if (!told)
        void this.ctx.events.warning(
          { apiVersion: API_VERSION, kind: 'Preview', metadata: preview.metadata },
          'RemovalNotReported',
          `the pull request's comment or a PreviewRemoved notification could not be sent within ${REMOVAL_WAIT_MS / 60_000} minutes: removed all the same`,
        );
      return this.setFinalizer(preview, false);
    }
    await this.ctx.status.write('Preview', preview, {
      writer: 'preview',
      fields: { phase: 'Removing' },
      conditions: [
        { type: 'Ready', status: 'False', reason: 'Removed', message: 'removed; telling the pull request' },
      ],
    });
    return { requeueAfterMs: Math.min(10_000, REMOVAL_WAIT_MS - waited) };
  }

  private async setFinalizer(preview: PreviewObject, on: boolean): Promise<void> {
    const others = (preview.metadata.finalizers ?? []).filter((f) => f !== FINALIZER_PREVIEW_COMMENT);
    const finalizers = on ? [...others, FINALIZER_PREVIEW_COMMENT] : others;
    const { namespace, name, resourceVersion } = preview.metadata;
    try {
      // Only at the version read: a finalizer someone else added meanwhile is never dropped.
      await this.ctx.slipway.patch('Preview', namespace, name, { metadata: { resourceVersion, finalizers } });
    } catch (err) {
      if (isNotFound(err)) return;
      if (isConflict(err)) throw new Error(`Preview ${namespace}/${name} changed meanwhile: looked at again`);
      throw err;
    }
  }
}

/** The receivers of the project that take PreviewRemoved. */
function removalReceivers(project: ProjectObject | undefined): string[] {
  return (project?.spec.notifications ?? [])
    .filter((n) => !n.events || n.events.includes('PreviewRemoved'))
    .map((n) => n.name);
}
