// Reports bundles to their git provider (Project spec.report): commit statuses and, where the
// provider has them, deployments for rollouts (report-deliveries.ts), in the order the bundle
// reached them. A lane is a bundle; the bundle controller's life-cycle events owe it, and
// what its status says now (commit-statuses.ts) is sent, never waiting in the reconcile. What
// the provider took is kept on the bundle (status.reported, reported-book.ts); what could not be
// reported shows on the Project (condition Reported). Tokens are read from their Secret when
// needed, never logged or written anywhere.
import type { BundleObject, ReportReason } from '../../crds/index.ts';
import { registry } from '../../providers/index.ts';
import { reportDestination } from '../../providers/report-destination.ts';
import { timeMs } from '../../rules/timestamps.ts';
import {
  finishedLongAgo,
  laneBundle,
  newestBundle,
  projectOf,
  reportedCommit,
  RETRY_WINDOW_MS,
  type BundleSinkDeps,
} from '../subjects/bundles.ts';
import { writeProjectCondition, writeProjectProblem } from '../delivery/project-condition.ts';
import { MAX_ATTEMPTS } from '../delivery/retry.ts';
import type { DeliveryResult, EngineHandle, Problem, Sink } from '../delivery/sink.ts';
import { laneOf } from '../delivery/sink.ts';
import { reportsTotal } from '../metrics.ts';
import { reportedBook } from './reported-book.ts';
import { nextReport } from './report-deliveries.ts';

const problem = (reason: ReportReason, message: string): Problem => ({ reason, message });

export function providerReportSink({ ctx, secrets, lifecycle }: BundleSinkDeps): Sink {
  let engine: EngineHandle;
  const reports = (bundle: BundleObject) =>
    !!reportedCommit(ctx, bundle) && !!projectOf(ctx, bundle)?.spec.report;
  return {
    name: 'provider-report',
    attemptsPerRound: MAX_ATTEMPTS,
    failedReason: 'ReportFailed' satisfies ReportReason,
    books: [reportedBook(ctx)],
    attach(handle) {
      engine = handle;
      lifecycle.subscribe((event) => {
        // A new state to tell: not held back by an earlier failed round's back-off.
        if (reports(event.bundle)) engine.owe(laneOf(event.bundle), { now: true });
      });
    },
    resume() {
      const now = ctx.now().getTime();
      for (const bundle of ctx.informers.bundles.list()) {
        const finished = timeMs(bundle.status?.finishedAt);
        if ((finished === undefined || now - finished <= RETRY_WINDOW_MS) && reports(bundle))
          engine.owe(laneOf(bundle));
      }
    },
    async next(lane) {
      const { namespace, name: bundleName } = laneBundle(lane);
      const newest = newestBundle(ctx, namespace, bundleName);
      const commit = newest && reportedCommit(ctx, newest.bundle);
      if (!newest?.project.spec.report || !commit) return undefined;
      const where = reportDestination(newest.project);
      if ('reason' in where) return where;
      const ref = newest.project.spec.report.tokenSecretRef;
      const token = await secrets.value(namespace, ref.name, ref.key, true);
      if (!token)
        return problem(
          'TokenNotFound',
          `Secret ${ref.name} has no non-empty key ${ref.key} (spec.report.tokenSecretRef)`,
        );
      return nextReport(ctx, { ...newest, ...where, commit, token, lane }, engine);
    },
    async settled(lane, outcome) {
      const { namespace, name: bundleName } = laneBundle(lane);
      const project = newestBundle(ctx, namespace, bundleName)?.project;
      if (!project) return;
      if (!outcome.ok) return writeProjectProblem(ctx, project, 'Reported', outcome.problem);
      const where = reportDestination(project);
      if (outcome.sent.length === 0 || 'reason' in where) return;
      await writeProjectCondition(
        ctx,
        project,
        { type: 'Reported', reason: 'Reported' satisfies ReportReason },
        'True',
        `commit statuses are reported to ${registry[where.provider].title} at ${where.target.apiUrl}`,
      );
    },
    expired(lane) {
      const { namespace, name: bundleName } = laneBundle(lane);
      return finishedLongAgo(ctx, namespace, bundleName, RETRY_WINDOW_MS);
    },
    count(labels, result: DeliveryResult) {
      reportsTotal.inc({ ...labels, result });
    },
  };
}
