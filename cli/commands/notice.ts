// kubectl slipway notice open|update|resolve|list: incidents, maintenance and announcements on
// the status page without writing YAML. Each change is one StatusNotice update, added with the
// object's resourceVersion so two people posting at once both land (a conflict is read again).
import { randomBytes } from 'node:crypto';
import { noticeFromObject, noticeAt } from '../../rules/notice-timeline.ts';
import { API_VERSION, noticeTypes, type StatusNoticeObject } from '../../crds/index.ts';
import { apiMessage, isConflict } from '../../lib/kube.ts';
import { listInScope, noneInScope, readObject } from '../read.ts';
import type { CliContext } from '../context.ts';
import { CommandError, UsageError } from '../errors.ts';
import { age, printList, type Column } from '../print.ts';
import { positionals, text, type Command, type Values } from './command.ts';

type Update = NonNullable<StatusNoticeObject['spec']['updates']>[number];
type NoticeState = NonNullable<Update['state']>;

/** How far apart two clocks may be: an update this close after now is taken as "now" elsewhere. */
const CLOCK_SKEW_MS = 5 * 60_000;
const FINAL: Record<string, NoticeState> = { unplanned: 'resolved', planned: 'complete' };
const FIRST: Record<string, NoticeState | undefined> = {
  unplanned: 'investigating',
  planned: 'scheduled',
  general: undefined,
};

function time(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw new UsageError(`--${flag} "${value}" is not a time (e.g. 2026-12-01T02:00:00Z)`);
  return new Date(ms).toISOString();
}

const state = (values: Values) => text(values, 'state') as NoticeState | undefined;

const read = (ctx: CliContext, name: string) => readObject<StatusNoticeObject>(ctx, 'StatusNotice', name);

/** Appends an update, retrying when someone else changed the notice in between. */
async function append(
  ctx: CliContext,
  name: string,
  update: (notice: StatusNoticeObject) => Omit<Update, 'at'>,
) {
  for (let attempt = 0; ; attempt++) {
    const notice = await read(ctx, name);
    // The page orders updates by time: one stamped a little earlier than the latest (this
    // machine's clock behind another's) would not become the notice's state, so it goes just
    // after it. An update scheduled well ahead (over CLOCK_SKEW_MS) stays ahead of this one.
    const now = Date.now();
    const latest = Math.max(0, ...(notice.spec.updates ?? []).map((u) => Date.parse(u.at) || 0));
    const at = new Date(latest >= now && latest - now <= CLOCK_SKEW_MS ? latest + 1 : now).toISOString();
    const updates = [...(notice.spec.updates ?? []), { ...update(notice), at }];
    try {
      return await ctx.slipway.patch<StatusNoticeObject>('StatusNotice', ctx.namespace, name, {
        metadata: { resourceVersion: notice.metadata.resourceVersion },
        spec: { updates },
      });
    } catch (error) {
      if (isConflict(error) && attempt < 5) continue;
      if ((error as { code?: number }).code === 422)
        throw new CommandError(`the API server refused the update: ${apiMessage(error)}`);
      throw error;
    }
  }
}

function summary(ctx: CliContext, notice: StatusNoticeObject, verb: string) {
  ctx.out(notice.metadata.name);
  ctx.err(`${verb} ${notice.spec.type} notice ${notice.metadata.name}: "${notice.spec.subject}"`);
}

const listColumns = (now: Date, allNamespaces: boolean): Column<StatusNoticeObject>[] => [
  ...(allNamespaces
    ? [{ header: 'NAMESPACE', value: (n: StatusNoticeObject) => n.metadata.namespace ?? '' }]
    : []),
  { header: 'NAME', value: (n) => n.metadata.name },
  { header: 'ID', value: (n) => String(n.status?.id ?? n.spec.id ?? '') },
  { header: 'TYPE', value: (n) => n.spec.type },
  {
    header: 'STATE',
    value: (n) => {
      const model = noticeFromObject(n);
      return model ? (noticeAt(model, now).state ?? '') : '';
    },
  },
  {
    header: 'TIMELINE',
    value: (n) => {
      const model = noticeFromObject(n);
      return model ? noticeAt(model, now).timelineState : '';
    },
  },
  { header: 'SUBJECT', value: (n) => n.spec.subject.slice(0, 60) },
  { header: 'AGE', value: (n) => age(n.metadata.creationTimestamp) },
];

