// What a preview tells its pull request now (pure): one comment, edited in place as the preview
// changes, and the commit status slipway/preview on its head commit, linking to the preview.
// Read from the Preview's status, so what is sent late or again is still the latest.
import { createHash } from 'node:crypto';
import type { PreviewObject } from '../crds/index.ts';
import { findCondition } from '../lib/conditions.ts';
import type { CommitStatus } from './report.ts';

export const PREVIEW_CONTEXT = 'slipway/preview';
export const COMMENT = 'comment';
/** The receipt id of the commit status of `commit`. */
export const statusReceipt = (commit: string) => `${PREVIEW_CONTEXT}@${commit}`;
/** The receipt id of the deployment of `commit` (its id the receipt's remoteId). */
export const deploymentReceipt = (commit: string) => `deployment@${commit}`;
/** The provider's environment of pull request `number`'s preview. */
export const previewEnvironment = (number: number) => `preview/pr-${number}`;

const short = (commit: string | undefined) => (commit ?? '').slice(0, 12);

/** The comment's text: Markdown, which every provider renders. */
export function previewComment(preview: PreviewObject): string {
  const { spec, status } = preview;
  const ready = findCondition(status?.conditions, 'Ready');
  const why = ready?.message ?? '';
  const [mark, state] = (() => {
    if (preview.metadata.deletionTimestamp) return ['🗑️', 'removed'];
    switch (status?.phase) {
      case 'Ready':
        return ['✅', 'ready'];
      case 'Failed':
        return ['❌', 'failed'];
      case 'Building':
        return ['⏳', 'building'];
      default:
        return ['⏸️', 'waiting'];
    }
  })();
  const lines = [`**Slipway preview** ${mark} ${state}`, '', '| | |', '|---|---|'];
  const deployed = status?.deployedCommit;
  if (status?.url && deployed && state !== 'removed') lines.push(`| URL | ${status.url} |`);
  if (deployed) lines.push(`| Commit | \`${short(deployed)}\` |`);
  if (state === 'building') lines.push(`| Building | \`${short(spec.headCommit)}\` |`);
  else if (!deployed) lines.push(`| Commit | \`${short(spec.headCommit)}\` |`);
  // Why it waits or failed; progress while building would edit the comment at every step.
  if ((state === 'waiting' || state === 'failed') && why) lines.push('', escape(why));
  if (state === 'removed') lines.push('', 'The preview and everything that served it are gone.');
  return lines.join('\n');
}

/** Text from a condition, made inert as Markdown (no HTML, no mentions, no links of its own). */
function escape(text: string): string {
  return text.replace(/[<>]/g, '').replace(/@/g, '@\u200b');
}

/** A short fingerprint of the comment's text: the receipt's value, so an unchanged comment is not edited again. */
export const commentDigest = (body: string) => createHash('sha256').update(body).digest('hex').slice(0, 16);

/**
 * The slipway/preview status of the head commit, or none (a removal; a fork that is not built,
 * unless its commit was told of a preview before: forks switched to Deny took that down).
 */
export function previewCommitStatus(preview: PreviewObject): CommitStatus | undefined {
  const { status } = preview;
  const ready = findCondition(status?.conditions, 'Ready');
  if (preview.metadata.deletionTimestamp || !status?.phase) return undefined;
  const at = (state: CommitStatus['state'], description: string): CommitStatus => ({
    state,
    context: PREVIEW_CONTEXT,
    description,
    ...(status.url ? { targetUrl: status.url } : {}),
  });
  if (ready?.reason === 'ForkNotAllowed') {
    const told = status.reported?.some((r) => r.id === statusReceipt(preview.spec.headCommit));
    return told ? at('failure', 'Preview taken down: previews of forks are not allowed') : undefined;
  }
  if (status.phase === 'Ready' && status.deployedCommit === preview.spec.headCommit)
    return at('success', `Preview ready at ${status.url ?? ''}`.trim());
  if (status.phase === 'Failed')
    return at('failure', (ready?.message ?? 'The preview failed').split('\n')[0]!);
  return at('pending', status.phase === 'Waiting' ? (ready?.message ?? 'Waiting') : 'Building the preview');
}
