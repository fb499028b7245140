// Every kind of delivery that leaves the cluster, in one list: the delivery engine
// (delivery/engine.ts) runs them all. A new kind is a sink (delivery/sink.ts) and a line here.
import type { Sink } from './delivery/sink.ts';
import type { BundleSinkDeps } from './subjects/bundles.ts';
import { notificationSink } from './notify/notification-sink.ts';
import { previewNotificationSink } from './notify/preview-notification-sink.ts';
import { providerReportSink } from './report/report-sink.ts';
import { previewReportSink } from './report/preview-sink.ts';
import { subscriberSink } from './subscribers/subscriber-sink.ts';

export const sinks = (deps: BundleSinkDeps): Sink[] => [
  providerReportSink(deps), // commit statuses and deployments on the git provider (Project spec.report)
  previewReportSink(deps), // a preview's comment and slipway/preview status on its pull request (spec.report)
  notificationSink(deps), // how bundles ended (Project spec.notifications)
  previewNotificationSink(deps), // what previews did (Project spec.notifications)
  subscriberSink(deps), // status page changes (StatusPage spec.webhooks)
];
