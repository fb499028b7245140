// Project.spec.previews: how a project's pull requests are previewed (docs/previews.md).
import { z } from 'zod';
import { localRef } from './common.ts';

export const previewTriggers = ['Label', 'Always'] as const;
export const forkPolicies = ['Deny', 'Approve'] as const;

/** The most Secrets previews.forkSecrets names (the admission check covers each place). */
export const MAX_FORK_SECRETS = 8;

/** The placeholders previews.host may use. */
export const HOST_PLACEHOLDERS = ['number', 'branch', 'project', 'namespace'] as const;

export const previewsSettings = z
  .object({
    environmentRef: localRef().meta({
      description:
        'The Environment a preview is copied from: its Deployment (one replica, the built image) and the Services that select its pods. Its own objects are read, never changed. Setting it needs the verb deploy on that Environment.',
    }),
    trigger: z.enum(previewTriggers).default('Label').meta({
      description:
        'Label: only pull requests carrying `label` get a preview (removing the label removes it); Always: every pull request that is not a draft. Bitbucket Cloud has no labels: use Always.',
    }),
    label: z.string().min(1).max(255).default('preview').meta({ description: 'The label of trigger Label.' }),
    host: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[a-z0-9{}.-]+$/)
      .meta({
        description:
          'The Ingress host of a preview, with the placeholders {number}, {branch} (made a DNS label), {project} and {namespace}; for example pr-{number}.shop.preview.example.com. Point a wildcard DNS record at the Ingress controller.',
      }),
    ingressClassName: z
      .string()
      .min(1)
      .max(253)
      .optional()
      .meta({ description: "The previews' IngressClass." }),
    tlsSecretRef: localRef().optional().meta({
      description:
        'A TLS Secret (a wildcard certificate for the hosts) the Ingress serves: the preview URL is then https. Naming it needs get on it.',
    }),
    forks: z.enum(forkPolicies).default('Deny').meta({
      description:
        'Deny: a pull request from a fork gets no preview and says why; Approve: it is built once someone with the verb approve on previews approves its head commit (kubectl slipway preview approve).',
    }),
    forkSecrets: z.array(localRef()).max(MAX_FORK_SECRETS).optional().meta({
      description:
        "The only Secrets a fork's preview keeps of its environment's Deployment (env, envFrom and volumes naming others are left out of the copy, and no ServiceAccount token is mounted). Whatever a fork's code can read, its author can read: name only Secrets made for previews. Naming one needs get on it.",
    }),
    maxPreviews: z.number().int().min(1).max(100).default(10).meta({
      description: 'At most this many previews are built and served at once; more wait, and say so.',
    }),
    idleHours: z.number().int().min(1).max(8760).default(120).meta({
      description: 'A preview with no push for this long is removed.',
    }),
  })
  .meta({
    description:
      "Preview every pull request: its head commit built as for a push, served at its own host beside environmentRef, reported on the pull request, removed when it closes (docs/previews.md). The provider's webhook must send pull-request events too.",
  });
export type PreviewsSettings = z.output<typeof previewsSettings>;
