// kubectl slipway logs <bundle> [-f]: the fetch, build, push and backup logs of a bundle, in order.
// Only the operator's own Job containers (they print no credentials); the application's pods are
// the Deployment's, for kubectl logs.
import type { V1Pod } from '@kubernetes/client-node';
import { isFinished } from '../../rules/bundle-outcome.ts';
import type { BundleObject } from '../../crds/index.ts';
import { apiMessage } from '../../lib/kube.ts';
import { LABEL_BUNDLE, LABEL_STEP, labelValue } from '../../crds/labels.ts';
import type { CliContext } from '../context.ts';
import { EXIT } from '../errors.ts';
import { readObject } from '../read.ts';
import { positionals, type Command } from './command.ts';

const STEP_ORDER = ['build', 'backup'];
const created = (p: V1Pod) => new Date(p.metadata?.creationTimestamp ?? 0).getTime();

async function jobPods(ctx: CliContext, bundle: string): Promise<V1Pod[]> {
  const { items } = await ctx.clients.core.listNamespacedPod({
    namespace: ctx.namespace,
    labelSelector: `${LABEL_BUNDLE}=${labelValue(bundle)},${LABEL_STEP}`,
  });
  const step = (p: V1Pod) => STEP_ORDER.indexOf(p.metadata?.labels?.[LABEL_STEP] ?? '');
  return items.sort((a, b) => step(a) - step(b) || created(a) - created(b));
}

/** Containers of a pod in the order they run, with whether each has started and ended. */
function containers(pod: V1Pod): Array<{ name: string; started: boolean; ended: boolean }> {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  return [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c) => {
    const s = statuses.find((x) => x.name === c.name);
    return {
      name: c.name,
      started: Boolean(s?.state?.running || s?.state?.terminated || s?.lastState?.terminated),
      ended: Boolean(s?.state?.terminated),
    };
  });
}

export const logsCommand: Command = {
  name: 'logs',
  summary: "a bundle's fetch, build, push and backup logs, in order; -f follows while it runs",
  usage: 'logs <bundle> [-f]',
  help: `Prints the logs of the bundle's build Job (fetch, build, then push) and backup Job (dump), each
under a "==> pod/container <==" line. With -f it keeps printing new lines until the bundle's
chain has ended.`,
  options: { follow: { type: 'boolean', short: 'f' } },
  async run(ctx, args, values) {
    const [name] = positionals(args, ['bundle']);
    const bundleOf = () => readObject<BundleObject>(ctx, 'Bundle', name!);
    let bundle = await bundleOf();
    /** Per container: how much of its log is printed, and whether it is all printed (it ended). */
    const printed = new Map<string, { length: number; done: boolean }>();
    let header = '';
    const unreadable = new Set<string>();
    for (;;) {
      const pods = await jobPods(ctx, name!);
      for (const pod of pods) {
        for (const c of containers(pod)) {
          const key = `${pod.metadata!.name}/${c.name}`;
          const seen = printed.get(key) ?? { length: 0, done: false };
          if (!c.started || seen.done) continue;
          let log: string;
          try {
            log = await ctx.clients.core.readNamespacedPodLog({
              name: pod.metadata!.name!,
              namespace: ctx.namespace,
              container: c.name,
            });
          } catch (error) {
            if (!unreadable.has(key))
              ctx.err(`warning: the log of ${key} cannot be read: ${apiMessage(error)}`);
            unreadable.add(key);
            continue;
          }
          // While the container runs, only whole lines: the rest comes with the next read.
          const end = c.ended || values.follow !== true ? log.length : log.lastIndexOf('\n') + 1;
          if (end > seen.length) {
            if (header !== key) ctx.out(`==> ${key} <==`);
            header = key;
            ctx.out(log.slice(seen.length, end).replace(/\n$/, ''));
          }
          printed.set(key, { length: Math.max(end, seen.length), done: c.ended });
        }
      }
      if (values.follow !== true) {
        if (pods.length === 0)
          ctx.err(`bundle ${name} has no build or backup pods (phase ${bundle.status?.phase ?? 'Pending'})`);
        return unreadable.size > 0 ? EXIT.failed : EXIT.ok;
      }
      const allEnded = pods.every((p) => containers(p).every((c) => c.ended || !c.started));
      if (isFinished(bundle) && allEnded) return unreadable.size > 0 ? EXIT.failed : EXIT.ok;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      bundle = await bundleOf();
    }
  },
};
