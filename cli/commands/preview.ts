// kubectl slipway preview list|approve|remove: the previews of pull requests (docs/previews.md).
// "approve" sets spec.approvedCommit to the head commit the Preview has now, only if that is the
// whole commit the reviewer read (--commit, every digit: a commit with chosen first digits is made
// in minutes) and only while it still is (a JSON patch that tests it): the admission policy
// slipway-writers allows it only with the verb approve on previews.
// "remove" deletes the Preview, and with it what serves it.
import type { PreviewObject } from '../../crds/index.ts';
import { apiMessage } from '../../lib/kube.ts';
import { previewName } from '../../rules/preview-names.ts';
import type { CliContext } from '../context.ts';
import { CommandError, UsageError } from '../errors.ts';
import { age, printList, type Column } from '../print.ts';
import { listInScope, noneInScope, readObject, readyOf } from '../read.ts';
import { positionals, text, type Command } from './command.ts';

const columns = (allNamespaces: boolean): Column<PreviewObject>[] => [
  ...(allNamespaces ? [{ header: 'NAMESPACE', value: (p: PreviewObject) => p.metadata.namespace }] : []),
  { header: 'NAME', value: (p) => p.metadata.name },
  { header: 'PROJECT', value: (p) => p.spec.projectRef.name },
  { header: 'PR', value: (p) => String(p.spec.number) },
  { header: 'BRANCH', value: (p) => p.spec.branch },
  { header: 'COMMIT', value: (p) => p.spec.headCommit.slice(0, 12) },
  { header: 'FORK', value: (p) => (p.spec.fork ? 'yes' : 'no') },
  { header: 'PHASE', value: (p) => p.status?.phase ?? '' },
  { header: 'URL', value: (p) => p.status?.url ?? '' },
  { header: 'REASON', value: (p) => readyOf(p)?.reason ?? '', wide: true },
  { header: 'TITLE', value: (p) => (p.spec.title ?? '').slice(0, 60), wide: true },
  { header: 'AGE', value: (p) => age(p.metadata.creationTimestamp) },
];

/** The Preview a project and pull request number name. */
function named(args: string[]): string {
  const [project, number] = positionals(args, ['project', 'number']);
  const n = Number(number);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`"${number}" is not a pull request number`);
  return previewName(project!, n);
}

async function approve(ctx: CliContext, name: string, reviewed: string | undefined): Promise<void> {
  const preview = await readObject<PreviewObject>(ctx, 'Preview', name);
  const head = preview.spec.headCommit;
  if (!preview.spec.fork) {
    ctx.err(`preview ${name} is not from a fork: it builds without an approval`);
    return;
  }
  if (reviewed === undefined)
    throw new UsageError(
      `preview ${name} is from a fork: name the whole commit you read with --commit (its ${head.length} hex digits)`,
    );
  if (!/^([0-9a-f]{40}|[0-9a-f]{64})$/i.test(reviewed))
    throw new UsageError(
      `--commit ${reviewed}: name the whole commit you read (40 hex digits, 64 for SHA-256), not its first digits: a commit with chosen first digits is made in minutes`,
    );
  if (reviewed.toLowerCase() !== head)
    throw new CommandError(
      `preview ${name}: its head commit is ${head}, not ${reviewed}: a push came after the commit you read; read it, then approve again`,
    );
  if (preview.spec.approvedCommit === head) {
    ctx.err(`preview ${name}: head commit ${head.slice(0, 12)} is approved already`);
    return;
  }
  try {
    // Only while the head is the commit read: a push in between is not approved unseen.
    await ctx.slipway.jsonPatch('Preview', ctx.namespace, name, [
      { op: 'test', path: '/spec/headCommit', value: head },
      { op: 'add', path: '/spec/approvedCommit', value: head },
    ]);
  } catch (error) {
    const code = (error as { code?: number }).code;
    if (code === 422 && /test/i.test(apiMessage(error)))
      throw new CommandError(
        `preview ${name}: a push came meanwhile: look at its new head commit, then approve again`,
      );
    if (code === 403 || code === 422) throw new CommandError(apiMessage(error));
    throw error;
  }
  ctx.out(name);
  ctx.err(
    `approved head commit ${head.slice(0, 12)} of pull request #${preview.spec.number} (${preview.spec.branch}): it is built now; a new push needs approving again`,
  );
}

export const previewCommand: Command = {
  name: 'preview',
  summary: 'list, approve and remove the previews of pull requests',
  usage: `preview list [-A] [-o wide|json|yaml]
       kubectl slipway preview approve <project> <number> --commit <sha>
       kubectl slipway preview remove <project> <number>`,
  help: `"approve" lets a fork's pull request be built (Project spec.previews.forks: Approve): it
approves the head commit the Preview has now, only if that is the commit you read, named whole
with --commit (every digit: a commit with chosen first digits is made in minutes), and needs the
verb approve on previews.slipway.dev. A push after your review is refused, not approved unseen; a
new push to the pull request needs approving again. "remove" deletes the Preview and what serves
it; the next delivery of the pull request makes it again.

Example: kubectl slipway -n shop preview approve site 42 --commit 3f2a9c1e5d0b8a7c6f4e2d1b0a9c8e7f6d5c4b3a`,
  options: { commit: { type: 'string' } },
  completions: ['list', 'approve', 'remove'],
  async run(ctx, args, values) {
    const [action, ...rest] = args;
    switch (action) {
      case 'list': {
        positionals(rest, []);
        const previews = await listInScope<PreviewObject>(ctx, 'Preview');
        previews.sort(
          (a, b) =>
            a.spec.projectRef.name.localeCompare(b.spec.projectRef.name) || a.spec.number - b.spec.number,
        );
        printList(ctx, previews, columns(ctx.allNamespaces), noneInScope(ctx, 'previews'));
        return;
      }
      case 'approve':
        return approve(ctx, named(rest), text(values, 'commit'));
      case 'remove': {
        const name = named(rest);
        await readObject<PreviewObject>(ctx, 'Preview', name);
        await ctx.slipway.delete('Preview', ctx.namespace, name);
        ctx.out(name);
        ctx.err(`removed preview ${name}: its Deployment, Services and Ingress go with it`);
        return;
      }
      default:
        throw new UsageError(
          action === undefined
            ? 'missing action: list, approve or remove'
            : `unknown action "${action}": list, approve or remove`,
        );
    }
  },
};
