import { z } from 'zod';
import {
  ageColumn,
  dnsLabel,
  localRef,
  providers,
  readyColumn,
  reasonColumn,
  secretKeyRef,
  statusBase,
  timestamp,
  type KindDefinition,
} from './common.ts';
import { previewsSettings } from './previews-settings.ts';

/** What a notification receiver can be sent (docs/notifications.md). */
export const notificationTypes = ['generic', 'generic-hmac', 'slack', 'msteams', 'discord'] as const;
export type NotificationType = (typeof notificationTypes)[number];

/**
 * The events a bundle's end makes: Built (a bundle that deploys nothing), Deployed, RolledBack
 * (a rollback bundle deployed), and the failure of its build, backup or rollout; and those of a
 * pull request's preview.
 */
export const notificationEvents = [
  'Built',
  'BuildFailed',
  'BackupFailed',
  'Deployed',
  'RolloutFailed',
  'RolledBack',
  // A pull request's preview (docs/previews.md): served, failed, removed.
  'PreviewReady',
  'PreviewFailed',
  'PreviewRemoved',
] as const;
export type NotificationEvent = (typeof notificationEvents)[number];

/** The most notification receivers a Project has (the admission check covers each place). */
export const MAX_NOTIFICATIONS = 10;

export const projectSpec = z.object({
  provider: z.enum(providers).optional().meta({
    description:
      "The git provider that sends this project's push deliveries; the gateway verifies a delivery only by its scheme. Defaults to the provider of repository.url when that is github.com, gitlab.com, bitbucket.org, dev.azure.com, gitea.com or codeberg.org; set it for self-hosted servers (gitea also for Forgejo).",
  }),
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
    .optional()
    .meta({ description: 'The git repository git bundles are built from.' }),
  requireSignature: z.boolean().optional().meta({
    description:
      "Bitbucket only: refuse deliveries without an X-Hub-Signature. By default a Bitbucket webhook set up with the URL alone (no secret in its form) is authenticated by the URL's token; a delivery that is signed is always checked. The other providers always sign or send the secret.",
  }),
  webhookSecretRef: secretKeyRef().optional().meta({
    description: 'Webhook secret to use; when absent the operator generates one owned by the Project.',
  }),
  suspend: z.boolean().optional().meta({
    description:
      'A freeze: no new build of the project starts (builds under way finish). The gateway still takes deliveries and makes their bundles, answering "suspended": true; they build once this is false again. Changing it needs the verb deploy on the namespace\'s Environments (kubectl slipway suspend|resume project NAME).',
  }),
  report: z
    .object({
      tokenSecretRef: secretKeyRef().meta({
        description:
          'A token allowed to write commit statuses of the repository (GitHub: repo:status; GitLab: api; Bitbucket: a repository access token; Azure DevOps: a PAT with Code (status); Gitea: write:repository).',
      }),
      apiUrl: z
        .url({ protocol: /^https?$/ })
        .max(2048)
        .optional()
        .meta({
          description:
            "The provider's API. By default github.com's, gitlab.com's, Bitbucket Cloud's and Azure DevOps' public APIs, and for a self-hosted GitHub Enterprise, GitLab or Gitea the API on the repository's own host (/api/v3, /api/v4, /api/v1).",
        }),
    })
    .optional()
    .meta({
      description:
        "Report each bundle of a commit back to the provider: a commit status per step (slipway/build, slipway/deploy/<environment>) linking to the bundle. Failures show in the Project's Reported condition; builds never wait for the provider.",
    }),
  notifications: z
    .array(
      z.object({
        name: dnsLabel().meta({
          description: 'Names this receiver in the Notified condition and the bundle status.',
        }),
        type: z.enum(notificationTypes).meta({
          description:
            'generic: POST one JSON object per event; generic-hmac: the same, signed with X-Signature: sha256=<hex HMAC-SHA256 of the body>; slack: a Slack incoming webhook; msteams: a Microsoft Teams incoming webhook (Workflows or connector); discord: a Discord webhook.',
        }),
        secretRef: localRef().meta({
          description:
            'A Secret with `url` (the receiver, http or https; a credential for Slack and Teams) and, for generic-hmac, `hmacKey`.',
        }),
        events: z
          .array(z.enum(notificationEvents))
          .min(1)
          .max(notificationEvents.length)
          .optional()
          .meta({ description: 'The events sent to this receiver; all of them when absent.' }),
      }),
    )
    .max(MAX_NOTIFICATIONS)
    .optional()
    .refine((list) => !list || new Set(list.map((n) => n.name)).size === list.length, {
      message: 'notification names must be unique',
    })
    .meta({
      description:
        "Receivers told when a bundle ends: built, deployed, rolled back, or failed in its build, backup or rollout. Sent outside the reconcile path with retries; failures show in the Project's Notified condition.",
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    }),
  previews: previewsSettings.optional(),
  bundleHistoryLimit: z.number().int().min(1).max(1000).default(20).meta({
    description: 'Finished bundles to keep; older ones are deleted (never one an environment runs).',
  }),
});

export const projectStatus = z.object({
  ...statusBase,
  slug: z.string().optional().meta({ description: 'The slug this project owns (absent on a SlugConflict).' }),
  webhook: z
    .object({
      url: z.string().meta({
        description:
          'The webhook URL without its token ({gateway}/hooks/{slug}): the token is derived from the secret and is a credential; `kubectl slipway hook` prints the whole URL to paste into the git provider.',
      }),
      secretRef: secretKeyRef().meta({ description: 'Where the webhook secret is.' }),
    })
    .optional()
    .meta({ description: 'What to paste into the git provider.' }),
  uploadScriptUrl: z.string().optional().meta({ description: 'Where CI downloads upload.sh.' }),
  operatorVersion: z.string().max(64).optional().meta({
    description:
      'The version of the Slipway operator that last looked at this project (kubectl slipway version reads it).',
  }),
  prunedBundles: z
    .array(
      z.object({
        name: z.string().meta({ description: 'The pruned bundle.' }),
        prunedAt: timestamp().meta({ description: 'When it was pruned.' }),
      }),
    )
    .max(1000)
    .optional()
    .meta({
      description:
        'Bundles pruned in the last 30 days (at most 1000, newest first): a delivery or upload that would make one of them again is answered as a duplicate and builds nothing.',
    }),
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
    { name: 'Suspended', type: 'boolean', jsonPath: '.spec.suspend' },
    readyColumn,
    reasonColumn,
    ageColumn,
  ],
};

/** The reasons of a Project's Ready condition (docs/resources.md lists exactly these). */
export const projectReasons = [
  'WebhookReady',
  'InvalidSlug',
  'SlugConflict',
  'SecretNotFound',
  'SecretKeyNotFound',
  'SecretConflict',
  'CredentialsSecretNotFound',
  'KnownHostsMissing',
  'InsecureRepository',
] as const;
export type ProjectReason = (typeof projectReasons)[number];

/** The reasons of a Project's Reported condition (spec.report; docs/resources.md lists exactly these). */
export const reportReasons = ['Reported', 'ReportFailed', 'TokenNotFound', 'NotReportable'] as const;
export type ReportReason = (typeof reportReasons)[number];

/** The reasons of a Project's Notified condition (spec.notifications; docs/resources.md lists exactly these). */
export const notifyReasons = ['Notified', 'NotificationFailed', 'NotificationSecretIncomplete'] as const;
export type NotifyReason = (typeof notifyReasons)[number];
