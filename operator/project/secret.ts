// The webhook Secret the operator generates for a Project that references none.
import { controllerReferenceTo } from '../../crds/owner-references.ts';
import { randomBytes } from 'node:crypto';
import type { V1Secret } from '@kubernetes/client-node';
import type { ProjectObject } from '../../crds/index.ts';
import { LABEL_PROJECT, MANAGED_BY, labelValue } from '../../crds/labels.ts';
import { MANAGER, WEBHOOK_SECRET_KEY, webhookSecretName } from '../names.ts';

/** 32 random bytes (256 bits), base64url so it pastes cleanly into a provider's form. */
export function generateSecretValue(): string {
  return randomBytes(32).toString('base64url');
}

export function generatedSecretRef(project: ProjectObject): { name: string; key: string } {
  return { name: webhookSecretName(project.metadata.name), key: WEBHOOK_SECRET_KEY };
}

export function webhookSecret(project: ProjectObject, value: string): V1Secret {
  const { name, key } = generatedSecretRef(project);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: project.metadata.namespace,
      labels: { [MANAGED_BY]: MANAGER, [LABEL_PROJECT]: labelValue(project.metadata.name) },
      ownerReferences: [controllerReferenceTo('Project', project)],
    },
    type: 'Opaque',
    stringData: { [key]: value },
  };
}

/** Whether `secret` is the one this operator generated for `project`. */
export function ownedBy(secret: V1Secret, project: ProjectObject): boolean {
  return (secret.metadata?.ownerReferences ?? []).some(
    (o) => o.kind === 'Project' && o.uid === project.metadata.uid && o.controller,
  );
}
