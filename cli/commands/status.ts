// kubectl slipway status: what the public status page shows now, read from the cluster objects
// (the page state derived from the notices as the status API derives it, the component tree,
// the notices in effect).
import { escapeControlCharacters } from '../../rules/text.ts';
import { stringify } from 'yaml';
import type { StatusComponentObject, StatusNoticeObject, StatusPageObject } from '../../crds/index.ts';
import { noticeAt, noticeFromObject, type Notice } from '../../rules/notice-timeline.ts';
import { pageState, pageStateTexts } from '../../rules/page-state.ts';
import { CommandError } from '../errors.ts';
import { positionals, type Command } from './command.ts';

export const statusCommand: Command = {
  name: 'status',
  summary: 'what the public status page shows now: page state, components, current notices',
  usage: 'status [-n namespace of the StatusPage] [-o json|yaml]',
  async run(ctx, args) {
    positionals(args, []);
    const now = new Date();
    const [pages, components, noticeObjects] = await Promise.all([
      ctx.slipway.list<StatusPageObject>('StatusPage', ctx.namespace),
      ctx.slipway.list<StatusComponentObject>('StatusComponent', ctx.namespace),
      ctx.slipway.list<StatusNoticeObject>('StatusNotice', ctx.namespace),
    ]);
    const page = pages
      .filter((p) => !p.metadata.deletionTimestamp)
      .sort((a, b) =>
        (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''),
      )[0];
    if (!page)
      throw new CommandError(
        `no StatusPage in namespace ${ctx.namespace} (-n names the status page's namespace)`,
      );
    const notices = noticeObjects
      .map(noticeFromObject)
      .filter((n): n is Notice => n !== null)
      .map((notice) => ({ notice, at: noticeAt(notice, now) }));
    const state = pageState(
      notices.map(({ notice, at }) => ({
        type: notice.type,
        state: at.state,
        timelineState: at.timelineState,
      })),
    );
    const current = notices
      .filter(({ at }) => at.timelineState === 'present' || at.timelineState === 'future')
      .sort((a, b) => b.notice.startsAt - a.notice.startsAt);
    // As the status API shows them: with an id, not being deleted, by position then id.
    const idOf = (c: StatusComponentObject) => c.status?.id ?? c.spec.id;
    const shown = components
      .filter((c) => !c.metadata.deletionTimestamp && idOf(c) !== undefined)
      .sort((a, b) => (a.spec.position ?? Infinity) - (b.spec.position ?? Infinity) || idOf(a)! - idOf(b)!);
    if (ctx.output === 'json' || ctx.output === 'yaml') {
      const value = {
        page: { name: page.spec.name, url: page.spec.url, state, stateText: pageStateTexts[state] },
        components: shown.map((c) => ({
          name: c.spec.name,
          object: c.metadata.name,
          state: c.spec.state ?? 'operational',
          parent: c.spec.parentRef?.name ?? null,
        })),
        notices: current.map(({ notice, at }) => ({
          id: notice.id,
          object: notice.objectName,
          type: notice.type,
          state: at.state ?? null,
          timeline: at.timelineState,
          subject: notice.subject,
          latestUpdate: at.latestUpdate?.content ?? null,
        })),
      };
      ctx.out(ctx.output === 'json' ? JSON.stringify(value, null, 2) : stringify(value).trimEnd());
      return;
    }
    const lines = [`${page.spec.name}: ${pageStateTexts[state]} (${state})`, page.spec.url, '', 'COMPONENTS'];
    const children = (parent: string | undefined) => shown.filter((c) => c.spec.parentRef?.name === parent);
    const known = new Set(shown.map((c) => c.metadata.name));
    const walk = (list: StatusComponentObject[], depth: number) => {
      for (const c of list) {
        lines.push(`${'  '.repeat(depth + 1)}${c.spec.name}: ${c.spec.state ?? 'operational'}`);
        if (depth < 8) walk(children(c.metadata.name), depth + 1);
      }
    };
    walk(
      shown.filter((c) => !c.spec.parentRef || !known.has(c.spec.parentRef.name)),
      0,
    );
    lines.push('', 'CURRENT AND UPCOMING NOTICES');
    if (current.length === 0) lines.push('  none');
    for (const { notice, at } of current)
      lines.push(
        `  #${notice.id} ${notice.type}${at.state ? ` ${at.state}` : ''}${at.timelineState === 'future' ? ' (upcoming)' : ''}: ${notice.subject}`,
        ...(at.latestUpdate ? [`      ${at.latestUpdate.content.split('\n')[0]}`] : []),
      );
    // Notice subjects and updates are text people wrote: printed without terminal controls.
    ctx.out(lines.map(escapeControlCharacters).join('\n'));
  },
};
