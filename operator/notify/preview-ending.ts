// What a preview tells its project's notification receivers (pure), read from its status: each
// event once per head commit.
//   PreviewReady    the preview serves its head commit
//   PreviewFailed   its build or rollout failed
//   PreviewRemoved  it was removed (the pull request closed, went idle, lost its label)
import type { NotificationEvent, PreviewObject } from '../../crds/index.ts';
import { findCondition } from '../../lib/conditions.ts';

export interface PreviewEnding {
  event: Extract<NotificationEvent, 'PreviewReady' | 'PreviewFailed' | 'PreviewRemoved'>;
  commit: string;
  message: string;
}

export function previewEnding(preview: PreviewObject): PreviewEnding | undefined {
  const { status, spec } = preview;
  const message = (findCondition(status?.conditions, 'Ready')?.message ?? '').split('\n')[0]!.trim();
  const commit = status?.deployedCommit ?? spec.headCommit;
  if (preview.metadata.deletionTimestamp) return { event: 'PreviewRemoved', commit, message: 'removed' };
  if (status?.phase === 'Ready' && status.deployedCommit === spec.headCommit)
    return { event: 'PreviewReady', commit: spec.headCommit, message };
  if (status?.phase === 'Failed') return { event: 'PreviewFailed', commit: spec.headCommit, message };
  return undefined;
}

/** The receipt's value: the event and the commit it was about. */
export const previewReceipt = (ending: PreviewEnding) => `${ending.event}@${ending.commit}`;
