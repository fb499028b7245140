// kubectl slipway history <environment>: the bundles rolled out (or tried) there, newest first.
import { newestFirst } from '../../rules/bundle-order.ts';
import type { BundleObject, EnvironmentObject } from '../../crds/index.ts';
import { readObject, readyOf } from '../read.ts';
import { commitOf } from '../bundles.ts';
import { printList, type Column } from '../print.ts';
import { positionals, type Command } from './command.ts';

const columns: Column<BundleObject>[] = [
  { header: 'BUNDLE', value: (b) => b.metadata.name },
  { header: 'TRIGGER', value: (b) => b.spec.trigger.type },
  { header: 'COMMIT', value: commitOf },
  { header: 'RESULT', value: (b) => b.status?.phase ?? 'Pending' },
  {
    header: 'WHEN',
    value: (b) =>
      (b.status?.finishedAt ?? b.metadata.creationTimestamp ?? '').toString().slice(0, 19).replace('T', ' '),
  },
  { header: 'BACKUP', value: (b) => b.status?.backup?.location ?? '' },
  { header: 'COMMENT', value: (b) => (b.spec.comment ?? '').split('\n')[0]!.slice(0, 50) },
  { header: 'REASON', value: (b) => readyOf(b)?.reason ?? '', wide: true },
  { header: 'IMAGE', value: (b) => b.status?.image ?? '', wide: true },
];

export const historyCommand: Command = {
  name: 'history',
  summary: 'deployments to an environment: bundle, commit, comment, when, result, backup location',
  usage: 'history <environment> [-o wide|json|yaml]',
  help: 'Every bundle that names the environment in spec.deploy, newest first (times in UTC).',
  async run(ctx, args) {
    const [environment] = positionals(args, ['environment']);
    await readObject<EnvironmentObject>(ctx, 'Environment', environment!);
    const bundles = (await ctx.slipway.list<BundleObject>('Bundle', ctx.namespace))
      .filter((b) => b.spec.deploy?.environmentRef.name === environment)
      .sort(newestFirst);
    printList(
      ctx,
      bundles,
      columns,
      `No bundle has been deployed to ${environment} in namespace ${ctx.namespace}.`,
    );
  },
};
