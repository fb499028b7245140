// POST /uploads/{slug}: a CI upload of the base directory (multipart: commit, branch, comment, archive).
// Order of checks: 413 → 503 → 401 (unknown project or wrong secret, one answer; 429 once the
// client failed too often) → 503 →
// 415 → 503 (busy) → 422 (no usable manual bundle) → stream (413/422/400) → action.
import { archiveUrl } from '../../rules/archive-url.ts';
import { MAX_UPLOAD_OVERHEAD_BYTES } from '../limits.ts';
import { manualBundleProblem, planBundles } from '../plan.ts';
import { constantTimeEqual } from '../../lib/constant-time.ts';
import { applyPlan, BundlesPartlyCreated } from './apply-plan.ts';
import type { GatewayContext } from './context.ts';
import type { Exchange } from './exchange.ts';
import { admitProjectRequest, authFailure, unavailable } from './guards.ts';
import { HttpError, NOT_AUTHENTICATED } from './http-error.ts';
import { mediaType } from './read-body.ts';
import { receiveUploadForm } from './upload-form.ts';

const MAX_COMMIT_LENGTH = 128;
const MAX_BRANCH_LENGTH = 255;
const MAX_COMMENT_LENGTH = 4096;

/** An unknown project and a wrong secret get this same answer. */
const unauthenticated = () =>
  new HttpError(401, 'unauthenticated', NOT_AUTHENTICATED, { 'WWW-Authenticate': 'Bearer realm="slipway"' });

export async function handleUpload(ctx: GatewayContext, exchange: Exchange, slug: string): Promise<void> {
  const project = await admitProjectRequest(
    ctx,
    exchange,
    slug,
    ctx.limits.maxArchiveBytes + MAX_UPLOAD_OVERHEAD_BYTES,
    unauthenticated,
  );
  if (!bearerMatches(exchange.req.headers.authorization, project.secret)) {
    throw authFailure(ctx, exchange, unauthenticated());
  }
  if (mediaType(exchange) !== 'multipart/form-data') {
    throw new HttpError(415, 'unsupported_media_type', 'send the upload as multipart/form-data');
  }
  if (ctx.activeUploads >= ctx.maxConcurrentUploads)
    throw unavailable('too many uploads in progress; try again shortly');
  // Known before a byte of the archive is read: no need to receive (and throw away) 512 MiB.
  const unbuildable = manualBundleProblem(project.name, project.latestManualBundle);
  if (unbuildable) throw new HttpError(422, unbuildable.code, unbuildable.message);

  ctx.activeUploads += 1;
  try {
    const target = { namespace: project.namespace, project: project.name };
    const { fields, archive } = await receiveUploadForm(ctx, exchange, target);
    exchange.log.archive = {
      sha256: archive.sha256,
      sizeBytes: archive.sizeBytes,
      uploadedBytes: archive.uploadedBytes,
      entries: archive.entries,
    };
    try {
      const { commit, branch, comment } = uploadFields(fields);
      exchange.log.changes = [`${branch}@${commit}`];
      const plan = planBundles({
        project,
        webhooks: project.webhooks,
        latestManualBundle: project.latestManualBundle,
        ...(project.prunedBundles ? { prunedBundles: project.prunedBundles } : {}),
        receivedAt: ctx.now(),
        trigger: {
          type: 'Upload',
          branch,
          commit,
          comment,
          archive: {
            url: archiveUrl(ctx.archiveBaseUrl, archive.key),
            sha256: archive.sha256,
            sizeBytes: archive.sizeBytes,
          },
        },
      });
      await applyPlan(ctx, exchange, plan, project.suspended);
    } catch (error) {
      // No bundle refers to a new archive when the fields, the plan or creating failed: it goes
      // at once. Unless some bundles were created (two webhooks matched, the second create
      // failed): they refer to it. (A retry re-stores it under the same key and recreates the
      // same bundle names.)
      if (!archive.alreadyStored && !(error instanceof BundlesPartlyCreated))
        await ctx.store.remove(archive.key);
      throw error;
    }
  } finally {
    ctx.activeUploads -= 1;
    exchange.req.setTimeout(0); // the idle timeout was for this upload, not for the kept-alive connection
  }
}

function bearerMatches(header: string | undefined, secret: string): boolean {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  // Compare against something either way, so a missing header takes the same path.
  return constantTimeEqual(match?.[1] ?? '', secret) && match !== null;
}

function uploadFields(fields: Map<string, string>): { commit: string; branch: string; comment: string } {
  const commit = requiredField(fields, 'commit', MAX_COMMIT_LENGTH);
  const branch = requiredField(fields, 'branch', MAX_BRANCH_LENGTH);
  const comment = (fields.get('comment') ?? '').trim();
  if (comment.length > MAX_COMMENT_LENGTH) {
    throw new HttpError(400, 'invalid_field', `the comment is longer than ${MAX_COMMENT_LENGTH} characters`);
  }
  return { commit, branch, comment };
}

function requiredField(fields: Map<string, string>, name: string, maxLength: number): string {
  const value = (fields.get(name) ?? '').trim();
  if (value === '') throw new HttpError(400, 'missing_field', `the field ${name} is required`);
  if (value.length > maxLength)
    throw new HttpError(400, 'invalid_field', `the field ${name} is longer than ${maxLength} characters`);
  if (/\p{Cc}/u.test(value))
    throw new HttpError(400, 'invalid_field', `the field ${name} contains control characters`);
  return value;
}