export const noticeCommand: Command = {
  name: 'notice',
  summary: 'open, update, resolve and list incidents, maintenance and announcements on the status page',
  usage: `notice open --type unplanned|planned|general --subject <text> [--message <text>] [--state <state>]
                     [--component <name>]... [--begins <time> --ends <time>] [--name <object name>]
       kubectl slipway notice update <notice> --message <text> [--state <state>]
       kubectl slipway notice resolve <notice> [--message <text>]
       kubectl slipway notice list [-A] [-o wide|json|yaml]`,
  help: `Works on the StatusNotice objects of the namespace (-n) of the status page.
States: unplanned investigating|identified|recovering|resolved|false_alarm;
planned scheduled|underway|complete|cancelled; general has none. A planned notice needs --begins
and --ends. "resolve" posts the final state (resolved, or complete for maintenance).

Example: kubectl slipway -n acme-status notice open --type unplanned --subject "Slow queries on MySQL" \\
           --component databases --message "We are looking into slow queries."
         kubectl slipway -n acme-status notice update slow-queries-on-mysql-1a2b --state identified \\
           --message "A noisy neighbour saturates disk I/O."`,
  options: {
    type: { type: 'string' },
    subject: { type: 'string' },
    message: { type: 'string' },
    state: { type: 'string' },
    component: { type: 'string', multiple: true },
    begins: { type: 'string' },
    ends: { type: 'string' },
    name: { type: 'string' },
  },
  completions: ['open', 'update', 'resolve', 'list'],
  async run(ctx, args, values) {
    const [action, ...rest] = args;
    const now = new Date();
    switch (action) {
      case 'open': {
        positionals(rest, []);
        const type = text(values, 'type') as StatusNoticeObject['spec']['type'] | undefined;
        if (!type || !noticeTypes.includes(type))
          throw new UsageError('--type must be unplanned, planned or general');
        const subject = text(values, 'subject');
        if (!subject) throw new UsageError('--subject is required');
        const beginsAt = time(text(values, 'begins'), 'begins');
        const endsAt = time(text(values, 'ends'), 'ends');
        if (type === 'planned' && (!beginsAt || !endsAt))
          throw new UsageError('a planned notice needs --begins and --ends');
        const message = text(values, 'message');
        const first = state(values) ?? FIRST[type];
        const slug =
          subject
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, '-')
            .replace(/^-+|-+$/g, '')
            .slice(0, 40) || 'notice';
        const notice: StatusNoticeObject = {
          apiVersion: API_VERSION,
          kind: 'StatusNotice',
          metadata: {
            name: text(values, 'name') ?? `${slug}-${randomBytes(2).toString('hex')}`,
            namespace: ctx.namespace,
          },
          spec: {
            type,
            subject,
            ...(beginsAt ? { beginsAt } : {}),
            ...(endsAt ? { endsAt } : {}),
            componentRefs: ((values.component as unknown as string[] | undefined) ?? []).map((name) => ({
              name,
            })),
            tags: [],
            updates:
              message !== undefined || (first !== undefined && type !== 'general')
                ? [
                    {
                      ...(type === 'general' ? {} : { state: first }),
                      content: message ?? '',
                      at: now.toISOString(),
                    },
                  ]
                : [],
          },
        };
        try {
          summary(ctx, await ctx.slipway.create('StatusNotice', notice), 'opened');
        } catch (error) {
          if ((error as { code?: number }).code === 422)
            throw new CommandError(`the API server refused the notice: ${apiMessage(error)}`);
          throw error;
        }
        return;
      }
      case 'update': {
        const [name] = positionals(rest, ['notice']);
        const message = text(values, 'message');
        if (message === undefined) throw new UsageError('--message is required');
        const next = state(values);
        summary(
          ctx,
          await append(ctx, name!, () => ({
            ...(next ? { state: next } : {}),
            content: message,
          })),
          'updated',
        );
        return;
      }
      case 'resolve': {
        const [name] = positionals(rest, ['notice']);
        const notice = await append(ctx, name!, (n) => {
          const final = FINAL[n.spec.type];
          if (!final)
            throw new CommandError(`notice ${name} is a general notice: it has no state to resolve`);
          return { state: final, content: text(values, 'message') ?? '' };
        });
        summary(ctx, notice, 'resolved');
        return;
      }
      case 'list': {
        positionals(rest, []);
        const notices = await listInScope<StatusNoticeObject>(ctx, 'StatusNotice');
        notices.sort((a, b) =>
          (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? ''),
        );
        printList(ctx, notices, listColumns(now, ctx.allNamespaces), noneInScope(ctx, 'notices'));
        return;
      }
      default:
        throw new UsageError(
          action === undefined
            ? 'missing action: open, update, resolve or list'
            : `unknown action "${action}": open, update, resolve or list`,
        );
    }
  },
};
