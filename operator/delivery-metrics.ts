// The four delivery figures (rules/delivery-figures.ts) of each project and environment over the
// last 30 days, as gauges read from the operator's caches at scrape time (no API call), reported
// by the leader alone — the same numbers `kubectl slipway stats` prints:
//   slipway_delivery_deployments{namespace, project, environment}             successful rollouts
//   slipway_delivery_lead_time_seconds{…}                                      median, commit → Ready
//   slipway_delivery_change_failure_ratio{…}                                   failed / changes
//   slipway_delivery_time_to_restore_seconds{…}                                median, failure → Ready
// A figure with nothing to measure (no rollouts, no commit times, no failures) has no series.
import { Gauge } from 'prom-client';
import { registry } from '../lib/metrics.ts';
import { deliveryFigures, type EnvironmentFigures } from '../rules/delivery-figures.ts';
import type { BundleObject } from '../crds/index.ts';
import type { OperatorInformers } from './informers.ts';

/** The window the gauges cover. */
export const DELIVERY_WINDOW_MS = 30 * 86_400_000;

interface Row {
  namespace: string;
  project: string;
  figures: EnvironmentFigures;
}
type Source = () => Iterable<Row>;
const sources = new Set<Source>();

/**
 * The rows of one scrape: the four gauges are collected one after the other, so the figures are
 * computed by the first and read by the other three (kept for a second at most).
 */
let scraped: { at: number; rows: Row[] } | undefined;
function rows(): Row[] {
  const now = Date.now();
  if (!scraped || now - scraped.at > 1_000)
    scraped = { at: now, rows: [...sources].flatMap((source) => [...source()]) };
  return scraped.rows;
}
const LABELS = ['namespace', 'project', 'environment'] as const;

function gauge(name: string, help: string, value: (f: EnvironmentFigures) => number | undefined): void {
  new Gauge({
    name,
    help,
    labelNames: LABELS,
    registers: [registry],
    collect() {
      this.reset();
      for (const { namespace, project, figures } of rows()) {
        const v = value(figures);
        if (v !== undefined) this.set({ namespace, project, environment: figures.environment }, v);
      }
    },
  });
}

gauge(
  'slipway_delivery_deployments',
  'Successful rollouts to each environment in the last 30 days (rollbacks not counted), from the bundles each project keeps.',
  (f) => f.deployments,
);
gauge(
  'slipway_delivery_lead_time_seconds',
  "Median time from a deployed commit's time (as the provider reported it) to Ready on the environment, last 30 days.",
  (f) => f.leadTime?.median,
);
gauge(
  'slipway_delivery_change_failure_ratio',
  'Share of changes rolled out to the environment in the last 30 days whose rollout failed or was rolled back.',
  (f) => f.changeFailure?.rate,
);
gauge(
  'slipway_delivery_time_to_restore_seconds',
  'Median time from a failed change to the next successful rollout on the environment, last 30 days.',
  (f) => f.timeToRestore?.median,
);

/** Reports the figures of these caches while `leading`, until the returned function is called. */
export function exportDeliveryFigures(
  informers: OperatorInformers,
  leading: () => boolean,
  now: () => Date,
): () => void {
  const source: Source = function* () {
    if (!leading()) return;
    const byProject = new Map<string, BundleObject[]>();
    for (const b of informers.bundles.list()) {
      const key = `${b.metadata.namespace}/${b.spec.projectRef.name}`;
      const list = byProject.get(key) ?? [];
      list.push(b);
      byProject.set(key, list);
    }
    const until = now().getTime();
    for (const [key, bundles] of byProject) {
      const [namespace, project] = key.split('/') as [string, string];
      for (const figures of deliveryFigures(bundles, until - DELIVERY_WINDOW_MS, until))
        yield { namespace, project, figures };
    }
  };
  sources.add(source);
  return () => {
    sources.delete(source);
    scraped = undefined;
  };
}
