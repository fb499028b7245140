// A Project condition about what leaves the cluster for its bundles (Reported: commit statuses;
// Notified: notifications), written only when it changes; a failure is also logged.
import type { NotifyReason, ProjectObject, ReportReason } from '../../crds/index.ts';
import { objectKey } from '../../lib/informer.ts';
import type { OperatorContext } from '../context.ts';

export type OutboundCondition =
  { type: 'Reported'; reason: ReportReason } | { type: 'Notified'; reason: NotifyReason };

export async function writeProjectCondition(
  ctx: OperatorContext,
  project: ProjectObject,
  condition: OutboundCondition,
  status: 'True' | 'False',
  message: string,
): Promise<void> {
  const { type, reason } = condition;
  if (status === 'False')
    ctx.log.warn({ project: objectKey(project.metadata.namespace, project.metadata.name), reason }, message);
  try {
    await ctx.status.write(
      'Project',
      project,
      { fields: {}, conditions: [{ type, status, reason, message }] },
      () => [],
    );
  } catch (err) {
    ctx.log.debug({ err, condition: type }, 'writing a Project condition failed; the next round writes it');
  }
}
