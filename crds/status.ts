// StatusPage, StatusComponent and StatusNotice: the source of the public status API.
import { z } from 'zod';
import {
  ageColumn,
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
});
export const statusPageStatus = z.object({ ...statusBase });

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
