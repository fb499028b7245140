import { z } from 'zod';
import { notificationEvents } from './project.ts';
import {
  ageColumn,
  projectColumn,
  localRef,
  providers,
  reasonColumn,
  statusBase,
  timestamp,
  type KindDefinition,
} from './common.ts';

export const triggerTypes = ['Manual', 'Webhook', 'Upload', 'Rollback', 'PullRequest', 'Promotion'] as const;

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
/** Shell commands of a build phase: run in order, each with /bin/sh -c. */
const buildCommands = z.array(z.string().min(1).max(8192)).min(1).max(32);

export const bundleSpec = z
  .object({
    projectRef: localRef().meta({ description: 'The Project this bundle builds.' }),
    source: z
      .object({
        git: z
          .object({
            commit: z
              .string()
              .regex(/^[a-f0-9]{7,64}$/)
              .meta({ description: 'Commit to build.' }),
            branch: z.string().max(255).optional().meta({ description: 'Branch the commit was pushed to.' }),
            committedAt: timestamp().optional().meta({
              description:
                "The commit's time as the provider reported it (lead time for changes counts from it).",
            }),
            fetchRef: z.string().min(1).max(255).optional().meta({
              description:
                "A ref of the repository the commit is fetched from when the server will not give it by id (a pull request's refs/pull/<n>/head).",
            }),
          })
          .optional()
          .meta({ description: "Build a commit of the project's repository." }),
        archive: z
          .object({
            url: z
              .string()
              .min(1)
              .max(4096)
              .meta({ description: 'Where the build Job downloads the archive.' }),
            sha256: sha256.meta({ description: 'sha256 of the archive, checked by the build Job.' }),
            sizeBytes: z
              .number()
              .int()
              .min(0)
              .meta({ description: 'Size of the archive in bytes, checked by the build Job.' }),
            commit: z
              .string()
              .max(128)
              .optional()
              .meta({ description: 'Commit the uploaded files belong to.' }),
            branch: z.string().max(255).optional().meta({ description: 'Branch the upload was made for.' }),
          })
          .optional()
          .meta({ description: 'Build an uploaded archive (made by the gateway).' }),
        bundleRef: localRef().optional().meta({
          description:
            'Build nothing: reuse the image another bundle of the project built (a rollback). Needs deploy.',
        }),
      })
      .meta({
        description: 'What to build: exactly one of git, archive or bundleRef.',
        'x-kubernetes-validations': [
          {
            rule: '(has(self.git) ? 1 : 0) + (has(self.archive) ? 1 : 0) + (has(self.bundleRef) ? 1 : 0) == 1',
            message: 'source needs exactly one of git, archive or bundleRef',
          },
        ],
      }),
    comment: z.string().max(4096).optional().meta({
      description: 'Why this bundle exists, for people (the first line of the commit message for pushes).',
    }),
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
    buildSteps: z
      .object({
        image: z.string().min(1).max(512).meta({
          description:
            'Image the commands run in (for example composer:2 or node:22): it has the tools, the runtime image does not need them.',
        }),
        install: z
          .object({
            files: z
              .array(z.string().min(1).max(1024))
              .min(1)
              .max(32)
              .meta({
                description:
                  'The only files (or directories) the install commands see, relative to the source root (for example composer.json and composer.lock). ' +
                  "While they do not change, the install's result comes from the project's build cache instead of running again.",
              }),
            commands: buildCommands.meta({
              description:
                'Shell commands that install dependencies (for example composer install --no-dev, or npm ci), run in order with /bin/sh -c over only the listed files, before the rest of the source is copied in.',
            }),
          })
          .optional()
          .meta({
            description:
              "A cached install phase: its result is kept per project in the registry (the tag build_cache of the project's image repository) and reused by the next build while its files, commands, env and image stay the same.",
          }),
        commands: buildCommands.optional().meta({
          description:
            'Shell commands run in order in the source tree, each with /bin/sh -c (for example composer install --no-dev, or npm ci && npm run build), after the install commands. ' +
            'The build fails at the first that exits non-zero. directoryMap then copies from the tree they leave.',
        }),
        env: z
          .record(
            z
              .string()
              .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
              .max(128),
            z.string().max(4096),
          )
          .optional()
          .meta({
            description:
              'Environment variables of the commands (for example NODE_ENV: production). Not put into the runtime image; not for secrets.',
          }),
      })
      .optional()
      .meta({
        'x-kubernetes-validations': [
          {
            rule: 'has(self.install) || has(self.commands)',
            message: 'buildSteps needs install or commands',
          },
        ],
        description:
          'How the project is built before its directories are copied into the base software: absent, the source is copied as it is. ' +
          'Set on manual bundles; webhook and upload bundles copy it.',
      }),
    trigger: z
      .object({
        type: z.enum(triggerTypes).meta({
          description:
            'Manual (made by a person), Webhook (a push), Upload (upload.sh), Rollback (reuses an earlier bundle), PullRequest (the head commit of a Preview) or Promotion (the image another environment ran, by a Promotion).',
        }),
        provider: z.enum(providers).optional().meta({ description: 'The git provider whose push made it.' }),
        webhookRef: localRef().optional().meta({ description: 'The Webhook whose branch matched.' }),
        fork: z.boolean().optional().meta({
          description:
            "PullRequest: the pull request comes from a fork. Its build uses no install cache and no build store (code from a fork never writes what the project's own builds read).",
        }),
        previewRef: localRef().optional().meta({
          description:
            'The Preview (trigger PullRequest) this bundle builds; it is not deployed to an environment.',
        }),
        promotionRef: localRef().optional().meta({
          description:
            'The Promotion (trigger Promotion) that made this bundle; source.bundleRef is the bundle promoted.',
        }),
        deliveryId: z
          .string()
          .max(256)
          .optional()
          .meta({ description: "The provider's delivery id, for its delivery log." }),
      })
      .meta({ description: 'What made this bundle.' }),
    deploy: z
      .object({
        environmentRef: localRef().meta({ description: 'The Environment to roll the bundle out to.' }),
        backupBeforeDeploy: z
          .boolean()
          .default(false)
          .meta({ description: "Back up the environment's database first." }),
      })
      .optional()
      .meta({ description: 'Roll the built image out; absent: build only.' }),
  })
  .meta({
    'x-kubernetes-validations': [
      { rule: 'self == oldSelf', message: 'a Bundle spec is immutable: create a new Bundle instead' },
      {
        rule: "self.trigger.type != 'Manual' || (has(self.baseSoftware) && has(self.directoryMap))",
        message: 'a manual bundle needs baseSoftware and directoryMap',
      },
      {
        rule: '!has(self.source.bundleRef) || has(self.deploy)',
        message: 'a bundle that reuses another bundle (source.bundleRef) needs deploy: it only rolls out',
      },
    ],
  });

