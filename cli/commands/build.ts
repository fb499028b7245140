// kubectl slipway build <project> --commit <sha>: a manual bundle of a commit, built with the
// base software, directory map and build steps of the project's latest manual bundle (as a push
// would be); --deploy rolls it out, --wait follows it.
import { newest } from '../../rules/bundle-order.ts';
import { newBundle, nameStamp } from '../../rules/new-bundle.ts';
import type { BundleObject, ProjectObject } from '../../crds/index.ts';
import { LABEL_SHARD, boundedName } from '../../crds/labels.ts';
import { followIfAsked, WAIT_OPTIONS } from '../bundles.ts';
import { readObject } from '../read.ts';
import { CommandError, UsageError } from '../errors.ts';
import { positionals, text, type Command } from './command.ts';

export const buildCommand: Command = {
  name: 'build',
  summary: 'build a commit (and deploy it) as a push would, with the settings of the latest manual bundle',
  usage:
    'build <project> --commit <sha> [--branch main] [--deploy <environment> [--backup]] [--comment text] [--wait [--timeout 30m]]',
  help: `Creates a manual Bundle of the commit, copying baseSoftware, directoryMap and buildSteps from the
project's newest manual bundle (create the first one with kubectl: docs/resources.md). Prints its
name on stdout. --deploy rolls it out to the environment (--backup backs its database up first);
--wait follows it like "kubectl slipway wait" and exits the same way.

Example: kubectl slipway build shop --commit 4f6c2a1 --deploy staging --backup --wait`,
  options: {
    commit: { type: 'string' },
    branch: { type: 'string' },
    deploy: { type: 'string' },
    backup: { type: 'boolean' },
    comment: { type: 'string' },
    ...WAIT_OPTIONS,
  },
  async run(ctx, args, values) {
    const [project] = positionals(args, ['project']);
    const commit = text(values, 'commit')?.toLowerCase();
    if (!commit) throw new UsageError('--commit is required');
    if (!/^[a-f0-9]{7,64}$/.test(commit))
      throw new UsageError(`--commit "${commit}" is not a commit id (7 to 64 hex digits)`);
    const environment = text(values, 'deploy');
    if (values.backup === true && !environment) throw new UsageError('--backup needs --deploy');
    const owner = await readObject<ProjectObject>(ctx, 'Project', project!);
    // People's manual bundles carry no project label: read them by spec.projectRef.
    const bundles = await ctx.slipway.list<BundleObject>('Bundle', ctx.namespace);
    const manual = newest(
      bundles.filter((b) => b.spec.projectRef.name === project && b.spec.trigger.type === 'Manual'),
    );
    if (!manual?.spec.baseSoftware || !manual.spec.directoryMap)
      throw new CommandError(
        `project ${project} has no manual bundle with baseSoftware and directoryMap to copy: create the first one with kubectl (docs/resources.md)`,
      );
    const branch = text(values, 'branch');
    const bundle = newBundle({
      name: boundedName(`${project}-${commit.slice(0, 7)}`, nameStamp(new Date()), 253),
      namespace: ctx.namespace,
      project: { name: project!, uid: owner.metadata.uid, shard: owner.metadata.labels?.[LABEL_SHARD] },
      source: { git: { commit, ...(branch ? { branch } : {}) } },
      comment:
        text(values, 'comment') ?? `built with kubectl slipway from ${manual.metadata.name}'s settings`,
      settingsFrom: manual,
      trigger: { type: 'Manual' },
      ...(environment ? { deploy: { environment, backupBeforeDeploy: values.backup === true } } : {}),
    });
    const created = await ctx.slipway.create('Bundle', bundle);
    ctx.out(created.metadata.name);
    return followIfAsked(ctx, created.metadata.name, values);
  },
};
