// A promotion (docs/promotion.md): the image a bundle built, as it ran on one environment, rolled
// out to another by digest — no second build — once its gates hold: it soaked long enough, the
// status page shows no open incident or maintenance underway on the named components, and enough
// people with the verb approve on promotions said yes. People make Promotions (kubectl slipway
// promote) and append their approval (kubectl slipway promotion approve); the admission policy
// slipway-writers checks that requestedBy and each approval name their writer. Slipway makes them
// too, for an Environment's spec.promoteFrom.
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

export const promotionPhases = ['Waiting', 'Promoting', 'Succeeded', 'Failed'] as const;
export type PromotionPhase = (typeof promotionPhases)[number];

/** At most this many approvals on one Promotion (admission compares each with every other). */
export const MAX_APPROVALS = 16;

const userName = () => z.string().min(1).max(256);

export const promotionGates = z
  .object({
    soakMinutes: z.number().int().min(0).max(43_200).optional().meta({
      description:
        'The bundle has run on the source environment, Ready, at least this many minutes (counted from its rollout there).',
    }),
    components: z.array(localRef()).max(32).optional().meta({
      description:
        'StatusComponents of this namespace that noOpenIncident and outsideMaintenance look at; absent, they look at every notice of the namespace.',
    }),
    noOpenIncident: z.boolean().optional().meta({
      description: 'No unplanned StatusNotice is open (not resolved) on those components.',
    }),
    outsideMaintenance: z.boolean().optional().meta({
      description: 'No planned StatusNotice is underway (or in its window) on those components.',
    }),
    approvals: z.number().int().min(0).max(MAX_APPROVALS).optional().meta({
      description:
        'How many distinct people approved (spec.approvals): each needed the verb approve on promotions to add theirs.',
    }),
    separateApprover: z.boolean().optional().meta({
      description: "The requester's own approval does not count (four eyes).",
    }),
  })
  .meta({
    description:
      'What must hold before the image rolls out. Gates the target Environment sets (spec.promoteFrom.gates) are a minimum a Promotion cannot lower.',
  });
export type PromotionGates = z.output<typeof promotionGates>;

export const promotionSpec = z
  .object({
    projectRef: localRef().meta({ description: 'The Project whose bundle is promoted.' }),
    from: z
      .object({ environmentRef: localRef().meta({ description: 'The Environment the bundle runs on.' }) })
      .meta({
        description: 'Where the promoted bundle ran: the one deployed there now, unless bundleRef names one.',
      }),
    bundleRef: localRef().optional().meta({
      description:
        'The bundle to promote; it must have been deployed to from. Absent: the one from runs now.',
    }),
    to: z
      .object({ environmentRef: localRef().meta({ description: 'The Environment the image goes to.' }) })
      .meta({ description: 'Where the image is rolled out.' }),
    backupBeforeDeploy: z
      .boolean()
      .optional()
      .meta({ description: "Back up the target environment's database before the rollout." }),
    gates: promotionGates.optional(),
    requestedBy: userName().meta({
      description:
        'Who asked for it: the user name of whoever creates the Promotion (checked at admission; kubectl slipway promote sets it).',
    }),
    approvals: z
      .array(
        z.object({
          user: userName().meta({
            description:
              'Who approved: each may add only their own name, with the verb approve on promotions.',
          }),
        }),
      )
      .max(MAX_APPROVALS)
      .optional()
      .meta({
        description:
          'Approvals, appended by kubectl slipway promotion approve: each user once, none removed (checked at admission).',
      }),
  })
  .meta({
    'x-kubernetes-validations': [
      {
        rule: 'self.from.environmentRef.name != self.to.environmentRef.name',
        message: 'from and to must be different environments',
      },
      {
        rule:
          'self.projectRef == oldSelf.projectRef && self.from == oldSelf.from && self.to == oldSelf.to && ' +
          'self.requestedBy == oldSelf.requestedBy && ' +
          ['bundleRef', 'backupBeforeDeploy', 'gates']
            .map(
              (f) => `has(self.${f}) == has(oldSelf.${f}) && (!has(self.${f}) || self.${f} == oldSelf.${f})`,
            )
            .join(' && '),
        message:
          "a Promotion's spec is fixed once made, but for its approvals (kubectl slipway promotion approve): create a new Promotion instead",
      },
    ],
  });

export const promotionStatus = z.object({
  ...statusBase,
  phase: z.enum(promotionPhases).optional().meta({
    description:
      'Waiting (for a gate: see gates and Ready), Promoting (its bundle rolls out), Succeeded or Failed.',
  }),
  bundle: z.string().optional().meta({
    description: 'The bundle promoted: chosen once (from bundleRef, or what ran on from), then kept.',
  }),
  image: z.string().optional().meta({
    description: 'Its image, by digest: what the target environment runs once the promotion succeeds.',
  }),
  rolloutBundle: z.string().optional().meta({
    description: 'The Bundle (trigger Promotion) that rolls the image out to the target environment.',
  }),
  gates: z
    .array(
      z.object({
        name: z
          .enum(['soakMinutes', 'noOpenIncident', 'outsideMaintenance', 'approvals'])
          .meta({ description: 'The gate.' }),
        met: z.boolean().meta({ description: 'Whether it holds now.' }),
        message: z.string().max(1024).meta({ description: 'Why, for people.' }),
      }),
    )
    .max(8)
    .optional()
    .meta({ description: 'Each gate the promotion has, as last looked at.' }),
  approvals: z
    .array(
      z.object({
        user: z.string().meta({ description: 'Who approved.' }),
        at: timestamp().meta({ description: 'When Slipway first counted it.' }),
      }),
    )
    .max(MAX_APPROVALS)
    .optional()
    .meta({ description: 'The approvals Slipway counted (not the requester, with separateApprover).' }),
  finishedAt: timestamp().optional().meta({ description: 'When it succeeded or failed.' }),
});

export const Promotion: KindDefinition<typeof promotionSpec, typeof promotionStatus> = {
  kind: 'Promotion',
  plural: 'promotions',
  singular: 'promotion',
  shortNames: ['swpro'],
  description:
    "A bundle's image moved from one environment to another, the same digest with no second build, once its gates hold.",
  spec: promotionSpec,
  status: promotionStatus,
  printerColumns: [
    projectColumn,
    { name: 'From', type: 'string', jsonPath: '.spec.from.environmentRef.name' },
    { name: 'To', type: 'string', jsonPath: '.spec.to.environmentRef.name' },
    { name: 'Bundle', type: 'string', jsonPath: '.status.bundle' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    readyColumn,
    reasonColumn,
    { name: 'Image', type: 'string', jsonPath: '.status.image', priority: 1 },
    ageColumn,
  ],
};

/** The reasons of a Promotion's Ready condition (docs/resources.md lists exactly these). */
export const promotionReasons = [
  'Promoted',
  'Promoting',
  'WaitingForSoak',
  'IncidentOpen',
  'MaintenanceUnderway',
  'WaitingForApproval',
  'ProjectNotFound',
  'EnvironmentNotFound',
  'EnvironmentProjectMismatch',
  'NothingDeployed',
  'BundleNotFound',
  'BundleNotDeployed',
  'BundleNotBuilt',
  'ForeignImage',
  'ComponentNotFound',
  'SourceNotAllowed',
  'ReplacedOnSource',
  'Superseded',
  'RolloutFailed',
] as const;
export type PromotionReason = (typeof promotionReasons)[number];
