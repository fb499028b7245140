// The operator's Prometheus metrics, on the process-wide registry.
import { notificationTypes, providers } from '../crds/index.ts';
import { STEP_BUCKETS, counter, gauge, histogram } from '../lib/metrics.ts';
import type { DeliveryResult } from './delivery/sink.ts';

/** What a delivery to a receiver came to (delivery/sink.ts DeliveryResult). */
const DELIVERY_RESULTS = ['accepted', 'refused', 'failed'] as const satisfies readonly DeliveryResult[];

export const reconcileTotal = counter(
  'slipway_operator_reconcile_total',
  'Reconciles by controller and result.',
  ['controller', 'result'] as const,
);

export const reconcileErrors = counter(
  'slipway_operator_reconcile_errors_total',
  'Reconciles that failed with an error and will be retried with backoff.',
  ['controller'] as const,
);

export const reconcileDuration = histogram(
  'slipway_operator_reconcile_duration_seconds',
  'Time one reconcile took.',
  ['controller'] as const,
);

export const queueDepth = gauge('slipway_operator_queue_depth', 'Objects waiting in a work queue.', [
  'controller',
] as const);

/** build / backup / deploy: how long the step took, and how it ended. */
export const stepDuration = histogram(
  'slipway_operator_step_duration_seconds',
  'Duration of bundle steps (build, backup, deploy) by outcome.',
  ['step', 'outcome'] as const,
  // Up to a day: builds and backups may run until their timeout (3600 s by default).
  STEP_BUCKETS,
);

export const stepTotal = counter(
  'slipway_operator_steps_total',
  'Finished bundle steps by step and outcome.',
  ['step', 'outcome'] as const,
);

export const leader = gauge('slipway_operator_leader', '1 while this replica holds the leader lease.');

/** Commit statuses sent to git providers (Project spec.report), by provider and result. */
export const reportsTotal = counter(
  'slipway_operator_reports_total',
  'Commit statuses sent to git providers: accepted, refused (an answer that is not worth retrying) or failed (retries used up).',
  ['provider', 'result'] as const,
);

/** Subscriber webhooks of status pages (StatusPage spec.webhooks), by result. */
export const statusWebhooksTotal = counter(
  'slipway_operator_status_webhooks_total',
  'Changes sent to status page subscriber webhooks: accepted, refused (an answer that is not worth retrying) or failed (3 tries in a round; tried again later).',
  ['result'] as const,
);

export const notificationsTotal = counter(
  'slipway_operator_notifications_total',
  'Notifications sent to receivers (Project spec.notifications): accepted, refused (an answer that is not worth retrying) or failed (retries used up).',
  ['type', 'result'] as const,
);

/**
 * Every series an alert reads, at 0 from the start: prom-client makes a labelled series at its
 * first increment, and `increase()` cannot count the step from no series to 1 (the first failure
 * after a start would be missed).
 */
export function zeroKnownSeries(): void {
  for (const step of ['build', 'backup', 'deploy'])
    for (const outcome of ['failed', 'succeeded']) stepTotal.inc({ step, outcome }, 0);
  for (const result of DELIVERY_RESULTS) {
    statusWebhooksTotal.inc({ result }, 0);
    for (const provider of providers) reportsTotal.inc({ provider, result }, 0);
    for (const type of notificationTypes) notificationsTotal.inc({ type, result }, 0);
  }
}
