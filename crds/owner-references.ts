// The one way Slipway writes an owner reference to one of its objects: the owned object goes with
// its owner (Kubernetes' garbage collector), and, as its controller, is its alone.
import type { V1OwnerReference } from '@kubernetes/client-node';
import { API_VERSION } from './common.ts';

type Owner = { metadata: { name: string; uid?: string } };
type Reference = Required<Pick<V1OwnerReference, 'apiVersion' | 'kind' | 'name' | 'uid'>>;

/** An owner reference: the object goes with `owner` (no claim to control it). */
export function ownerReferenceTo(kind: string, owner: Owner): Reference {
  return { apiVersion: API_VERSION, kind, name: owner.metadata.name, uid: owner.metadata.uid ?? '' };
}

/** The controller reference: `owner` controls the object, and its deletion waits for the object's. */
export function controllerReferenceTo(
  kind: string,
  owner: Owner,
): Reference & Required<Pick<V1OwnerReference, 'controller' | 'blockOwnerDeletion'>> {
  return { ...ownerReferenceTo(kind, owner), controller: true, blockOwnerDeletion: true };
}
