// A Project condition about what leaves the cluster for its bundles (Reported: commit statuses
// and deployments; Notified: notifications), written only when it changes. The engine logs
// failures; a write that fails is written by the lane's next round.
import type { ProjectObject } from '../../crds/index.ts';
import type { OperatorContext } from '../context.ts';

export async function writeProjectCondition(
  ctx: OperatorContext,
  project: ProjectObject,
  condition: { type: 'Reported' | 'Notified'; reason: string },
  status: 'True' | 'False',
  message: string,
): Promise<void> {
  const { type, reason } = condition;
  try {
    await ctx.status.write(
      'Project',
      project,
      {
        writer: type === 'Reported' ? 'report' : 'notify',
        fields: {},
        conditions: [{ type, status, reason, message }],
      },
      () => [],
    );
  } catch (err) {
    ctx.log.debug({ err, condition: type }, 'writing a Project condition failed; the next round writes it');
  }
}

/** A round that failed, shown on the Project: the condition False with the problem's reason. */
export function writeProjectProblem(
  ctx: OperatorContext,
  project: ProjectObject,
  type: 'Reported' | 'Notified',
  problem: { reason: string; message: string },
): Promise<void> {
  return writeProjectCondition(ctx, project, { type, reason: problem.reason }, 'False', problem.message);
}
