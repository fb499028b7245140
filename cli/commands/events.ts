// kubectl slipway events KIND NAME: an object's Events and those of what it made, oldest first,
// as `flux events` shows them — for a project, everything `tree` shows (its Webhooks,
// Environments, Deployments and pods, Bundles and backup Jobs, Previews); for a bundle, its
// backup Job and the pods it ran in the namespace; for an environment, its Deployment and pods.
// Read with the user's own rights: Events of the namespace only (a build Job's are in the build
// namespace, apart from tenants; `kubectl slipway logs` shows its output).
import type { CoreV1Event } from '@kubernetes/client-node';
import type { BundleObject, EnvironmentObject } from '../../crds/index.ts';
import { LABEL_BUNDLE, labelValue } from '../../crds/labels.ts';
import type { CliContext } from '../context.ts';
import { age, printList, type Column } from '../print.ts';
import { readObject } from '../read.ts';
import { kindCompletions, kindOf, positionals, type Command } from './command.ts';
import { deploymentNode, projectTree } from './tree.ts';

type Node = Awaited<ReturnType<typeof projectTree>>;
const key = (kind: string, name: string) => `${kind}/${name}`;

/** kind/name of every object in the tree, but those outside the namespace (build Jobs). */
const treeKeys = (node: Node): string[] => [
  ...(node.name.includes('/') ? [] : [key(node.kind, node.name)]),
  ...node.children.flatMap(treeKeys),
];

async function podKeys(ctx: CliContext, labelSelector: string): Promise<string[]> {
  const pods = await ctx.clients.core.listNamespacedPod({ namespace: ctx.namespace, labelSelector });
  return pods.items.map((p) => key('Pod', p.metadata?.name ?? ''));
}

/** kind/name of the object and what it made, in the namespace. */
async function whatItMade(ctx: CliContext, kind: (typeof KINDS)[number], name: string): Promise<Set<string>> {
  switch (kind) {
    case 'Project':
      return new Set(treeKeys(await projectTree(ctx, name)));
    case 'Bundle': {
      const bundle = await readObject<BundleObject>(ctx, 'Bundle', name);
      return new Set([
        key('Bundle', name),
        ...(bundle.status?.backup?.job ? [key('Job', bundle.status.backup.job)] : []),
        ...(await podKeys(ctx, `${LABEL_BUNDLE}=${labelValue(name)}`)),
      ]);
    }
    case 'Environment': {
      const environment = await readObject<EnvironmentObject>(ctx, 'Environment', name);
      const deployment = await deploymentNode(ctx, environment.spec.deploymentRef.name);
      return new Set([key('Environment', name), ...treeKeys(deployment)]);
    }
  }
}

/** When the Event was last seen, in ms (client-node gives Dates, or strings for some fields). */
const when = (e: CoreV1Event): number => {
  const at = e.series?.lastObservedTime ?? e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp;
  return at === undefined ? 0 : new Date(at as unknown as string).getTime();
};

const KINDS = ['Project', 'Environment', 'Bundle'] as const;

const columns: Column<CoreV1Event>[] = [
  { header: 'LAST SEEN', value: (e) => (when(e) ? age(new Date(when(e))) : '<unknown>') },
  { header: 'TYPE', value: (e) => e.type ?? '' },
  { header: 'REASON', value: (e) => e.reason ?? '' },
  { header: 'OBJECT', value: (e) => key(e.involvedObject.kind ?? '', e.involvedObject.name ?? '') },
  { header: 'MESSAGE', value: (e) => (e.message ?? '').replace(/\s+/g, ' ') },
];

export const eventsCommand: Command = {
  name: 'events',
  summary: "an object's Events and those of what it made, oldest first",
  usage: 'events project|environment|bundle <name> [-o wide|json|yaml] [-n namespace]',
  help: `For a project: everything "tree" shows; for a bundle: its backup Job and pods; for an
environment: its Deployment and pods. Events of the namespace only: a build Job runs in Slipway's
build namespace ("kubectl slipway logs <bundle>" shows its output).

Example: kubectl slipway -n shop events bundle site-3f2a9c1d0e4b`,
  completions: kindCompletions(KINDS),
  async run(ctx, args) {
    const [kind, name] = positionals(args, ['kind', 'name']);
    const wanted = await whatItMade(ctx, kindOf(kind!, KINDS), name!);
    // The core Events API: what the view role grants (it shows events.k8s.io Events too).
    const { items } = await ctx.clients.core.listNamespacedEvent({ namespace: ctx.namespace });
    const events = items
      .filter((e) => wanted.has(key(e.involvedObject.kind ?? '', e.involvedObject.name ?? '')))
      .sort((a, b) => when(a) - when(b));
    printList(
      ctx,
      events,
      columns,
      `No events of ${kind} ${name} or what it made in namespace ${ctx.namespace}.`,
    );
  },
};
