// One writer per status, declared: who writes each field and condition of each kind's status.
// The status writer refuses a write that changes what its writer does not own (a programming
// error, thrown), and test/unit/operator/reconcile/status-owners.test.ts checks that each writer's
// name is claimed only from its own folders. A kind's own controller writes everything not listed
// otherwise; each of the delivery engine's sinks writes its receipts and health.
import type { Condition } from '../../crds/index.ts';
import type { KindName } from '../../lib/kube.ts';

export type StatusWriterName =
  | 'project'
  | 'environment'
  | 'webhook'
  | 'bundle'
  | 'preview'
  | 'promotion'
  | 'status-page'
  /** The delivery engine's sinks: provider reports, notifications, status page subscribers. */
  | 'report'
  | 'notify'
  | 'subscribers';

/** A field whose parts have other writers: a part changes only by its writer, unless the record is new. */
interface SharedField {
  owner: StatusWriterName;
  parts: Record<string, StatusWriterName>;
  /** The part that names the record: when it changes, the owner starts a new one (all parts). */
  recordKey: string;
}

interface KindOwners {
  owner: StatusWriterName;
  fields?: Record<string, StatusWriterName | SharedField>;
  conditions?: Record<string, StatusWriterName>;
}

/** The subscriber sink adds the webhooks that took an entry's change; the status controller makes the change. */
const announced: SharedField = {
  owner: 'status-page',
  parts: { deliveredTo: 'subscribers' },
  recordKey: 'at',
};

export const STATUS_OWNERS: Record<KindName, KindOwners> = {
  Project: { owner: 'project', conditions: { Reported: 'report', Notified: 'notify' } },
  Environment: { owner: 'environment', fields: { autoPromotion: 'promotion' } },
  Webhook: { owner: 'webhook' },
  Bundle: { owner: 'bundle', fields: { reported: 'report', notified: 'notify' } },
  Preview: { owner: 'preview', fields: { reported: 'report', notified: 'notify' } },
  Promotion: { owner: 'promotion' },
  StatusPage: {
    owner: 'status-page',
    fields: { webhooks: 'subscribers' },
    conditions: { WebhooksDelivered: 'subscribers' },
  },
  StatusComponent: { owner: 'status-page', fields: { announced } },
  StatusNotice: { owner: 'status-page', fields: { announced } },
};

/** The source folders each writer writes from. */
export const WRITER_FOLDERS: Record<StatusWriterName, readonly string[]> = {
  project: ['operator/project/'],
  environment: ['operator/environment/'],
  webhook: ['operator/webhook/'],
  bundle: ['operator/bundle/'],
  preview: ['operator/preview/'],
  promotion: ['operator/promotion/'],
  'status-page': ['operator/status-page/'],
  report: ['operator/report/'],
  notify: ['operator/notify/'],
  subscribers: ['operator/subscribers/'],
};

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Why `writer` may not make this write (what it changes that another owns), or undefined. */
export function ownerProblem(
  kind: KindName,
  writer: StatusWriterName,
  before: Record<string, unknown> | undefined,
  fields: Record<string, unknown>,
  conditions: ReadonlyArray<Pick<Condition, 'type'>>,
): string | undefined {
  const owners = STATUS_OWNERS[kind];
  const refused = (what: string, owner: StatusWriterName) =>
    `${kind} ${what} is written by ${owner}, not by ${writer} (operator/reconcile/status-owners.ts)`;
  for (const [field, value] of Object.entries(fields)) {
    const owner = owners.fields?.[field] ?? owners.owner;
    if (typeof owner === 'string') {
      if (owner !== writer) return refused(`status.${field}`, owner);
      continue;
    }
    const was = (before?.[field] ?? {}) as Record<string, unknown>;
    const now = (value ?? {}) as Record<string, unknown>;
    const newRecord = !same(was[owner.recordKey], now[owner.recordKey]);
    if (newRecord && writer === owner.owner) continue;
    for (const part of new Set([...Object.keys(was), ...Object.keys(now)])) {
      const partOwner = owner.parts[part] ?? owner.owner;
      if (partOwner !== writer && !same(was[part], now[part]))
        return refused(`status.${field}.${part}`, partOwner);
    }
  }
  for (const { type } of conditions) {
    const owner = owners.conditions?.[type] ?? owners.owner;
    if (owner !== writer) return refused(`condition ${type}`, owner);
  }
  return undefined;
}
