// The watched caches the operator's controllers share: each kind's (operator/<kind>/informers.ts,
// with the indexes that map a change of one object to the objects that depend on it), made over
// one scope (indexes.ts) and put together here.
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Informer } from '../lib/informer.ts';
import type { Logger } from '../lib/log.ts';
import { DEFAULT_BUILD_NAMESPACE } from '../rules/build-namespace.ts';
import { bundleInformers } from './bundle/informers.ts';
import { environmentInformers } from './environment/informers.ts';
import { informerScope } from './indexes.ts';
import { previewInformers } from './preview/informers.ts';
import { projectInformers } from './project/informers.ts';
import { promotionInformers } from './promotion/informers.ts';
import { statusPageInformers } from './status-page/informers.ts';
import { webhookInformers } from './webhook/informers.ts';

export { INDEX, WAITING_FOR_HOST, urlHost } from './indexes.ts';

export function createInformers(
  kc: KubeConfig,
  namespace: string | undefined,
  log: Logger,
  /** A shard's label selector (config.watchLabelSelector): its Bundles, Jobs, pods and status kinds (every Project is watched: shard.ts). */
  selector?: string,
  /** Where build Jobs run (config.buildNamespace): watched apart from the bundles' namespaces. */
  buildNamespace = DEFAULT_BUILD_NAMESPACE,
) {
  const scope = informerScope(kc, namespace, log, selector, buildNamespace);
  return {
    ...projectInformers(scope),
    ...environmentInformers(scope),
    ...webhookInformers(scope),
    ...bundleInformers(scope),
    ...previewInformers(scope),
    ...promotionInformers(scope),
    ...statusPageInformers(scope),
  };
}

export type OperatorInformers = ReturnType<typeof createInformers>;

export function allInformers(i: OperatorInformers): Array<Informer<KubernetesObject>> {
  return Object.values(i) as Array<Informer<KubernetesObject>>;
}

const START_RETRY_MS = 2_000;

/** Fills every cache: an initial list that fails is tried again every 2 s until it works or `stopped()`. */
export async function startInformers(
  informers: OperatorInformers,
  log: Logger,
  stopped: () => boolean,
): Promise<void> {
  await Promise.all(
    allInformers(informers).map(async (informer) => {
      for (;;) {
        try {
          await informer.start();
          return;
        } catch (err) {
          if (stopped()) return;
          log.warn({ path: informer.path, err: String(err) }, 'initial list failed; retrying');
          await new Promise((r) => setTimeout(r, START_RETRY_MS).unref());
          if (stopped()) return;
        }
      }
    }),
  );
}

export async function stopInformers(informers: OperatorInformers): Promise<void> {
  await Promise.all(allInformers(informers).map((i) => i.stop().catch(() => undefined)));
}
