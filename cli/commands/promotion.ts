// kubectl slipway promotion list|approve|wait: the namespace's promotions (docs/promotion.md).
// "approve" appends {user: you} to spec.approvals; the admission policy slipway-writers takes it
// only from a user with the verb approve on promotions, each user once, and not from the
// requester when gates.separateApprover is set.
import type { PromotionObject } from '../../crds/index.ts';
import { apiMessage } from '../../lib/kube.ts';
import type { CliContext } from '../context.ts';
import { CommandError, UsageError } from '../errors.ts';
import { age, printList, type Column } from '../print.ts';
import { followPromotion, promotionLine, whoAmI } from '../promotions.ts';
import { listInScope, noneInScope, readObject, readyOf } from '../read.ts';
import { WAIT_OPTIONS } from '../bundles.ts';
import { duration, positionals, text, type Command } from './command.ts';

const columns = (allNamespaces: boolean): Column<PromotionObject>[] => [
  ...(allNamespaces ? [{ header: 'NAMESPACE', value: (p: PromotionObject) => p.metadata.namespace }] : []),
  { header: 'NAME', value: (p) => p.metadata.name },
  { header: 'PROJECT', value: (p) => p.spec.projectRef.name },
  { header: 'FROM', value: (p) => p.spec.from.environmentRef.name },
  { header: 'TO', value: (p) => p.spec.to.environmentRef.name },
  { header: 'BUNDLE', value: (p) => p.status?.bundle ?? p.spec.bundleRef?.name ?? '' },
  { header: 'PHASE', value: (p) => p.status?.phase ?? '' },
  { header: 'REASON', value: (p) => readyOf(p)?.reason ?? '' },
  { header: 'APPROVALS', value: (p) => (p.status?.approvals ?? []).map((a) => a.user).join(','), wide: true },
  { header: 'MESSAGE', value: (p) => (readyOf(p)?.message ?? '').slice(0, 100), wide: true },
  { header: 'AGE', value: (p) => age(p.metadata.creationTimestamp) },
];

async function approve(ctx: CliContext, name: string): Promise<void> {
  const user = await whoAmI(ctx);
  // Appended while the list is what was read (a JSON patch that tests it): a concurrent approval
  // is read again, never overwritten.
  for (let attempt = 1; ; attempt++) {
    const promotion = await readObject<PromotionObject>(ctx, 'Promotion', name);
    const phase = promotion.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed' || phase === 'Promoting')
      throw new CommandError(`promotion ${name} is ${phase}: there is nothing left to approve`);
    const approvals = promotion.spec.approvals;
    if (approvals?.some((a) => a.user === user)) {
      ctx.err(`promotion ${name}: ${user} approved it already`);
      return;
    }
    try {
      await ctx.slipway.jsonPatch(
        'Promotion',
        ctx.namespace,
        name,
        approvals
          ? [
              { op: 'test', path: '/spec/approvals', value: approvals },
              { op: 'add', path: '/spec/approvals/-', value: { user } },
            ]
          : [
              { op: 'test', path: '/spec/requestedBy', value: promotion.spec.requestedBy },
              { op: 'add', path: '/spec/approvals', value: [{ user }] },
            ],
      );
      break;
    } catch (error) {
      const code = (error as { code?: number }).code;
      const changed = code === 422 && /test|only added/i.test(apiMessage(error));
      if (changed && attempt < 5) continue;
      if (code === 403 || code === 422) throw new CommandError(apiMessage(error));
      throw error;
    }
  }
  ctx.out(name);
  ctx.err(`approved promotion ${name} as ${user}`);
}

export const promotionCommand: Command = {
  name: 'promotion',
  summary: 'list, approve and follow promotions',
  usage: `promotion list [-A] [-o wide|json|yaml]
       kubectl slipway promotion approve <name>
       kubectl slipway promotion wait <name> [--timeout 30m]`,
  help: `"approve" adds your approval (spec.approvals) to a waiting promotion: it needs the verb approve
on promotions.slipway.dev, and counts once per user (not the requester's with separateApprover).
"wait" prints the promotion's gates as they change and exits 0 when the target runs the image.

Example: kubectl slipway -n shop promotion approve staging-to-production-20261128170500`,
  options: { timeout: WAIT_OPTIONS.timeout },
  completions: ['list', 'approve', 'wait'],
  async run(ctx, args, values) {
    const [action, ...rest] = args;
    switch (action) {
      case 'list': {
        positionals(rest, []);
        const promotions = await listInScope<PromotionObject>(ctx, 'Promotion');
        promotions.sort((a, b) =>
          (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''),
        );
        printList(ctx, promotions, columns(ctx.allNamespaces), noneInScope(ctx, 'promotions'));
        return;
      }
      case 'approve': {
        const [name] = positionals(rest, ['name']);
        return approve(ctx, name!);
      }
      case 'wait': {
        const [name] = positionals(rest, ['name']);
        const promotion = await readObject<PromotionObject>(ctx, 'Promotion', name!);
        ctx.err(`promotion ${name}: ${promotionLine(promotion)}`);
        return followPromotion(ctx, name!, duration(text(values, 'timeout'), 30 * 60_000));
      }
      default:
        throw new UsageError(
          action === undefined
            ? 'missing action: list, approve or wait'
            : `unknown action "${action}": list, approve or wait`,
        );
    }
  },
};
