import { z } from 'zod';
import {
  ageColumn,
  projectColumn,
  localRef,
  readyColumn,
  reasonColumn,
  statusBase,
  timestamp,
  type KindDefinition,
} from './common.ts';

export const matchModes = ['Exact', 'StartsWith', 'EndsWith', 'Contains'] as const;
export type MatchMode = (typeof matchModes)[number];

export const webhookSpec = z
  .object({
    projectRef: localRef().meta({ description: 'The Project whose pushes this Webhook matches.' }),
    branch: z.string().min(1).max(255).meta({ description: 'Branch to track, compared by matchMode.' }),
    matchMode: z.enum(matchModes).meta({
      description: 'How a pushed branch must relate to `branch`: equal, start with, end with, or contain it.',
    }),
    environmentRef: localRef()
      .optional()
      .meta({ description: 'Deploy every bundle this webhook builds here.' }),
    backupBeforeDeploy: z
      .boolean()
      .optional()
      .meta({ description: 'Back up the environment database before the deployment. Needs environmentRef.' }),
  })
  .meta({
    'x-kubernetes-validations': [
      {
        rule: '!has(self.backupBeforeDeploy) || !self.backupBeforeDeploy || has(self.environmentRef)',
        message: 'backupBeforeDeploy requires environmentRef',
        fieldPath: '.backupBeforeDeploy',
      },
    ],
  });

export const webhookStatus = z.object({
  ...statusBase,
  url: z.string().optional().meta({
    description: "The project's webhook URL without its token (`kubectl slipway hook` prints it whole).",
  }),
  lastTriggered: z
    .object({
      bundle: z.string().meta({ description: 'The Bundle made.' }),
      commit: z.string().meta({ description: 'The commit pushed.' }),
      branch: z.string().meta({ description: 'The branch pushed.' }),
      at: timestamp().meta({ description: 'When.' }),
    })
    .optional()
    .meta({ description: 'The newest bundle this Webhook made.' }),
});

export const Webhook: KindDefinition<typeof webhookSpec, typeof webhookStatus> = {
  kind: 'Webhook',
  plural: 'webhooks',
  singular: 'webhook',
  shortNames: ['swhook'],
  description: 'Builds a bundle, and optionally deploys it, when a matching branch is pushed or uploaded.',
  spec: webhookSpec,
  status: webhookStatus,
  printerColumns: [
    projectColumn,
    { name: 'Branch', type: 'string', jsonPath: '.spec.branch' },
    { name: 'Match', type: 'string', jsonPath: '.spec.matchMode' },
    { name: 'Environment', type: 'string', jsonPath: '.spec.environmentRef.name' },
    { name: 'Backup', type: 'boolean', jsonPath: '.spec.backupBeforeDeploy' },
    { name: 'Last Bundle', type: 'string', jsonPath: '.status.lastTriggered.bundle', priority: 1 },
    readyColumn,
    reasonColumn,
    ageColumn,
  ],
};

/** The reasons of a Webhook's Ready condition (docs/resources.md lists exactly these). */
export const webhookReasons = [
  'Valid',
  'ProjectNotFound',
  'ProjectNotReady',
  'EnvironmentNotFound',
  'EnvironmentProjectMismatch',
  'BackupNotConfigured',
] as const;
export type WebhookReason = (typeof webhookReasons)[number];
