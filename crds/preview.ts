// A preview of one pull request (docs/previews.md, docs/adr/0005): made and kept by Slipway —
// the gateway writes it from the provider's pull-request deliveries, the operator builds the
// pull request's head commit and serves it beside the Project's previews environment. Tenants
// may change spec.approvedCommit alone (the slipway-writers policy).
import { z } from 'zod';
import {
  ageColumn,
  localRef,
  providers,
  readyColumn,
  reasonColumn,
  statusBase,
  timestamp,
  type KindDefinition,
} from './common.ts';

export const previewPhases = ['Waiting', 'Building', 'Ready', 'Failed', 'Removing'] as const;
export type PreviewPhase = (typeof previewPhases)[number];

const commit = () => z.string().regex(/^[a-f0-9]{7,64}$/);
/** A whole commit id (SHA-1 or SHA-256): an approval names every digit, since a prefix can be forged. */
const fullCommit = () => z.string().regex(/^([a-f0-9]{40}|[a-f0-9]{64})$/);

export const previewSpec = z.object({
  projectRef: localRef().meta({ description: 'The Project whose pull request this is.' }),
  provider: z.enum(providers).meta({ description: 'The git provider the pull request is on.' }),
  number: z
    .number()
    .int()
    .min(1)
    .meta({ description: "The pull request's number on the provider (GitLab: the merge request's iid)." }),
  title: z.string().max(1024).optional().meta({ description: "The pull request's title." }),
  branch: z
    .string()
    .min(1)
    .max(255)
    .meta({ description: 'The branch the pull request brings in (its head).' }),
  targetBranch: z.string().max(255).optional().meta({ description: 'The branch it is to be merged into.' }),
  headCommit: commit().meta({
    description: "The pull request's head commit, as the provider last sent it: what the preview builds.",
  }),
  fetchRef: z.string().min(1).max(255).optional().meta({
    description:
      'The ref under which the base repository publishes the head commit (refs/pull/<n>/head on GitHub and Gitea): the build fetches it from there, also for forks.',
  }),
  author: z.string().max(255).optional().meta({ description: 'Who opened the pull request.' }),
  fork: z.boolean().default(false).meta({
    description:
      "Whether the head is in another repository than the base (a fork): built only as the Project's previews.forks allows.",
  }),
  pullRequestUrl: z.string().max(2048).optional().meta({ description: "The pull request's page." }),
  approvedCommit: fullCommit().optional().meta({
    description:
      'The whole head commit (40 or 64 hex digits) someone read and approved: a fork pull request is built only when this is its head commit (previews.forks: Approve): set by `kubectl slipway preview approve`, which needs the verb approve on previews. A new push drops the approval.',
  }),
});

export const previewStatus = z.object({
  ...statusBase,
  phase: z.enum(previewPhases).optional().meta({
    description:
      'Waiting (for an approval, a free preview slot or something the Project names), Building, Ready (served at url), Failed, Removing.',
  }),
  url: z.string().optional().meta({ description: 'Where the preview is served (its Ingress host).' }),
  bundle: z.string().optional().meta({ description: 'The Bundle that builds the head commit.' }),
  deployedCommit: z.string().optional().meta({ description: 'The commit the preview serves now.' }),
  seenCommit: z
    .string()
    .optional()
    .meta({ description: 'The head commit lastPushAt belongs to: a new one is a push.' }),
  lastPushAt: timestamp()
    .optional()
    .meta({ description: 'When Slipway first saw the current head commit (idleHours counts from it).' }),
  reported: z
    .array(
      z.object({
        id: z.string().meta({ description: 'What was reported: comment, or slipway/preview@<commit>.' }),
        value: z
          .string()
          .optional()
          .meta({ description: 'What the provider took (a state, a digest of the comment).' }),
        remoteId: z
          .string()
          .max(64)
          .optional()
          .meta({ description: "The comment's id on the provider, edited in place." }),
      }),
    )
    .max(8)
    .optional()
    .meta({
      description:
        'What the provider took for this pull request (Project spec.report): its one comment, edited in place, and the slipway/preview commit status.',
    }),
  notified: z
    .array(
      z.object({
        name: z.string().meta({ description: "The receiver (the Project's spec.notifications name)." }),
        event: z
          .string()
          .meta({ description: 'The event it took: PreviewReady, PreviewFailed or PreviewRemoved.' }),
        commit: z.string().optional().meta({ description: 'The head commit the event was about.' }),
      }),
    )
    .max(16)
    .optional()
    .meta({
      description:
        'The notifications receivers took for this preview (Project spec.notifications): each event once per head commit.',
    }),
  expiresAt: timestamp()
    .optional()
    .meta({ description: 'When the preview is removed unless a push comes first (previews.idleHours).' }),
});

export const Preview: KindDefinition<typeof previewSpec, typeof previewStatus> = {
  kind: 'Preview',
  plural: 'previews',
  singular: 'preview',
  shortNames: ['swpr'],
  description:
    "A pull request's preview, made by Slipway: its head commit built and served at its own host beside an environment, removed when the pull request closes.",
  spec: previewSpec,
  status: previewStatus,
  printerColumns: [
    { name: 'PR', type: 'integer', jsonPath: '.spec.number' },
    { name: 'Branch', type: 'string', jsonPath: '.spec.branch' },
    { name: 'Commit', type: 'string', jsonPath: '.spec.headCommit' },
    { name: 'URL', type: 'string', jsonPath: '.status.url' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase', priority: 1 },
    readyColumn,
    reasonColumn,
    ageColumn,
  ],
};

/** The reasons of a Preview's Ready condition (docs/resources.md lists exactly these). */
export const previewReasons = [
  'Served',
  'Building',
  'Progressing',
  'ProjectNotFound',
  'PreviewsNotEnabled',
  'MissingBuildSettings',
  'EnvironmentNotFound',
  'DeploymentNotFound',
  'ContainerNotFound',
  'ForkNotAllowed',
  'WaitingForApproval',
  'MaxPreviewsReached',
  'InvalidHost',
  'ServiceNotFound',
  'NameTaken',
  'HostTaken',
  'BuildFailed',
  'RolloutFailed',
  'Removed',
] as const;
export type PreviewReason = (typeof previewReasons)[number];
