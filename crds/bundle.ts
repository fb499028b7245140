import { z } from 'zod';
import { ageColumn, localRef, reasonColumn, statusBase, timestamp, type KindDefinition } from './common.ts';

export const providers = ['github', 'gitlab', 'bitbucket', 'azure-devops'] as const;
export type Provider = (typeof providers)[number];
export const triggerTypes = ['Manual', 'Webhook', 'Upload'] as const;

export const bundlePhases = [
  'Pending',
  'Queued',
  'Building',
  'Built',
  'BackingUp',
  'Deploying',
  'Ready',
  'Failed',
  'Superseded',
] as const;
export type BundlePhase = (typeof bundlePhases)[number];

const sha256 = z.string().regex(/^[a-f0-9]{64}$/);

export const bundleSpec = z
  .object({
    projectRef: localRef(),
    source: z
      .object({
        git: z
          .object({
            commit: z
              .string()
              .regex(/^[a-f0-9]{7,64}$/)
              .meta({ description: 'Commit to build.' }),
            branch: z.string().max(255).optional(),
          })
          .optional(),
        archive: z
          .object({
            url: z
              .string()
              .min(1)
              .max(4096)
              .meta({ description: 'Where the build Job downloads the archive.' }),
            sha256,
            sizeBytes: z.number().int().min(0),
            commit: z
              .string()
              .max(128)
              .optional()
              .meta({ description: 'Commit the uploaded files belong to.' }),
            branch: z.string().max(255).optional(),
          })
          .optional(),
      })
      .meta({
        'x-kubernetes-validations': [
          {
            rule: 'has(self.git) != has(self.archive)',
            message: 'source needs exactly one of git or archive',
          },
        ],
      }),
    comment: z.string().max(4096).optional(),
    baseSoftware: z
      .object({
        image: z.string().min(1).max(512).meta({ description: 'Base image the bundle is built on.' }),
      })
      .optional()
      .meta({ description: 'Required for manual bundles; webhook and upload bundles copy it.' }),
    directoryMap: z
      .record(z.string().max(63), z.string().max(1024))
      .optional()
      .meta({
        description:
          'Where the project directories are inside the source (for example web: web, config: config). ' +
          'Required for manual bundles; webhook and upload bundles copy it.',
      }),
    trigger: z.object({
      type: z.enum(triggerTypes),
      provider: z.enum(providers).optional(),
      webhookRef: localRef().optional(),
      deliveryId: z.string().max(256).optional(),
    }),
    deploy: z
      .object({
        environmentRef: localRef(),
        backupBeforeDeploy: z.boolean().default(false),
      })
      .optional(),
  })
  .meta({
    'x-kubernetes-validations': [
      { rule: 'self == oldSelf', message: 'a Bundle spec is immutable: create a new Bundle instead' },
      {
        rule: "self.trigger.type != 'Manual' || (has(self.baseSoftware) && has(self.directoryMap))",
        message: 'a manual bundle needs baseSoftware and directoryMap',
      },
    ],
  });

export const bundleStatus = z.object({
  ...statusBase,
  phase: z.enum(bundlePhases).optional(),
  image: z.string().optional(),
  buildJob: z.string().optional(),
  backup: z.object({ job: z.string(), location: z.string().optional() }).optional(),
  startedAt: timestamp().optional(),
  finishedAt: timestamp().optional(),
});

export const Bundle: KindDefinition<typeof bundleSpec, typeof bundleStatus> = {
  kind: 'Bundle',
  plural: 'bundles',
  singular: 'bundle',
  shortNames: ['swb'],
  description: 'One build of a project, and its deployment when it names an environment.',
  spec: bundleSpec,
  status: bundleStatus,
  printerColumns: [
    { name: 'Project', type: 'string', jsonPath: '.spec.projectRef.name' },
    { name: 'Trigger', type: 'string', jsonPath: '.spec.trigger.type' },
    { name: 'Commit', type: 'string', jsonPath: '.spec.source.git.commit' },
    { name: 'Environment', type: 'string', jsonPath: '.spec.deploy.environmentRef.name' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Image', type: 'string', jsonPath: '.status.image', priority: 1 },
    reasonColumn,
    ageColumn,
  ],
};
