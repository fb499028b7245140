// kubectl slipway reconcile KIND NAME [--wait]: ask the operator to look at an object again now
// (annotation slipway.dev/requested-at, as Flux's reconcile.fluxcd.io/requestedAt): a Project's
// Secrets are read afresh, an Environment's Deployment, database Secret and claim looked at
// again, a waiting bundle's wait decided again. --wait until status.lastHandledReconcileAt shows
// the request, then prints Ready.
import { ANNOTATION_REQUESTED_AT } from '../../crds/labels.ts';
import type { Condition } from '../../crds/index.ts';
import { isFinished } from '../../rules/bundle-outcome.ts';
import type { BundleObject } from '../../crds/index.ts';
import { CommandError } from '../errors.ts';
import { readObject } from '../read.ts';
import { duration, kindCompletions, kindOf, positionals, text, type Command } from './command.ts';

const KINDS = ['Project', 'Environment', 'Webhook', 'Bundle', 'Preview'] as const;

type Reconcilable = {
  metadata: { annotations?: Record<string, string> };
  status?: { lastHandledReconcileAt?: string; conditions?: Condition[] };
};

export const reconcileCommand: Command = {
  name: 'reconcile',
  summary: 'make the operator look at a project, environment, webhook, bundle or preview again now',
  usage: 'reconcile project|environment|webhook|bundle|preview <name> [--wait [--timeout 1m]]',
  help: `Sets the annotation ${ANNOTATION_REQUESTED_AT} to the time now; the operator acts on the object
at once (a Project's Secrets are read again, not taken from its 30 s cache) and records the value
in status.lastHandledReconcileAt. With --wait, waits for that (default --timeout 1m), then
prints the Ready condition; exit 0 when it is True, 1 when not, 3 on timeout. A bundle that has
finished is not looked at again.

Example: kubectl slipway -n shop reconcile environment production --wait`,
  options: { wait: { type: 'boolean' }, timeout: { type: 'string' } },
  completions: kindCompletions(KINDS),
  async run(ctx, args, values) {
    const [word, name] = positionals(args, ['kind', 'name']);
    const kind = kindOf(word!, KINDS);
    const object = await readObject<Reconcilable>(ctx, kind, name!);
    if (kind === 'Bundle' && isFinished(object as unknown as BundleObject))
      throw new CommandError(`bundle ${name} has finished: there is nothing to look at again`);
    const requested = new Date().toISOString();
    await ctx.slipway.patch(kind, ctx.namespace, name!, {
      metadata: { annotations: { [ANNOTATION_REQUESTED_AT]: requested } },
    });
    ctx.out(name!);
    if (values.wait !== true) {
      ctx.err(`asked the operator to look at ${kind.toLowerCase()} ${name} again`);
      return 0;
    }
    const deadline = Date.now() + duration(text(values, 'timeout'), 60_000);
    for (;;) {
      const now = await readObject<Reconcilable>(ctx, kind, name!);
      if (now.status?.lastHandledReconcileAt === requested) {
        const ready = now.status.conditions?.find((c) => c.type === 'Ready');
        ctx.err(
          `${kind.toLowerCase()} ${name} looked at again: Ready ${ready?.status ?? 'Unknown'}${ready ? ` (${ready.reason}): ${ready.message}` : ''}`,
        );
        return ready?.status === 'True' ? 0 : 1;
      }
      if (Date.now() >= deadline) {
        ctx.err(
          `the operator did not look at ${kind.toLowerCase()} ${name} within the timeout (is it running?)`,
        );
        return 3;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  },
};
