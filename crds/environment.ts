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
import { promotionGates } from './promotion.ts';

export const environmentSpec = z.object({
  projectRef: localRef().meta({ description: 'The Project that runs here.' }),
  deploymentRef: z
    .object({
      name: z.string().min(1).max(253).meta({ description: 'The Deployment, in the same namespace.' }),
      container: z
        .string()
        .min(1)
        .max(63)
        .optional()
        .meta({ description: 'Container that runs the project; defaults to the first one.' }),
    })
    .meta({ description: 'The Deployment whose image a rollout sets.' }),
  database: z
    .object({
      engine: z
        .enum(['mysql', 'postgresql'])
        .meta({ description: 'mysql (also MariaDB: mysqldump) or postgresql (pg_dump).' }),
      secretRef: localRef().meta({
        description: 'Secret with host, port, database, username and password keys, read by the backup Job.',
      }),
    })
    .optional()
    .meta({ description: 'The database a backup before a rollout dumps.' }),
  backupStorage: z
    .object({
      persistentVolumeClaim: z
        .object({
          claimName: z
            .string()
            .min(1)
            .max(253)
            .meta({ description: 'The PersistentVolumeClaim, in the same namespace.' }),
        })
        .meta({ description: 'Volume the backup Job writes dumps to.' }),
      pathPrefix: z.string().max(253).optional().meta({ description: 'Folder inside the volume.' }),
    })
    .optional()
    .meta({ description: 'Where backups go: <pathPrefix>/<environment>/<bundle>.sql or .dump.' }),
  url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional()
    .meta({
      description:
        "Where people open this environment (for example https://staging.shop.example.com): the deployment on the git provider links to it (GitHub's environment_url).",
    }),
  suspend: z.boolean().optional().meta({
    description:
      'A deploy freeze: no backup or rollout to this Environment starts (one under way finishes); builds go on. When it is false again, the newest bundle waiting for it rolls out (older ones are superseded). Changing it needs the verb deploy on this Environment (kubectl slipway suspend|resume environment NAME).',
  }),
  waitTimeoutSeconds: z.number().int().min(10).max(86_400).optional().meta({
    description:
      'How long a built bundle waits for this Environment to be usable (its Deployment, container, database Secret and backup claim there and Ready) before it fails with the reason it waited for. Default 300.',
  }),
  autoRollback: z
    .boolean()
    .optional()
    .meta({
      description:
        'When a rollout here fails, put back the bundle that ran before: a new Rollback bundle reusing its ' +
        'image (no build, no backup), unless a newer bundle for this environment already exists.',
    }),
  promoteFrom: z
    .object({
      environmentRef: localRef().meta({
        description: 'The Environment whose Ready bundles are promoted here.',
      }),
      gates: promotionGates.optional(),
    })
    .optional()
    .meta({
      description:
        'Automatic promotion: each bundle that becomes Ready on that Environment gets a Promotion to this one, which rolls it out once the gates hold. The gates are also the minimum of every Promotion to this Environment.',
    }),
});

export const environmentStatus = z.object({
  ...statusBase,
  currentBundle: z.string().optional().meta({ description: 'The bundle last rolled out successfully.' }),
  lastDeployment: z
    .object({
      bundle: z.string().meta({ description: 'The bundle rolled out.' }),
      startedAt: timestamp().meta({ description: 'When the rollout started.' }),
      finishedAt: timestamp().optional().meta({ description: 'When it ended.' }),
      result: z
        .enum(['InProgress', 'Succeeded', 'Failed'])
        .meta({ description: 'How it ended, or InProgress.' }),
    })
    .optional()
    .meta({ description: 'The latest rollout, whatever its result.' }),
  autoPromotion: z
    .object({
      bundle: z.string().meta({ description: 'The bundle of spec.promoteFrom promoted last.' }),
      promotion: z.string().meta({ description: 'The Promotion made for it.' }),
      at: timestamp().meta({ description: 'When it was made.' }),
    })
    .optional()
    .meta({
      description:
        'The last Promotion spec.promoteFrom made: one per bundle that became Ready there (deleting it does not make it again).',
    }),
});

export const Environment: KindDefinition<typeof environmentSpec, typeof environmentStatus> = {
  kind: 'Environment',
  plural: 'environments',
  singular: 'environment',
  shortNames: ['swenv'],
  description: 'A place a project runs: a Deployment, and optionally its database for backups.',
  spec: environmentSpec,
  status: environmentStatus,
  printerColumns: [
    projectColumn,
    { name: 'Deployment', type: 'string', jsonPath: '.spec.deploymentRef.name' },
    { name: 'Bundle', type: 'string', jsonPath: '.status.currentBundle' },
    { name: 'Suspended', type: 'boolean', jsonPath: '.spec.suspend' },
    readyColumn,
    reasonColumn,
    ageColumn,
  ],
};

/** The reasons of an Environment's Ready condition (docs/resources.md lists exactly these). */
export const environmentReasons = [
  'Valid',
  'ProjectNotFound',
  'DeploymentNotFound',
  'ContainerNotFound',
  'DatabaseSecretNotFound',
  'DatabaseSecretIncomplete',
  'BackupClaimNotFound',
] as const;
export type EnvironmentReason = (typeof environmentReasons)[number];
