// The receipt book of what git providers took for a bundle: status.reported, one entry per
// context with its final state and the deployment made for it (pending states are kept in memory
// only: after a restart a pending status may be sent once more, a final one never).
import type { OperatorContext } from '../context.ts';
import { bundleBook } from '../subjects/bundles.ts';
import type { CommitState } from '../../providers/report.ts';
import { isFinal } from './commit-statuses.ts';

export const REPORTED = 'reported';

export const reportedBook = (ctx: OperatorContext) =>
  bundleBook(
    ctx,
    { field: REPORTED, writer: 'report' },
    (reported) =>
      reported.map((r) => [
        r.context,
        { value: r.state, ...(r.deploymentId ? { remoteId: r.deploymentId } : {}) },
      ]),
    (receipts) =>
      [...receipts]
        .filter(
          ([, r]) => (r.value !== undefined && isFinal(r.value as CommitState)) || r.remoteId !== undefined,
        )
        .map(([context, r]) => ({
          context,
          state: (r.value ?? 'pending') as CommitState,
          ...(r.remoteId ? { deploymentId: r.remoteId } : {}),
        }))
        .sort((a, b) => a.context.localeCompare(b.context)),
  );
