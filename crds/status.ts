// StatusPage, StatusComponent and StatusNotice: the source of the public status API.
import { z } from 'zod';
import {
  ageColumn,
  dnsLabel,
  localRef,
  readyColumn,
  reasonColumn,
  statusBase,
  timestamp,
  type KindDefinition,
} from './common.ts';

export const componentStates = ['operational', 'degraded', 'under-maintenance'] as const;
export type ComponentState = (typeof componentStates)[number];
export const noticeTypes = ['general', 'planned', 'unplanned'] as const;
export type NoticeType = (typeof noticeTypes)[number];
export const plannedStates = ['scheduled', 'underway', 'complete', 'cancelled'] as const;
export const unplannedStates = [
  'investigating',
  'identified',
  'recovering',
  'resolved',
  'false_alarm',
] as const;
export type NoticeState = (typeof plannedStates)[number] | (typeof unplannedStates)[number];

const celList = (values: readonly string[]) => `[${values.map((v) => `'${v}'`).join(', ')}]`;

/** An integer id the API exposes; set once, by the user or the operator, and never changed. */
const stableId = () =>
  z
    .number()
    .int()
    .min(1)
    .max(2147483647)
    .optional()
    .meta({ description: 'The id the API shows. Assigned by the operator when absent; never changes.' });
const idImmutable = {
  rule: '!has(oldSelf.id) || (has(self.id) && self.id == oldSelf.id)',
  message: 'id cannot change once set',
  fieldPath: '.id',
};

/** The most subscriber webhooks a StatusPage has (the admission check covers each place). */
export const MAX_STATUS_WEBHOOKS = 10;

export const statusWebhook = z.object({
  name: dnsLabel().meta({
    description:
      'Names this subscriber in the StatusPage status and in what each component and notice records.',
  }),
  secretRef: localRef().meta({
    description:
      'A Secret with `url` (where to POST, http or https) and optionally `hmacKey` (signs each body: X-Signature: sha256=<hex HMAC-SHA256>).',
  }),
  components: z.array(z.number().int().min(1).max(2147483647)).min(1).max(500).optional().meta({
    description:
      'Only these component ids (a group stands for its parts too), and the incidents and maintenances that affect one of them or no component at all. Everything when absent.',
  }),
});

export const statusPageSpec = z.object({
  name: z.string().min(1).max(256).meta({ description: 'Name of the status page, as readers see it.' }),
  url: z
    .string()
    .min(1)
    .max(2048)
    .meta({
      description:
        'Public address of the human-readable status page, http(s) (feeds and the API build notice links on it).',
      'x-kubernetes-validations': [
        {
          rule: "isURL(self) && url(self).getScheme() in ['http', 'https'] && url(self).getHostname() != ''",
          message: 'url must be an absolute http or https address, for example https://status.example.com',
        },
      ],
    }),
  webhooks: z
    .array(statusWebhook)
    .max(MAX_STATUS_WEBHOOKS)
    .optional()
    .refine((list) => !list || new Set(list.map((w) => w.name)).size === list.length, {
      message: 'webhook names must be unique',
    })
    .meta({
      description:
        "Subscribers told of every incident or maintenance created or updated and every component state change, in Statuspage's webhook format. Sent by the operator with retries across restarts; failures show in the WebhooksDelivered condition and status.webhooks.",
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    }),
});
export const statusPageStatus = z.object({
  ...statusBase,
  webhooks: z
    .array(
      z.object({
        name: z.string().meta({ description: 'The webhook (spec.webhooks[].name).' }),
        since: timestamp().meta({
          description: 'When the operator first saw this webhook: it is told of changes from then on.',
        }),
        deliveredAt: timestamp().optional().meta({ description: 'When it last took a change.' }),
        failingSince: timestamp().optional().meta({
          description: 'Since when every try failed; absent while it takes what is sent.',
        }),
        lastError: z.string().max(1024).optional().meta({ description: 'Why the last try failed.' }),
      }),
    )
    .optional()
    .meta({
      description: 'Each subscriber webhook: since when it is told, and whether it takes what is sent.',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    }),
});

/** What subscribers were last told of a component or notice, and which webhooks took it. */
const announced = () =>
  z
    .object({
      version: z.string().meta({
        description: "A component's Statuspage status, or a digest of what a notice shows subscribers.",
      }),
      previous: z.string().optional().meta({ description: 'The version before this change.' }),
      at: timestamp().meta({ description: 'When the change was seen (a notice first shown: its creation).' }),
      deliveredTo: z
        .array(z.string())
        .max(64)
        .default([])
        .meta({ description: 'The webhooks that took this change.' }),
    })
    .optional()
    .meta({
      description:
        "The latest change subscriber webhooks (the StatusPage's spec.webhooks) are told of; absent when the page has none.",
    });

export const componentSpec = z
  .object({
    name: z.string().min(1).max(256).meta({ description: 'Name of the component, as readers see it.' }),
    description: z
      .string()
      .max(4096)
      .default('')
      .meta({ description: 'What the component is, for readers.' }),
    parentRef: localRef().optional().meta({ description: 'The StatusComponent this one is part of.' }),
    state: z
      .enum(componentStates)
      .default('operational')
      .meta({ description: 'How the component works now.' }),
    position: z.number().int().min(0).max(1000000).optional().meta({ description: 'Lower comes first.' }),
    id: stableId(),
  })
  .meta({ 'x-kubernetes-validations': [idImmutable] });
export const componentStatus = z.object({
  ...statusBase,
  id: z.number().int().optional().meta({ description: 'The public id (copied from spec.id).' }),
  announced: announced(),
});

