// kubectl slipway promote <from> <to> [--bundle B]: a Promotion of what <from> runs (or bundle B,
// which ran there) to <to>, asked for by you (docs/promotion.md). It rolls out the same image, by
// digest, once the gates hold: those of the target Environment's spec.promoteFrom, and --soak,
// --approvals and --separate-approver.
import { boundedName } from '../../crds/labels.ts';
import type { EnvironmentObject, PromotionObject, PromotionGates } from '../../crds/index.ts';
import { API_VERSION } from '../../crds/index.ts';
import { nameStamp } from '../../rules/new-bundle.ts';
import { WAIT_OPTIONS } from '../bundles.ts';
import { CommandError, UsageError } from '../errors.ts';
import { followPromotion, whoAmI } from '../promotions.ts';
import { readObject } from '../read.ts';
import { duration, positionals, text, type Command } from './command.ts';

export const promoteCommand: Command = {
  name: 'promote',
  summary: 'move the image an environment runs to another, the same digest, once its gates hold',
  usage:
    'promote <from> <to> [--bundle <bundle>] [--backup] [--soak 30m] [--component <name>]... [--no-incident] [--outside-maintenance] [--approvals N] [--separate-approver] [--wait [--timeout 30m]]',
  help: `Creates a Promotion (spec.requestedBy: you) of the bundle <from> runs now (named in
spec.bundleRef, so approvers approve that one), or --bundle, which must have run there. No build: <to> gets the same image by digest once the gates hold — --soak
(the bundle ran on <from>, Ready, that long), --no-incident and --outside-maintenance (no open
incident, no maintenance underway on the --component StatusComponents, or on any), --approvals
(people with the verb approve on promotions: kubectl slipway promotion approve), and whatever
<to>'s spec.promoteFrom.gates require. Needs the verb deploy on <to>. Prints the Promotion's
name; --wait follows it and exits 0 when <to> runs the image.

Example: kubectl slipway -n shop promote staging production --soak 30m --no-incident --component api --approvals 1`,
  options: {
    bundle: { type: 'string' },
    backup: { type: 'boolean' },
    soak: { type: 'string' },
    component: { type: 'string', multiple: true },
    'no-incident': { type: 'boolean' },
    'outside-maintenance': { type: 'boolean' },
    approvals: { type: 'string' },
    'separate-approver': { type: 'boolean' },
    ...WAIT_OPTIONS,
  },
  async run(ctx, args, values) {
    const [from, to] = positionals(args, ['from', 'to']);
    if (from === to) throw new UsageError('from and to must be different environments');
    const source = await readObject<EnvironmentObject>(ctx, 'Environment', from!);
    await readObject<EnvironmentObject>(ctx, 'Environment', to!);
    // Named now, so approvers approve the bundle that was asked for, whatever comes to <from> next.
    const bundle = text(values, 'bundle') ?? source.status?.currentBundle;
    if (!bundle) throw new CommandError(`environment ${from} runs no bundle yet: nothing to promote`);
    const now = new Date();
    const promotion: PromotionObject = {
      apiVersion: API_VERSION,
      kind: 'Promotion',
      metadata: { name: boundedName(`${from}-to-${to}`, nameStamp(now), 253), namespace: ctx.namespace },
      spec: {
        projectRef: { name: source.spec.projectRef.name },
        from: { environmentRef: { name: from! } },
        bundleRef: { name: bundle },
        to: { environmentRef: { name: to! } },
        ...(values.backup === true ? { backupBeforeDeploy: true } : {}),
        ...gatesOf(values),
        requestedBy: await whoAmI(ctx),
      },
    };
    const created = await ctx.slipway.create('Promotion', promotion);
    ctx.out(created.metadata.name);
    if (values.wait !== true) return undefined;
    return followPromotion(ctx, created.metadata.name, duration(text(values, 'timeout'), 30 * 60_000));
  },
};

function gatesOf(values: Record<string, unknown>): { gates?: PromotionGates } {
  const gates: PromotionGates = {};
  const soak = typeof values.soak === 'string' ? values.soak : undefined;
  if (soak !== undefined) gates.soakMinutes = Math.ceil(duration(soak, 0) / 60_000);
  const components = Array.isArray(values.component) ? (values.component as string[]) : [];
  if (components.length > 0) gates.components = components.map((name) => ({ name }));
  if (values['no-incident'] === true) gates.noOpenIncident = true;
  if (values['outside-maintenance'] === true) gates.outsideMaintenance = true;
  if (typeof values.approvals === 'string') {
    const n = Number(values.approvals);
    if (!Number.isInteger(n) || n < 0 || n > 16)
      throw new UsageError(`--approvals ${values.approvals}: 0 to 16`);
    gates.approvals = n;
  }
  if (values['separate-approver'] === true) gates.separateApprover = true;
  return Object.keys(gates).length > 0 ? { gates } : {};
}
