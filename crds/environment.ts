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

export const environmentSpec = z.object({
  projectRef: localRef(),
  deploymentRef: z.object({
    name: z.string().min(1).max(253),
    container: z
      .string()
      .min(1)
      .max(63)
      .optional()
      .meta({ description: 'Container that runs the project; defaults to the first one.' }),
  }),
  database: z
    .object({
      engine: z.enum(['mysql', 'postgresql']),
      secretRef: localRef().meta({
        description: 'Secret with host, port, database, username and password keys, read by the backup Job.',
      }),
    })
    .optional(),
  backupStorage: z
    .object({
      persistentVolumeClaim: z
        .object({ claimName: z.string().min(1).max(253) })
        .meta({ description: 'Volume the backup Job writes dumps to.' }),
      pathPrefix: z.string().max(253).optional().meta({ description: 'Folder inside the volume.' }),
    })
    .optional(),
});

export const environmentStatus = z.object({
  ...statusBase,
  currentBundle: z.string().optional(),
  lastDeployment: z
    .object({
      bundle: z.string(),
      startedAt: timestamp(),
      finishedAt: timestamp().optional(),
      result: z.enum(['InProgress', 'Succeeded', 'Failed']),
    })
    .optional(),
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
    { name: 'Project', type: 'string', jsonPath: '.spec.projectRef.name' },
    { name: 'Deployment', type: 'string', jsonPath: '.spec.deploymentRef.name' },
    { name: 'Bundle', type: 'string', jsonPath: '.status.currentBundle' },
    readyColumn,
    reasonColumn,
    ageColumn,
  ],
};
