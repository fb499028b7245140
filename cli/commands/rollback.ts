// kubectl slipway rollback <environment> [--to <bundle>]: put a previous good bundle's image back
// (a Rollback bundle: no build; the operator's ordering rules still hold).
import { LABEL_SHARD } from '../../crds/labels.ts';
import { isNewer, newestFirst } from '../../rules/bundle-order.ts';
import type { BundleObject, EnvironmentObject, ProjectObject } from '../../crds/index.ts';
import { rollbackBundle } from '../../rules/rollback.ts';
import { followIfAsked, WAIT_OPTIONS } from '../bundles.ts';
import { readObject } from '../read.ts';
import { CommandError } from '../errors.ts';
import { positionals, text, type Command } from './command.ts';

/** Bundles rolled out to `environment` successfully, newest first. */
export function deployedTo(bundles: BundleObject[], environment: string): BundleObject[] {
  return bundles
    .filter((b) => b.spec.deploy?.environmentRef.name === environment && b.status?.phase === 'Ready')
    .sort(newestFirst);
}

export const rollbackCommand: Command = {
  name: 'rollback',
  summary: 'put the previous good bundle (or --to a given one) back on an environment, without a rebuild',
  usage: 'rollback <environment> [--to <bundle>] [--backup] [--wait [--timeout 30m]]',
  help: `Creates a Rollback bundle that rolls out the image an earlier bundle built: by default the
newest bundle that reached Ready on the environment before the one it runs now. --backup backs
the database up first. Prints the new bundle's name; --wait follows it.`,
  options: {
    to: { type: 'string' },
    backup: { type: 'boolean' },
    ...WAIT_OPTIONS,
  },
  async run(ctx, args, values) {
    const [name] = positionals(args, ['environment']);
    const environment = await readObject<EnvironmentObject>(ctx, 'Environment', name!);
    const project = environment.spec.projectRef.name;
    const { uid: projectUid, labels } = (await readObject<ProjectObject>(ctx, 'Project', project)).metadata;
    const bundles = (await ctx.slipway.list<BundleObject>('Bundle', ctx.namespace)).filter(
      (b) => b.spec.projectRef.name === project,
    );
    // A rollback bundle stands for the bundle whose image it reuses (a promotion's bundle ran
    // here itself: it stands for itself).
    const sourceOf = (b: BundleObject): BundleObject => {
      const ref = b.spec.trigger.type === 'Rollback' ? b.spec.source.bundleRef?.name : undefined;
      const source = ref === undefined ? undefined : bundles.find((x) => x.metadata.name === ref);
      return source ?? b;
    };
    let target: BundleObject | undefined;
    const asked = text(values, 'to');
    if (asked === undefined) {
      // The newest good bundle deployed here before the one whose image runs now.
      const current = environment.status?.currentBundle;
      const running = bundles.find((b) => b.metadata.name === current);
      const runningSource = running ? sourceOf(running) : undefined;
      target = deployedTo(bundles, name!)
        .map(sourceOf)
        .find((b) => !runningSource || (b !== runningSource && isNewer(runningSource, b)));
      if (!target)
        throw new CommandError(
          `environment ${name} has no good bundle older than the one it runs (${current ?? 'none'}) to go back to`,
        );
    } else {
      const named = bundles.find((b) => b.metadata.name === asked);
      if (!named)
        throw new CommandError(`bundle ${asked} of project ${project} not found in ${ctx.namespace}`);
      target = sourceOf(named);
    }
    if (!target.status?.image)
      throw new CommandError(
        `bundle ${target.metadata.name} has no image to roll out (phase ${target.status?.phase ?? 'Pending'})`,
      );
    const to = target.metadata.name;
    const created = await ctx.slipway.create(
      'Bundle',
      rollbackBundle({
        namespace: ctx.namespace,
        project,
        projectUid,
        projectShard: labels?.[LABEL_SHARD],
        to,
        environment: name!,
        backupBeforeDeploy: values.backup === true,
        comment: `rollback of ${name} to bundle ${to} with kubectl slipway`,
      }),
    );
    ctx.out(created.metadata.name);
    return followIfAsked(ctx, created.metadata.name, values);
  },
};
