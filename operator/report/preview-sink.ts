// Tells a pull request about its preview (Project spec.report): one comment, made once and then
// edited in place (its id kept in the Preview's status.reported), a deployment to the environment
// preview/pr-<n> where the provider has them (GitHub, GitLab) with the preview's URL, and the
// commit status slipway/preview on the head commit, linking to the preview (providers/preview-report.ts). A
// lane is a Preview; each change of it owes the lane. When a Preview is removed its comment says
// so before the Preview goes (the Preview controller waits for it, a few minutes at most).
import type { PreviewObject, ReportReason } from '../../crds/index.ts';
import { registry } from '../../providers/index.ts';
import { MAX_ATTEMPTS } from '../delivery/retry.ts';
import { writeProjectProblem } from '../delivery/project-condition.ts';
import type { Delivery, EngineHandle, Problem, Sink, SinkDeps } from '../delivery/sink.ts';
import { laneOf } from '../delivery/sink.ts';
import { reportsTotal } from '../metrics.ts';
import { previewBook, PREVIEW_REPORTED } from './preview-book.ts';
import { lanePreview } from '../subjects/previews.ts';
import {
  COMMENT,
  commentDigest,
  deploymentReceipt,
  previewCommitStatus,
  previewComment,
  previewEnvironment,
  statusReceipt,
} from '../../providers/preview-report.ts';
import { alreadyDone } from './report-deliveries.ts';
import { reportDestination } from '../../providers/report-destination.ts';

export function previewReportSink({ ctx, secrets }: SinkDeps): Sink {
  let engine: EngineHandle;
  const projectOf = (p: PreviewObject) =>
    ctx.informers.projects.get(p.metadata.namespace, p.spec.projectRef.name);
  const reports = (p: PreviewObject) => !!projectOf(p)?.spec.report;
  return {
    name: 'preview-report',
    attemptsPerRound: MAX_ATTEMPTS,
    failedReason: 'ReportFailed' satisfies ReportReason,
    books: [previewBook(ctx)],
    attach(handle) {
      engine = handle;
      ctx.informers.previews.onEvent((preview, type) => {
        if (type !== 'delete' && reports(preview)) engine.owe(laneOf(preview), { now: true });
      });
    },
    resume() {
      for (const preview of ctx.informers.previews.list()) if (reports(preview)) engine.owe(laneOf(preview));
    },
    async next(lane) {
      const preview = lanePreview(ctx, lane);
      const project = preview && projectOf(preview);
      if (!preview?.status?.phase || !project?.spec.report) return undefined;
      const where = reportDestination(project);
      if ('reason' in where) return where;
      const comments = where.report.comment;
      if (!comments) return undefined;
      const ref = project.spec.report.tokenSecretRef;
      const token = await secrets.value(preview.metadata.namespace, ref.name, ref.key, true);
      if (!token)
        return {
          reason: 'TokenNotFound',
          message: `Secret ${ref.name} has no non-empty key ${ref.key} (spec.report.tokenSecretRef)`,
        } satisfies Problem;
      const receipts = engine.receipts(PREVIEW_REPORTED, lane);
      const title = registry[where.provider].title;
      const number = preview.spec.number;
      const common = { secrets: [token], labels: { provider: where.provider } };
      const body = previewComment(preview);
      const digest = commentDigest(body);
      const comment = receipts.get(COMMENT);
      // A removal is told by editing the comment there is; none is made to say it.
      const removing = preview.metadata.deletionTimestamp !== undefined;
      if (comment?.value !== digest && !(removing && !comment?.remoteId))
        return {
          ...common,
          request: comment?.remoteId
            ? comments.update(where.target, number, comment.remoteId, token, body)
            : comments.create(where.target, number, token, body),
          ...(comment?.remoteId ? {} : { remoteId: (answer: unknown) => comments.idOf(answer) }),
          receipt: { book: PREVIEW_REPORTED, subject: lane, id: COMMENT, value: digest },
          refusal: `${title} did not take the preview's comment on pull request #${number}`,
        } satisfies Delivery;
      const status = previewCommitStatus(preview);
      if (!status) return undefined;
      const deployment = where.report.deployment;
      const deploymentId = deploymentReceipt(preview.spec.headCommit);
      const deployed = receipts.get(deploymentId);
      if (deployment && !deployed?.remoteId)
        return {
          ...common,
          request: deployment.create(
            where.target,
            preview.spec.headCommit,
            token,
            previewEnvironment(number),
            status.description,
            preview.spec.branch,
          ),
          remoteId: (answer: unknown) => deployment.idOf(answer),
          // A deployment made running (GitLab's) already says pending.
          receipt: {
            book: PREVIEW_REPORTED,
            subject: lane,
            id: deploymentId,
            ...(deployment.createsRunning && status.state === 'pending' ? { value: status.state } : {}),
          },
          refusal: `${title} did not take the deployment ${previewEnvironment(number)} of commit ${preview.spec.headCommit.slice(0, 12)}`,
          alreadyDone,
        } satisfies Delivery;
      if (deployment && deployed?.remoteId && deployed.value !== status.state)
        return {
          ...common,
          request: deployment.status(where.target, deployed.remoteId, token, status.state, {
            description: status.description,
            ...(status.targetUrl ? { environmentUrl: status.targetUrl } : {}),
          }),
          receipt: { book: PREVIEW_REPORTED, subject: lane, id: deploymentId, value: status.state },
          refusal: `${title} did not take ${status.state} for the deployment ${previewEnvironment(number)}`,
          alreadyDone,
        } satisfies Delivery;
      const id = statusReceipt(preview.spec.headCommit);
      if (receipts.get(id)?.value === status.state) return undefined;
      return {
        ...common,
        request: where.report.commitStatus(where.target, preview.spec.headCommit, token, status),
        receipt: { book: PREVIEW_REPORTED, subject: lane, id, value: status.state },
        refusal: `${title} did not take ${status.context} ${status.state} for commit ${preview.spec.headCommit.slice(0, 12)} (pull request #${number})`,
      } satisfies Delivery;
    },
    async settled(lane, outcome) {
      const preview = lanePreview(ctx, lane);
      const project = preview && projectOf(preview);
      if (!project || outcome.ok) return;
      await writeProjectProblem(ctx, project, 'Reported', outcome.problem);
    },
    count(labels, result) {
      reportsTotal.inc({ ...labels, result });
    },
  };
}
