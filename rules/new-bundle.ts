// The one way a Bundle object is made, by the gateway (a push or an upload), the CLI (`build`)
// and rollbacks (the operator's and `kubectl slipway rollback`): the same labels, owner and
// settings copied the same way.
//
// Every Bundle Slipway creates is owned by its Project, so deleting the Project deletes its
// history with it (the garbage collector does it) and a new Project of the same name never
// resumes an old bundle.
import { BUNDLE_NAME_HASH_LENGTH } from '../crds/writers.ts';
import { createHash } from 'node:crypto';
import type { V1OwnerReference } from '@kubernetes/client-node';
import { API_VERSION, type BundleObject } from '../crds/index.ts';
import { ownerReferenceTo } from '../crds/owner-references.ts';
import { withoutControlCharacters } from './text.ts';
import {
  ANNOTATION_RECEIVED_AT,
  LABEL_PROJECT,
  LABEL_SHARD,
  LABEL_TRIGGER,
  LABEL_WEBHOOK,
  labelValue,
} from '../crds/labels.ts';

type BundleSpec = BundleObject['spec'];

export interface NewBundle {
  name: string;
  namespace: string;
  /** The Project; with its uid, it owns the bundle; its shard (LABEL_SHARD) is carried. */
  project: { name: string; uid?: string | undefined; shard?: string | undefined };
  source: BundleSpec['source'];
  trigger: BundleSpec['trigger'];
  comment: string;
  /** A manual bundle whose baseSoftware, directoryMap and buildSteps are copied (pushes, uploads, `build`). */
  settingsFrom?: BundleObject;
  deploy?: { environment: string; backupBeforeDeploy: boolean };
  /** When the push or upload arrived: orders bundles created within the same second (bundle-order.ts). */
  receivedAt?: Date;
}

export function newBundle(request: NewBundle): BundleObject {
  const { project, trigger, settingsFrom: manual } = request;
  // Label values are cut to 63 characters the way the operator cuts them (crds/labels.ts).
  const labels: Record<string, string> = {
    [LABEL_PROJECT]: labelValue(project.name),
    [LABEL_TRIGGER]: trigger.type,
  };
  if (project.shard) labels[LABEL_SHARD] = project.shard;
  if (trigger.webhookRef) labels[LABEL_WEBHOOK] = labelValue(trigger.webhookRef.name);
  return {
    apiVersion: API_VERSION,
    kind: 'Bundle',
    metadata: {
      name: request.name,
      namespace: request.namespace,
      labels,
      ...(request.receivedAt
        ? { annotations: { [ANNOTATION_RECEIVED_AT]: request.receivedAt.toISOString() } }
        : {}),
      ...ownedByProject(project),
    },
    spec: {
      projectRef: { name: project.name },
      source: request.source,
      // Stored text holds no control characters (rules/text.ts).
      comment: withoutControlCharacters(request.comment),
      ...(manual
        ? {
            baseSoftware: structuredClone(manual.spec.baseSoftware),
            directoryMap: structuredClone(manual.spec.directoryMap),
            ...(manual.spec.buildSteps ? { buildSteps: structuredClone(manual.spec.buildSteps) } : {}),
          }
        : {}),
      trigger,
      ...(request.deploy
        ? {
            deploy: {
              environmentRef: { name: request.deploy.environment },
              backupBeforeDeploy: request.deploy.backupBeforeDeploy,
            },
          }
        : {}),
    },
  };
}

function ownedByProject(project: { name: string; uid?: string | undefined }): {
  ownerReferences?: V1OwnerReference[];
} {
  if (!project.uid) return {};
  return { ownerReferences: [ownerReferenceTo('Project', { metadata: project })] };
}

/** `YYYYMMDDHHMMSS` (UTC): the suffix of names made by people's commands and rollbacks. */
export function nameStamp(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:TZ.]/g, '')
    .slice(0, 14);
}

const HASH_LENGTH = BUNDLE_NAME_HASH_LENGTH;

/**
 * A name Slipway alone gives (the slipway-writers policy reserves the pattern): `<project>-<12 hex>`
 * of a hash of what makes the build the same (a push's webhook and commit, a preview's head commit).
 */
export function bundleName(projectName: string, seed: string): string {
  const hash = createHash('sha256').update(seed).digest('hex').slice(0, HASH_LENGTH);
  const prefix = projectName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, 63 - HASH_LENGTH - 1)
    .replace(/^-+|-+$/g, '');
  return prefix ? `${prefix}-${hash}` : `bundle-${hash}`;
}
