import { z } from 'zod';
import {
  ageColumn,
  dnsLabel,
  localRef,
  readyColumn,
  reasonColumn,
  secretKeyRef,
  statusBase,
  type KindDefinition,
} from './common.ts';

export const projectSpec = z.object({
  slug: dnsLabel().optional().meta({
    description: 'Unique across the cluster; appears in the webhook URL. Defaults to metadata.name.',
  }),
  repository: z
    .object({
      url: z.string().min(1).max(2048).meta({ description: 'Git URL the build Job clones.' }),
      credentialsSecretRef: localRef()
        .optional()
        .meta({ description: 'Secret with `username`/`password` or `ssh-privatekey` for the clone.' }),
    })
    .optional(),
  webhookSecretRef: secretKeyRef().optional().meta({
    description: 'Webhook secret to use; when absent the operator generates one owned by the Project.',
  }),
  bundleHistoryLimit: z.number().int().min(1).max(1000).default(20).meta({
    description: 'Finished bundles to keep; older ones are deleted (never one an environment runs).',
  }),
});

export const projectStatus = z.object({
  ...statusBase,
  slug: z.string().optional(),
  webhook: z
    .object({
      url: z
        .string()
        .meta({ description: 'The webhook URL to paste into the git provider. It is a credential.' }),
      secretRef: secretKeyRef(),
    })
    .optional(),
  uploadScriptUrl: z.string().optional(),
});

export const Project: KindDefinition<typeof projectSpec, typeof projectStatus> = {
  kind: 'Project',
  plural: 'projects',
  singular: 'project',
  shortNames: ['swproj'],
  description: 'A web project that Slipway builds and deploys.',
  spec: projectSpec,
  status: projectStatus,
  printerColumns: [
    { name: 'Slug', type: 'string', jsonPath: '.status.slug' },
    readyColumn,
    reasonColumn,
    ageColumn,
  ],
};
