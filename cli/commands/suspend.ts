// kubectl slipway suspend|resume project|environment NAME: a freeze (spec.suspend). A suspended
// Project starts no build; a suspended Environment starts no backup or rollout; what is under way
// finishes, and what waits goes on when resumed (docs/resources.md#freeze-and-resume). The
// admission policies let only those with the verb deploy change it.
import type { BundleObject, EnvironmentObject, ProjectObject } from '../../crds/index.ts';
import { apiMessage } from '../../lib/kube.ts';
import type { CliContext } from '../context.ts';
import { CommandError } from '../errors.ts';
import { readObject } from '../read.ts';
import { kindCompletions, kindOf, positionals, type Command } from './command.ts';

const KINDS = ['Project', 'Environment'] as const;

/** The bundles that wait on this freeze (Ready reason Suspended). */
async function held(ctx: CliContext, kind: 'Project' | 'Environment', name: string): Promise<string[]> {
  const bundles = await ctx.slipway.list<BundleObject>('Bundle', ctx.namespace);
  return bundles
    .filter(
      (b) => (kind === 'Project' ? b.spec.projectRef.name : b.spec.deploy?.environmentRef.name) === name,
    )
    .filter((b) => b.status?.conditions?.some((c) => c.type === 'Ready' && c.reason === 'Suspended'))
    .map((b) => b.metadata.name);
}

async function setSuspend(ctx: CliContext, args: string[], suspend: boolean): Promise<void> {
  const [word, name] = positionals(args, ['kind', 'name']);
  const kind = kindOf(word!, KINDS);
  const object = await readObject<ProjectObject | EnvironmentObject>(ctx, kind, name!);
  const what = `${kind.toLowerCase()} ${name}`;
  if ((object.spec.suspend === true) === suspend) {
    ctx.out(name!);
    ctx.err(`${what} is ${suspend ? 'suspended' : 'not suspended'} already`);
    return;
  }
  const waiting = suspend ? [] : await held(ctx, kind, name!);
  try {
    await ctx.slipway.patch(kind, ctx.namespace, name!, { spec: { suspend: suspend ? true : null } });
  } catch (error) {
    const code = (error as { code?: number }).code;
    if (code === 403 || code === 422) throw new CommandError(apiMessage(error));
    throw error;
  }
  ctx.out(name!);
  if (suspend)
    ctx.err(
      kind === 'Project'
        ? `suspended ${what}: no new build starts (deliveries still make bundles); builds under way finish`
        : `suspended ${what}: no backup or rollout starts there; builds go on, and one under way finishes`,
    );
  else
    ctx.err(
      `resumed ${what}${waiting.length ? `: ${waiting.length} bundle${waiting.length === 1 ? '' : 's'} waiting go on (${waiting.join(', ')})` : ''}`,
    );
}

const usage = (verb: string) => `${verb} project|environment <name> [-n namespace]`;

export const suspendCommand: Command = {
  name: 'suspend',
  summary: 'freeze a project (no new builds) or an environment (no backups or rollouts)',
  usage: usage('suspend'),
  help: `Sets spec.suspend. A suspended project starts no build: deliveries still make bundles (the
gateway answers "suspended": true), which build on resume. A suspended environment starts no
backup or rollout, while builds go on; on resume the newest bundle waiting rolls out. What is
under way finishes either way. Needs the verb deploy on the environment (for a project, on the
namespace's environments).

Example: kubectl slipway -n shop suspend environment production`,
  completions: kindCompletions(KINDS),
  run: (ctx, args) => setSuspend(ctx, args, true),
};

export const resumeCommand: Command = {
  name: 'resume',
  summary: 'lift a freeze: what waits on it goes on',
  usage: usage('resume'),
  help: `Removes spec.suspend and names the bundles that were waiting on the freeze.

Example: kubectl slipway -n shop resume environment production`,
  completions: kindCompletions(KINDS),
  run: (ctx, args) => setSuspend(ctx, args, false),
};
