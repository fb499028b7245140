// How each subscriber webhook is doing, as the StatusPage shows it (pure): status.webhooks
// (since when it is told, when it last took a change, since when it fails and why) and the
// WebhooksDelivered condition, from what the delivery engine knows of each webhook's lane now.
import type { StatusPageObject, StatusWebhookReason } from '../../crds/index.ts';
import { findCondition, type ConditionUpdate } from '../../lib/conditions.ts';
import type { TransitionEvents } from '../reconcile/status-writer.ts';
import { FAILING_LONG_MS } from '../delivery/retry.ts';
import type { LaneHealth } from '../delivery/sink.ts';

export type WebhookStatus = NonNullable<NonNullable<StatusPageObject['status']>['webhooks']>[number];

export const CONDITION = 'WebhooksDelivered';

/** What the engine knows of one webhook's lane (undefined fields: nothing new since the page's status). */
export type WebhookHealth = Omit<LaneHealth, 'failures'>;

/** What the page shows of a webhook, as the engine knows it after a restart: its failing day goes on. */
export function shownHealth(shown: WebhookStatus | undefined): LaneHealth {
  const health: LaneHealth = { failures: shown?.failingSince ? 1 : 0 };
  if (shown?.failingSince) health.failingSince = Date.parse(shown.failingSince);
  if (shown?.lastError) health.problem = { reason: 'WebhookFailing', message: shown.lastError };
  if (shown?.deliveredAt) health.deliveredAt = Date.parse(shown.deliveredAt);
  return health;
}

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

export function webhookPageStatus(
  hooks: ReadonlyArray<{ name: string }>,
  shown: readonly WebhookStatus[],
  health: (name: string) => WebhookHealth | undefined,
  now: number,
): { webhooks: WebhookStatus[] | null; condition: ConditionUpdate } {
  const entries = hooks.map((hook): WebhookStatus => {
    const before = shown.find((w) => w.name === hook.name);
    const known = health(hook.name);
    const entry: WebhookStatus = { name: hook.name, since: before?.since ?? new Date(now).toISOString() };
    const deliveredAt = known ? iso(known.deliveredAt) : before?.deliveredAt;
    const failingSince = known ? iso(known.failingSince) : before?.failingSince;
    const lastError = known ? known.problem?.message : before?.lastError;
    if (deliveredAt) entry.deliveredAt = deliveredAt;
    if (failingSince) entry.failingSince = failingSince;
    if (failingSince && lastError) entry.lastError = lastError.slice(0, 1024);
    return entry;
  });
  const failing = entries.filter((e) => e.failingSince !== undefined);
  const reasonOf = (name: string): StatusWebhookReason =>
    (health(name)?.problem?.reason as StatusWebhookReason | undefined) ?? 'WebhookFailing';
  const condition: ConditionUpdate =
    failing.length === 0
      ? {
          type: CONDITION,
          status: 'True',
          reason: 'Delivered' satisfies StatusWebhookReason,
          message:
            hooks.length === 0
              ? 'no subscriber webhooks'
              : `${hooks.length} subscriber webhook${hooks.length === 1 ? '' : 's'} take what is sent`,
        }
      : {
          type: CONDITION,
          status: 'False',
          reason: reasonOf(failing[0]!.name),
          message: failing
            .map((e) => {
              const long = now - Date.parse(e.failingSince!) >= FAILING_LONG_MS;
              return `${e.lastError ?? `webhook ${e.name} fails`} (failing since ${e.failingSince}${long ? '; failing for a day, tried every 6 hours' : '; tried again with back-off'})`;
            })
            .join('; '),
        };
  return { webhooks: entries.length > 0 ? entries : null, condition };
}

/** An Event when the WebhooksDelivered condition changes status or reason. */
export const deliveryEvents: TransitionEvents = (before, after) => {
  const a = findCondition(before, CONDITION);
  const b = findCondition(after, CONDITION);
  if (!b || (a && a.status === b.status && a.reason === b.reason)) return [];
  if (!a && b.status === 'True') return [];
  return [{ type: b.status === 'True' ? 'Normal' : 'Warning', reason: b.reason, message: b.message }];
};
