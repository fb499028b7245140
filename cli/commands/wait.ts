// kubectl slipway wait <bundle>: until the bundle's chain ends (build, backup, rollout).
import { followBundle } from '../bundles.ts';
import { duration, positionals, text, type Command } from './command.ts';

export const waitCommand: Command = {
  name: 'wait',
  summary: 'wait until a bundle is built and deployed; exit 1 with the reason when it fails',
  usage: 'wait <bundle> [--timeout 30m] [-n namespace]',
  help: `Prints each phase as it happens (on stderr). Exit 0 when the bundle ended Ready (or Built,
without a deployment), 1 when it failed or was superseded, 3 when --timeout (default 30m) passed.`,
  options: { timeout: { type: 'string' } },
  async run(ctx, args, values) {
    const [name] = positionals(args, ['bundle']);
    return followBundle(ctx, ctx.namespace, name!, duration(text(values, 'timeout'), 30 * 60_000));
  },
};
