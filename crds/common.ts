// Building blocks shared by every kind. The CRD YAML, the TypeScript types and the runtime
// validation are all derived from these zod schemas (see generate.ts).
import { z } from 'zod';

export const GROUP = 'slipway.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

/**
 * The git providers Slipway supports: the one list (a Bundle's trigger.provider, a Project's
 * spec.provider). Each has its module in providers/, and providers/registry.ts must name them all.
 */
export const providers = ['github', 'gitlab', 'bitbucket', 'azure-devops', 'gitea'] as const;
export type Provider = (typeof providers)[number];

const timestamp = () => z.iso.datetime({ offset: true });
export { timestamp };

/** A DNS-1123 label: what Kubernetes accepts as an object name part and what we accept as a slug. */
export const dnsLabel = () =>
  z
    .string()
    .min(1)
    .max(63)
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);

/** `{name}` of an object in the same namespace. */
export const localRef = () =>
  z.object({ name: dnsSubdomain().meta({ description: 'Name of the object, in the same namespace.' }) });

export const dnsSubdomain = () =>
  z
    .string()
    .min(1)
    .max(253)
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/);

/** A key of a Secret in the same namespace. */
export const secretKeyRef = () =>
  z.object({
    name: dnsSubdomain().meta({ description: 'Name of the Secret, in the same namespace.' }),
    key: z.string().min(1).max(253).meta({ description: "Key in the Secret's data." }),
  });

/** metav1.Condition, as the API conventions define it. */
export const condition = z.object({
  type: z.string().min(1).max(316).meta({ description: 'What the condition is about, for example Ready.' }),
  status: z.enum(['True', 'False', 'Unknown']).meta({ description: 'True, False or Unknown.' }),
  observedGeneration: z
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ description: 'The metadata.generation this condition was set for.' }),
  lastTransitionTime: timestamp().meta({ description: 'When the status last changed.' }),
  reason: z
    .string()
    .min(1)
    .max(1024)
    .regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/)
    .meta({ description: 'Why, as one CamelCase word a program can match on.' }),
  message: z.string().max(32768).meta({ description: 'Why, for people.' }),
});
export type Condition = z.infer<typeof condition>;

/** Fields every kind's status carries. */
export const statusBase = {
  observedGeneration: z
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ description: 'The metadata.generation the operator last acted on.' }),
  lastHandledReconcileAt: z.string().max(256).optional().meta({
    description:
      'The value of the slipway.dev/requested-at annotation the operator last acted on (kubectl slipway reconcile sets it and waits for this).',
  }),
  conditions: z
    .array(condition)
    .max(32)
    .optional()
    .meta({
      description: 'The latest observations of the object; Ready summarises them.',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    }),
};

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'date' | 'boolean';
  jsonPath: string;
  description?: string;
  priority?: number;
}

/** One custom resource kind: its schemas and what `kubectl` shows of it. */
export interface KindDefinition<Spec extends z.ZodType = z.ZodType, Status extends z.ZodType = z.ZodType> {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  description: string;
  spec: Spec;
  status: Status;
  printerColumns: PrinterColumn[];
}

/** The Project an object belongs to (spec.projectRef). */
export const projectColumn: PrinterColumn = {
  name: 'Project',
  type: 'string',
  jsonPath: '.spec.projectRef.name',
};

export const readyColumn: PrinterColumn = {
  name: 'Ready',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
};
export const reasonColumn: PrinterColumn = {
  name: 'Reason',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
  priority: 1,
};
export const ageColumn: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
};

/** The shape of a stored object of a kind. */
export interface Resource<Spec, Status> {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace: string;
    uid?: string;
    generation?: number;
    resourceVersion?: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    ownerReferences?: Array<{
      apiVersion: string;
      kind: string;
      name: string;
      uid: string;
      controller?: boolean;
      blockOwnerDeletion?: boolean;
    }>;
  };
  spec: Spec;
  status?: Status;
}
