// slipway_object_condition{kind, namespace, name, type="Ready", status}: each object's Ready as a
// metric, as Flux's gotk_reconcile_condition shows its objects' — 1 on the status it has, 0 on
// the other two — so an alert can name what is not Ready. Read from the operator's caches at
// scrape time (no API call); bundles that have finished are history and are left out.
import { Gauge } from 'prom-client';
import { findCondition } from '../lib/conditions.ts';
import { registry } from '../lib/metrics.ts';
import { isFinished } from '../rules/bundle-outcome.ts';
import type { BundleObject, Condition } from '../crds/index.ts';
import type { OperatorInformers } from './informers.ts';

interface Conditioned {
  metadata: { namespace?: string; name: string };
  status?: { conditions?: Condition[] };
}

const STATUSES = ['True', 'False', 'Unknown'] as const;
const sources = new Set<() => Iterable<[string, Conditioned]>>();

new Gauge({
  name: 'slipway_object_condition',
  help: "Each Slipway object's Ready condition: 1 on its status (True, False or Unknown), 0 on the others; unfinished bundles only.",
  labelNames: ['kind', 'namespace', 'name', 'type', 'status'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const source of sources)
      for (const [kind, object] of source()) {
        const ready = findCondition(object.status?.conditions, 'Ready')?.status ?? 'Unknown';
        const labels = {
          kind,
          namespace: object.metadata.namespace ?? '',
          name: object.metadata.name,
          type: 'Ready',
        };
        for (const status of STATUSES) this.set({ ...labels, status }, ready === status ? 1 : 0);
      }
  },
});

/**
 * Shows the objects of these caches while `leading` (standby replicas report nothing, so each
 * object is reported once per shard) until the returned function is called (the operator stops).
 */
export function exportReadiness(informers: OperatorInformers, leading: () => boolean): () => void {
  const source = function* (): Iterable<[string, Conditioned]> {
    if (!leading()) return;
    const all = (kind: string, list: readonly Conditioned[]) =>
      list.map((o): [string, Conditioned] => [kind, o]);
    yield* all('Project', informers.projects.list());
    yield* all('Environment', informers.environments.list());
    yield* all('Webhook', informers.webhooks.list());
    yield* all(
      'Bundle',
      informers.bundles.list().filter((b) => !isFinished(b as BundleObject)),
    );
    yield* all('Preview', informers.previews.list());
    yield* all('Promotion', informers.promotions.list());
    yield* all('StatusPage', informers.statusPages.list());
    yield* all('StatusComponent', informers.statusComponents.list());
    yield* all('StatusNotice', informers.statusNotices.list());
  };
  sources.add(source);
  return () => sources.delete(source);
}
