// The deliveries of one report to a git provider: a commit status (slipway/build, and
// slipway/deploy/<environment> where the provider has no deployments) or, where it has them, the
// rollout as a deployment — made once (its id kept in status.reported), then each state the
// bundle reaches a status of that deployment (GitLab makes it running: no status for pending).
// In the order the bundle's state lists them, the first the provider has not taken.
import { bundleBranch, publicBundleUrl } from '../subjects/bundles.ts';
import type { OperatorContext } from '../context.ts';
import type { Delivery, EngineHandle } from '../delivery/sink.ts';
import type { CommitStatus } from '../../providers/report.ts';
import { deployedEnvironment, desiredStatuses } from './commit-statuses.ts';
import { REPORTED } from './reported-book.ts';
import { registry } from '../../providers/index.ts';
import type { Provider } from '../../providers/provider.ts';
import type { ReportApi, ReportTarget } from '../../providers/report.ts';
import type { BundleObject, ProjectObject } from '../../crds/index.ts';

/** What one report of a bundle needs: the bundle, where it goes, and the token. */
export interface Reporting {
  bundle: BundleObject;
  project: ProjectObject;
  commit: string;
  provider: Provider;
  report: ReportApi;
  target: ReportTarget;
  token: string;
  /** The lane: the bundle's `namespace/name`. */
  lane: string;
}

/** "GitHub did not take slipway/build pending for commit c0ffee000000 (bundle shop-1)". */
export const refusalOf = (r: Reporting, context: string, state: string) =>
  `${registry[r.provider].title} did not take ${context} ${state} for commit ${r.commit.slice(0, 12)} (bundle ${r.bundle.metadata.name})`;

/**
 * GitLab refuses to set a state the status already has: it is there (commit statuses: "Cannot
 * transition status via :run from :running"; deployments: {"message":{"status":["cannot
 * transition via \"run\""]}}).
 */
export const alreadyDone = (status: number, text: string) =>
  status === 400 && /cannot transition (status )?via/i.test(text);

/** The next delivery `r` owes: for the first of the bundle's statuses the provider has not taken. */
export function nextReport(ctx: OperatorContext, r: Reporting, engine: EngineHandle): Delivery | undefined {
  const logUrl = publicBundleUrl(ctx, r.bundle);
  for (const status of desiredStatuses(r.bundle, logUrl)) {
    const delivery = deliveryOf(ctx, r, status, engine, logUrl);
    if (delivery) return delivery;
  }
  return undefined;
}

function deliveryOf(
  ctx: OperatorContext,
  r: Reporting,
  status: CommitStatus,
  engine: EngineHandle,
  logUrl: string | undefined,
): Delivery | undefined {
  const receipt = engine.receipts(REPORTED, r.lane).get(status.context);
  if (receipt?.value === status.state) return undefined;
  const common = {
    secrets: [r.token],
    refusal: refusalOf(r, status.context, status.state),
    labels: { provider: r.provider },
    alreadyDone,
    receipt: { book: REPORTED, subject: r.lane, id: status.context, value: status.state },
  };
  const environment = deployedEnvironment(status.context);
  const api = r.report.deployment;
  if (environment === undefined || !api)
    return { ...common, request: r.report.commitStatus(r.target, r.commit, r.token, status) };
  if (!receipt?.remoteId)
    return {
      ...common,
      request: api.create(
        r.target,
        r.commit,
        r.token,
        environment,
        status.description,
        bundleBranch(r.bundle),
      ),
      remoteId: (answer: unknown) => api.idOf(answer),
      // A deployment made running (GitLab's) already says pending; else its status comes next.
      receipt: {
        book: REPORTED,
        subject: r.lane,
        id: status.context,
        ...(api.createsRunning && status.state === 'pending' ? { value: status.state } : {}),
      },
    };
  const { namespace } = r.bundle.metadata;
  const environmentUrl = ctx.informers.environments.get(namespace, environment)?.spec.url;
  return {
    ...common,
    request: api.status(r.target, receipt.remoteId, r.token, status.state, {
      description: status.description,
      logUrl,
      environmentUrl,
    }),
  };
}