export const noticeUpdate = z.object({
  state: z
    .enum([...plannedStates, ...unplannedStates])
    .optional()
    .meta({ description: 'The notice state from this update on; none for general notices.' }),
  content: z.string().max(65536).meta({ description: 'What readers are told.' }),
  at: timestamp().meta({ description: 'When the update takes effect (a later one is not shown yet).' }),
});

export const noticeSpec = z
  .object({
    type: z
      .enum(noticeTypes)
      .meta({ description: 'planned (maintenance), unplanned (an incident) or general.' }),
    subject: z.string().min(1).max(1024).meta({ description: 'The headline readers see.' }),
    beginsAt: timestamp().optional().meta({ description: 'Scheduled start; required for planned notices.' }),
    endsAt: timestamp().optional().meta({ description: 'Scheduled end; required for planned notices.' }),
    componentRefs: z
      .array(localRef())
      .max(500)
      .default([])
      .meta({ description: 'The StatusComponents the notice affects.' }),
    tags: z
      .array(z.string().min(1).max(128))
      .max(64)
      .default([])
      .meta({ description: 'Free labels, for filtering.' }),
    updates: z
      .array(noticeUpdate)
      .max(1000)
      .default([])
      .meta({ description: 'The progress history, oldest first. The newest state is the notice state.' }),
    id: stableId(),
  })
  .meta({
    'x-kubernetes-validations': [
      idImmutable,
      {
        rule: "self.type != 'planned' || (has(self.beginsAt) && has(self.endsAt))",
        message: 'a planned notice needs beginsAt and endsAt',
      },
      {
        rule: "self.type != 'general' || self.updates.all(u, !has(u.state))",
        message: 'a general notice has no state: remove state from its updates',
      },
      {
        rule: `self.type != 'planned' || self.updates.all(u, !has(u.state) || u.state in ${celList(plannedStates)})`,
        message: `a planned notice allows only the states ${plannedStates.join(', ')}`,
      },
      {
        rule: `self.type != 'unplanned' || self.updates.all(u, !has(u.state) || u.state in ${celList(unplannedStates)})`,
        message: `an unplanned notice allows only the states ${unplannedStates.join(', ')}`,
      },
    ],
  });
export const noticeStatus = z.object({
  ...statusBase,
  id: z.number().int().optional().meta({ description: 'The public id (copied from spec.id).' }),
  state: z.string().optional().meta({ description: 'The state now, from the updates in effect.' }),
  beganAt: timestamp().optional().meta({ description: 'When the notice began.' }),
  endedAt: timestamp().optional().meta({ description: 'When the notice ended.' }),
  announced: announced(),
});

const idColumn = { name: 'ID', type: 'integer', jsonPath: '.status.id' } as const;

export const StatusPage: KindDefinition<typeof statusPageSpec, typeof statusPageStatus> = {
  kind: 'StatusPage',
  plural: 'statuspages',
  singular: 'statuspage',
  shortNames: ['swpage'],
  description: 'The status page of this namespace: its name and public address.',
  spec: statusPageSpec,
  status: statusPageStatus,
  printerColumns: [
    { name: 'Name', type: 'string', jsonPath: '.spec.name' },
    { name: 'URL', type: 'string', jsonPath: '.spec.url' },
    readyColumn,
    ageColumn,
  ],
};

export const StatusComponent: KindDefinition<typeof componentSpec, typeof componentStatus> = {
  kind: 'StatusComponent',
  plural: 'statuscomponents',
  singular: 'statuscomponent',
  shortNames: ['swcomp'],
  description: 'A part of the service shown on the status page, with its state.',
  spec: componentSpec,
  status: componentStatus,
  printerColumns: [
    idColumn,
    { name: 'Name', type: 'string', jsonPath: '.spec.name' },
    { name: 'State', type: 'string', jsonPath: '.spec.state' },
    { name: 'Parent', type: 'string', jsonPath: '.spec.parentRef.name' },
    readyColumn,
    reasonColumn,
    ageColumn,
  ],
};

export const StatusNotice: KindDefinition<typeof noticeSpec, typeof noticeStatus> = {
  kind: 'StatusNotice',
  plural: 'statusnotices',
  singular: 'statusnotice',
  shortNames: ['swnotice'],
  description: 'An incident, a maintenance or a general note on the status page.',
  spec: noticeSpec,
  status: noticeStatus,
  printerColumns: [
    idColumn,
    { name: 'Type', type: 'string', jsonPath: '.spec.type' },
    { name: 'State', type: 'string', jsonPath: '.status.state' },
    { name: 'Subject', type: 'string', jsonPath: '.spec.subject' },
    readyColumn,
    ageColumn,
  ],
};

/** The reasons of a StatusPage's Ready condition (docs/resources.md lists exactly these). */
export const statusPageReasons = ['Published', 'DuplicateStatusPage'] as const;
export type StatusPageReason = (typeof statusPageReasons)[number];

/** The reasons of a StatusPage's WebhooksDelivered condition (spec.webhooks). */
export const statusWebhookReasons = ['Delivered', 'WebhookFailing', 'WebhookSecretIncomplete'] as const;
export type StatusWebhookReason = (typeof statusWebhookReasons)[number];

/** The reasons of a StatusComponent's Ready condition (docs/resources.md lists exactly these). */
export const statusComponentReasons = [
  'Published',
  'NoStatusPage',
  'DuplicateId',
  'ParentNotFound',
  'ParentCycle',
] as const;
export type StatusComponentReason = (typeof statusComponentReasons)[number];

/** The reasons of a StatusNotice's Ready condition (docs/resources.md lists exactly these). */
export const statusNoticeReasons = ['Published', 'NoStatusPage', 'DuplicateId', 'ComponentNotFound'] as const;
export type StatusNoticeReason = (typeof statusNoticeReasons)[number];
