// kubectl slipway get [projects|environments|bundles]: a readable summary across the kinds.
import { stringify } from 'yaml';
import { newestFirst } from '../../rules/bundle-order.ts';
import type { BundleObject, EnvironmentObject, ProjectObject } from '../../crds/index.ts';
import { kindDefinition } from '../../lib/kube.ts';
import { commitOf } from '../bundles.ts';
import { readyOf } from '../read.ts';
import type { CliContext } from '../context.ts';
import { UsageError } from '../errors.ts';
import { age, table, type Column } from '../print.ts';
import { positionals, type Command } from './command.ts';

const namespaceColumn = {
  header: 'NAMESPACE',
  value: (o: { metadata: { namespace: string } }) => o.metadata.namespace,
};

const projectColumns: Column<ProjectObject>[] = [
  { header: 'NAME', value: (p) => p.metadata.name },
  { header: 'SLUG', value: (p) => p.status?.slug ?? p.spec.slug ?? '' },
  { header: 'READY', value: (p) => readyOf(p)?.status ?? '' },
  { header: 'REASON', value: (p) => readyOf(p)?.reason ?? '' },
  { header: 'AGE', value: (p) => age(p.metadata.creationTimestamp) },
  { header: 'REPOSITORY', value: (p) => p.spec.repository?.url ?? '', wide: true },
];

const environmentColumns: Column<EnvironmentObject>[] = [
  { header: 'NAME', value: (e) => e.metadata.name },
  { header: 'PROJECT', value: (e) => e.spec.projectRef.name },
  { header: 'DEPLOYMENT', value: (e) => e.spec.deploymentRef.name },
  { header: 'BUNDLE', value: (e) => e.status?.currentBundle ?? '' },
  {
    header: 'SINCE',
    value: (e) => {
      const last = e.status?.lastDeployment;
      return last && last.bundle === e.status?.currentBundle && last.finishedAt ? age(last.finishedAt) : '';
    },
  },
  { header: 'READY', value: (e) => readyOf(e)?.status ?? '' },
  { header: 'REASON', value: (e) => readyOf(e)?.reason ?? '' },
  {
    header: 'LAST ROLLOUT',
    value: (e) =>
      e.status?.lastDeployment ? `${e.status.lastDeployment.bundle} ${e.status.lastDeployment.result}` : '',
    wide: true,
  },
];

const bundleColumns: Column<BundleObject>[] = [
  { header: 'NAME', value: (b) => b.metadata.name },
  { header: 'PROJECT', value: (b) => b.spec.projectRef.name },
  { header: 'TRIGGER', value: (b) => b.spec.trigger.type },
  { header: 'COMMIT', value: commitOf },
  { header: 'ENVIRONMENT', value: (b) => b.spec.deploy?.environmentRef.name ?? '' },
  { header: 'PHASE', value: (b) => b.status?.phase ?? 'Pending' },
  { header: 'AGE', value: (b) => age(b.metadata.creationTimestamp) },
  { header: 'REASON', value: (b) => readyOf(b)?.reason ?? '', wide: true },
  { header: 'COMMENT', value: (b) => (b.spec.comment ?? '').split('\n')[0]!.slice(0, 60), wide: true },
];

const KINDS = {
  projects: { kind: 'Project', columns: projectColumns },
  environments: { kind: 'Environment', columns: environmentColumns },
  bundles: { kind: 'Bundle', columns: bundleColumns },
} as const;
type Plural = keyof typeof KINDS;
/** kubectl's names for each kind (from the CRD: plural, singular, short names), and env/envs. */
const ALIASES: Record<string, Plural> = Object.fromEntries([
  ...Object.entries(KINDS).flatMap(([plural, { kind }]) => {
    const { singular, shortNames } = kindDefinition(kind);
    return [plural, singular, ...shortNames].map((name) => [name, plural as Plural] as const);
  }),
  ['env', 'environments'],
  ['envs', 'environments'],
]);
const SHORT_NAMES = Object.values(KINDS)
  .flatMap(({ kind }) => kindDefinition(kind).shortNames)
  .join(', ');

async function list(
  ctx: CliContext,
  plural: Plural,
): Promise<Array<{ metadata: { name: string; namespace: string; creationTimestamp?: string } }>> {
  const items = await ctx.slipway.list<{
    metadata: { name: string; namespace: string; creationTimestamp?: string };
  }>(KINDS[plural].kind, ctx.allNamespaces ? undefined : ctx.namespace);
  return plural === 'bundles'
    ? items.sort((a, b) => a.metadata.namespace.localeCompare(b.metadata.namespace) || newestFirst(a, b))
    : items.sort(
        (a, b) =>
          a.metadata.namespace.localeCompare(b.metadata.namespace) ||
          a.metadata.name.localeCompare(b.metadata.name),
      );
}

function render(ctx: CliContext, plural: Plural, items: unknown[]): string {
  const columns = [
    ...(ctx.allNamespaces ? [namespaceColumn] : []),
    ...KINDS[plural].columns,
  ] as Column<unknown>[];
  return table(items, columns, ctx.output === 'wide');
}

export const getCommand: Command = {
  name: 'get',
  summary: 'projects, environments (the bundle each runs, since when) and bundles (phase, commit, trigger)',
  usage: 'get [projects|environments|bundles] [-n namespace | -A] [-o wide|json|yaml]',
  help: `Without a kind, prints all three, newest bundles first. Short names as kubectl's: ${SHORT_NAMES}.`,
  completions: ['projects', 'environments', 'bundles'],
  async run(ctx, args) {
    const [kind] = positionals(args, ['kind'], 1);
    let kinds: Plural[] = ['projects', 'environments', 'bundles'];
    if (kind !== undefined) {
      const plural = ALIASES[kind.toLowerCase()];
      if (!plural) throw new UsageError(`unknown kind "${kind}": projects, environments or bundles`);
      kinds = [plural];
    }
    const found = Object.fromEntries(
      await Promise.all(kinds.map(async (k) => [k, await list(ctx, k)] as const)),
    );
    if (ctx.output === 'json' || ctx.output === 'yaml') {
      const value = kinds.length === 1 ? { items: found[kinds[0]!] } : found;
      ctx.out(ctx.output === 'json' ? JSON.stringify(value, null, 2) : stringify(value).trimEnd());
      return;
    }
    const where = ctx.allNamespaces ? 'any namespace' : `namespace ${ctx.namespace}`;
    const sections = kinds.map((k) =>
      found[k]!.length === 0
        ? `No ${k} in ${where}.`
        : `${kinds.length > 1 ? `${k.toUpperCase()}\n` : ''}${render(ctx, k, found[k]!)}`,
    );
    ctx.out(sections.join('\n\n'));
  },
};
