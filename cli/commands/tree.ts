// kubectl slipway tree project NAME: what a project is made of and what it made, as one tree —
// its Webhooks and Environments (each with its Deployment and that Deployment's pods), its
// Bundles newest first (each with its build Job, which runs in the build namespace, and its
// backup Job), and its Previews. Read with the namespace user's own rights: everything listed
// is in their namespace, but for the build Jobs, which are named from the bundles' status.
import type { V1Pod } from '@kubernetes/client-node';
import type {
  BundleObject,
  EnvironmentObject,
  PreviewObject,
  ProjectObject,
  WebhookObject,
} from '../../crds/index.ts';
import { newestFirst } from '../../rules/bundle-order.ts';
import { isNotFound } from '../../lib/kube.ts';
import type { CliContext } from '../context.ts';
import { readObject, readyOf } from '../read.ts';

import { printObject } from '../print.ts';
import { kindOf, positionals, type Command } from './command.ts';

interface Node {
  kind: string;
  name: string;
  /** Ready's status and reason, or a pod's phase: what a reader looks for first. */
  state: string;
  children: Node[];
}

const readyText = (o: Parameters<typeof readyOf>[0]) => {
  const ready = readyOf(o);
  return ready ? `Ready=${ready.status} ${ready.reason}` : '';
};

/** A Deployment of the namespace with its pods (by its selector), or "not found". */
export async function deploymentNode(ctx: CliContext, name: string): Promise<Node> {
  try {
    const d = await ctx.clients.apps.readNamespacedDeployment({ name, namespace: ctx.namespace });
    const selector = Object.entries(d.spec?.selector?.matchLabels ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const pods: V1Pod[] = selector
      ? (await ctx.clients.core.listNamespacedPod({ namespace: ctx.namespace, labelSelector: selector }))
          .items
      : [];
    const status = d.status ?? {};
    return {
      kind: 'Deployment',
      name,
      state: `${status.readyReplicas ?? 0}/${d.spec?.replicas ?? 0} ready`,
      children: pods.map((p) => ({
        kind: 'Pod',
        name: p.metadata?.name ?? '',
        state: p.metadata?.deletionTimestamp ? 'Terminating' : (p.status?.phase ?? ''),
        children: [],
      })),
    };
  } catch (error) {
    if (isNotFound(error)) return { kind: 'Deployment', name, state: 'not found', children: [] };
    throw error;
  }
}

function bundleNode(b: BundleObject): Node {
  const jobs: Node[] = [];
  if (b.status?.build?.job)
    jobs.push({
      kind: 'Job',
      name: `${b.status.build.namespace}/${b.status.build.job}`,
      state: 'build',
      children: [],
    });
  if (b.status?.backup?.job)
    jobs.push({ kind: 'Job', name: b.status.backup.job, state: 'backup', children: [] });
  const ready = readyOf(b);
  return {
    kind: 'Bundle',
    name: b.metadata.name,
    state: `${b.status?.phase ?? 'Pending'}${ready ? ` ${ready.reason}` : ''}`,
    children: jobs,
  };
}

export async function projectTree(ctx: CliContext, name: string): Promise<Node> {
  const project = await readObject<ProjectObject>(ctx, 'Project', name);
  const ofProject = <T extends { spec: { projectRef: { name: string } } }>(items: T[]) =>
    items.filter((i) => i.spec.projectRef.name === name);
  const [webhooks, environments, bundles, previews] = await Promise.all([
    ctx.slipway.list<WebhookObject>('Webhook', ctx.namespace).then(ofProject),
    ctx.slipway.list<EnvironmentObject>('Environment', ctx.namespace).then(ofProject),
    ctx.slipway.list<BundleObject>('Bundle', ctx.namespace).then(ofProject),
    ctx.slipway.list<PreviewObject>('Preview', ctx.namespace).then(ofProject),
  ]);
  const environmentNodes = await Promise.all(
    environments.map(async (e) => ({
      kind: 'Environment',
      name: e.metadata.name,
      state: `${readyText(e)}${e.spec.suspend ? ' Suspended' : ''}`.trim(),
      children: [await deploymentNode(ctx, e.spec.deploymentRef.name)],
    })),
  );
  return {
    kind: 'Project',
    name,
    state: `${readyText(project)}${project.spec.suspend ? ' Suspended' : ''}`.trim(),
    children: [
      ...webhooks.map((w) => ({ kind: 'Webhook', name: w.metadata.name, state: readyText(w), children: [] })),
      ...environmentNodes,
      ...[...bundles].sort(newestFirst).map(bundleNode),
      ...previews.map((p) => ({
        kind: 'Preview',
        name: p.metadata.name,
        state: `${p.status?.phase ?? ''} ${p.status?.url ?? ''}`.trim(),
        children: [],
      })),
    ],
  };
}

/** The tree as `kubectl tree` and `flux tree` draw it. */
export function drawTree(node: Node, prefix = '', last = true, root = true): string[] {
  const line = `${root ? '' : `${prefix}${last ? '└── ' : '├── '}`}${node.kind}/${node.name}${node.state ? `  ${node.state}` : ''}`;
  const next = root ? '' : `${prefix}${last ? '    ' : '│   '}`;
  return [line, ...node.children.flatMap((c, i) => drawTree(c, next, i === node.children.length - 1, false))];
}

export const treeCommand: Command = {
  name: 'tree',
  summary: "a project's Webhooks, Environments (Deployment, pods), Bundles (Jobs) and Previews as a tree",
  usage: 'tree project <name> [-o json|yaml] [-n namespace]',
  help: `Reads with your own rights in the namespace. Bundles come newest first; a build Job runs in
Slipway's build namespace and is named as namespace/name.

Example: kubectl slipway -n shop tree project site`,
  completions: ['project'],
  async run(ctx, args) {
    const [kind, name] = positionals(args, ['kind', 'name']);
    kindOf(kind!, ['Project']);
    const tree = await projectTree(ctx, name!);
    if (printObject(ctx, tree)) return;
    ctx.out(drawTree(tree).join('\n'));
  },
};