export const bundleStatus = z.object({
  ...statusBase,
  phase: z
    .enum(bundlePhases)
    .optional()
    .meta({ description: 'Where the bundle is in its chain (kubectl get bundles shows it).' }),
  reported: z
    .array(
      z.object({
        context: z
          .string()
          .meta({ description: 'The commit status context (slipway/build, slipway/deploy/<environment>).' }),
        state: z
          .enum(['pending', 'success', 'failure', 'error'])
          .meta({ description: 'The state the provider accepted.' }),
        deploymentId: z
          .string()
          .max(64)
          .optional()
          .meta({ description: "The provider's deployment of this rollout (GitHub, GitLab), once made." }),
      }),
    )
    .max(16)
    .optional()
    .meta({
      description:
        'The commit statuses the provider accepted for this bundle (Project spec.report): after a restart only what is missing is sent again.',
    }),
  notified: z
    .array(
      z.object({
        name: z.string().meta({ description: "The receiver (the Project's spec.notifications name)." }),
        event: z.enum(notificationEvents).meta({ description: 'The event it took.' }),
      }),
    )
    .max(64)
    .optional()
    .meta({
      description:
        'The notifications receivers took for this bundle (Project spec.notifications): after a restart none is sent twice.',
    }),
  image: z.string().optional().meta({
    description:
      'The image the build pushed, by digest (`<registry>/<namespace>/<project>:<bundle>@sha256:…`): what rollouts and rollbacks deploy.',
  }),
  buildJob: z.string().optional().meta({ description: 'Name of the build Job.' }),
  build: z
    .object({
      namespace: z.string().meta({ description: "The build namespace (the operator's, not the bundle's)." }),
      job: z.string().meta({ description: 'The build Job there.' }),
    })
    .optional()
    .meta({
      description:
        'Where the build runs: builds run in a namespace Slipway owns, apart from tenants. `kubectl slipway logs` shows its log to whoever may get the bundle.',
    }),
  logsUrl: z.string().optional().meta({
    description:
      "The build's logs as JSON, served by the gateway at a URL signed for this bundle: whoever may get the bundle may read them (`kubectl slipway logs` does), without rights in the build namespace.",
  }),
  backup: z
    .object({
      job: z.string().meta({ description: 'Name of the backup Job.' }),
      location: z.string().optional().meta({ description: 'Where the dump is: pvc://<claim>/<path>.' }),
    })
    .optional()
    .meta({ description: 'The backup taken before the rollout.' }),
  startedAt: timestamp().optional().meta({ description: 'When the build started.' }),
  finishedAt: timestamp().optional().meta({ description: 'When the chain ended.' }),
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
    projectColumn,
    { name: 'Trigger', type: 'string', jsonPath: '.spec.trigger.type' },
    { name: 'Commit', type: 'string', jsonPath: '.spec.source.git.commit' },
    { name: 'Environment', type: 'string', jsonPath: '.spec.deploy.environmentRef.name' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Image', type: 'string', jsonPath: '.status.image', priority: 1 },
    reasonColumn,
    ageColumn,
  ],
};

/**
 * Why a step's pods cannot run, in the step's condition and Ready: the pods' own problems, a
 * Job's or a Deployment's refused pods, a paused Deployment.
 */
export const podProblemReasons = [
  'Unschedulable',
  'ClaimNotFound',
  'ImagePullFailed',
  'ContainerConfigError',
  'CrashLoop',
  'PodsRefused',
  'DeploymentPaused',
] as const;
export type PodProblemReason = (typeof podProblemReasons)[number];

/** The reasons of a Bundle's step conditions and Ready (docs/resources.md lists exactly these). */
export const bundleReasons = [
  // The chain's progress and its end.
  'Succeeded',
  'Reused',
  'Queued',
  'Building',
  'BackingUp',
  'Progressing',
  'WaitingForEnvironment',
  'Suspended',
  'Superseded',
  // Waits for something outside the bundle.
  'ProjectNotFound',
  'RepositoryNotConfigured',
  'CredentialsSecretNotFound',
  'KnownHostsMissing',
  'InsecureRepository',
  'RegistryUnprotected',
  'EnvironmentNotFound',
  'EnvironmentProjectMismatch',
  'EnvironmentNotReady',
  'DeploymentNotFound',
  'ContainerNotFound',
  'BackupNotConfigured',
  'Refused',
  ...podProblemReasons,
  // Failures.
  'BuildFailed',
  'BackupFailed',
  'RolloutFailed',
  'RolloutReplaced',
  'MissingBuildSettings',
  'InvalidBaseSoftware',
  'InvalidDirectoryMap',
  'InvalidBuildSteps',
  'InvalidSource',
  'ForeignArchive',
  'JobNotOwned',
  'DigestUnknown',
  'SourceBundleNotFound',
  'SourceBundleNotBuilt',
  'SourceBundleNotDeployed',
  'ForeignImage',
  'ForeignBaseImage',
] as const;
export type BundleReason = (typeof bundleReasons)[number];
