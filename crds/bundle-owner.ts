// Every Bundle Slipway creates — the gateway's, the CLI's, a rollback — is owned by its Project,
// so deleting the Project deletes its history with it (the garbage collector does it) and a new
// Project of the same name never resumes an old bundle.
import type { V1OwnerReference } from '@kubernetes/client-node';
import { API_VERSION } from './common.ts';

export function ownedByProject(project: { name: string; uid?: string }): {
  ownerReferences?: V1OwnerReference[];
} {
  if (!project.uid) return {};
  return {
    ownerReferences: [{ apiVersion: API_VERSION, kind: 'Project', name: project.name, uid: project.uid }],
  };
}
