// kubectl slipway logs <bundle> [-f]: the fetch, build, push and backup logs of a bundle, in order.
// Only the operator's own Job containers (they print no credentials); the application's pods are
// the Deployment's, for kubectl logs. The build runs in the build namespace, where tenants have
// no rights (docs/adr/0004): its logs come from the gateway at the bundle's status.logsUrl, so
// whoever may get the bundle reads them; the backup runs in the bundle's namespace.
import { isFinished } from '../../rules/bundle-outcome.ts';
import type { BundleObject } from '../../crds/index.ts';
import { LABEL_BUNDLE, LABEL_STEP, labelValue } from '../../crds/labels.ts';
import { readPodLogs, type PodLogs } from '../../lib/pod-logs.ts';
import type { CliContext } from '../context.ts';
import { EXIT } from '../errors.ts';
import { readObject } from '../read.ts';
import { positionals, type Command } from './command.ts';

/** The build's pods and logs: from the gateway at status.logsUrl, else (no signing key) from the API. */
async function buildLogs(ctx: CliContext, bundle: BundleObject): Promise<PodLogs[]> {
  const { build, logsUrl } = bundle.status ?? {};
  if (logsUrl) return fromGateway(logsUrl);
  // Without a signing key there is no logs URL: read them where the build ran (a cluster admin
  // may). A bundle built before builds moved (no status.build): its pods in its own namespace.
  const { items } = await ctx.clients.core.listNamespacedPod(
    build
      ? { namespace: build.namespace, labelSelector: `batch.kubernetes.io/job-name=${build.job}` }
      : {
          namespace: ctx.namespace,
          labelSelector: `${LABEL_BUNDLE}=${labelValue(bundle.metadata.name)},${LABEL_STEP}=build`,
        },
  );
  return readPodLogs(ctx.clients.core, items);
}

/** The build's logs from the gateway; asked again (up to 3 times) while it is busy (503). */
async function fromGateway(url: string): Promise<PodLogs[]> {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(url, { headers: { Accept: 'application/json' } });
    if (response.ok) return ((await response.json()) as { pods: PodLogs[] }).pods;
    await response.body?.cancel();
    if (response.status !== 503 || attempt === 3)
      throw new Error(`the gateway at ${new URL(url).host} answered HTTP ${response.status}`);
    const wait = Number(response.headers.get('retry-after') ?? '1');
    await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(wait, 1), 5) * 1000));
  }
}

async function backupLogs(ctx: CliContext, bundle: BundleObject): Promise<PodLogs[]> {
  const { items } = await ctx.clients.core.listNamespacedPod({
    namespace: ctx.namespace,
    labelSelector: `${LABEL_BUNDLE}=${labelValue(bundle.metadata.name)},${LABEL_STEP}=backup`,
  });
  return readPodLogs(ctx.clients.core, items);
}

export const logsCommand: Command = {
  name: 'logs',
  summary: "a bundle's fetch, build, push and backup logs, in order; -f follows while it runs",
  usage: 'logs <bundle> [-f]',
  help: `Prints the logs of the bundle's build Job (fetch, build, then push) and backup Job (dump), each
under a "==> pod/container <==" line. With -f it keeps printing new lines until the bundle's
chain has ended. The build's logs come from the gateway (the bundle's status.logsUrl): reading
them needs only the right to get the bundle.`,
  options: { follow: { type: 'boolean', short: 'f' } },
  async run(ctx, args, values) {
    const [name] = positionals(args, ['bundle']);
    const bundleOf = () => readObject<BundleObject>(ctx, 'Bundle', name!);
    let bundle = await bundleOf();
    /** Per container: how much of its log is printed, and whether it is all printed (it ended). */
    const printed = new Map<string, { length: number; done: boolean }>();
    let header = '';
    const unreadable = new Set<string>();
    const cut = new Set<string>();
    const warnOnce = (key: string, why: string) => {
      if (!unreadable.has(key)) ctx.err(`warning: the log of ${key} cannot be read: ${why}`);
      unreadable.add(key);
    };
    for (;;) {
      const builds = await buildLogs(ctx, bundle).catch((error: unknown) => {
        warnOnce('the build', error instanceof Error ? error.message : String(error));
        return [];
      });
      const pods = [...builds, ...(await backupLogs(ctx, bundle))];
      for (const pod of pods) {
        for (const c of pod.containers) {
          const key = `${pod.pod}/${c.name}`;
          const seen = printed.get(key) ?? { length: 0, done: false };
          if (!c.started || seen.done) continue;
          if (c.log === undefined) {
            warnOnce(key, c.error ?? 'no log');
            continue;
          }
          const log = c.log;
          if (c.truncated && !cut.has(key)) {
            cut.add(key);
            ctx.err(`note: ${key} logged more than the gateway serves (its first 8 MiB)`);
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
      const allEnded = pods.every((p) => p.containers.every((c) => c.ended || !c.started));
      if (isFinished(bundle) && allEnded) return unreadable.size > 0 ? EXIT.failed : EXIT.ok;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      bundle = await bundleOf();
    }
  },
};
