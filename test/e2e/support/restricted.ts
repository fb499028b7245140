// Application namespaces as a platform team that enforces Pod Security makes them: "restricted".
// Builds run in the build namespace (docs/adr/0004); what runs here is the application and its
// backups, which write to their claim as BACKUP_UID.
import { chownSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { BACKUP_UID } from '../../../operator/jobs/backup-job.ts';
import { createNamespace, kubectl } from '../../support/cluster.ts';

export async function applicationNamespace(
  kc: KubeConfig,
  prefix: string,
): Promise<{ name: string; remove: () => Promise<void> }> {
  const ns = await createNamespace(kc, prefix);
  await kubectl(['label', 'namespace', ns.name, 'pod-security.kubernetes.io/enforce=restricted']);
  return ns;
}

/** A directory on this machine for a hostPath backup volume: the backup user's (hostPath has no fsGroup). */
export function backupDirectory(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chownSync(dir, BACKUP_UID, BACKUP_UID);
  return dir;
}

/** What a container needs to run in a "restricted" namespace; as nobody, whatever the image says. */
export const RESTRICTED_CONTAINER = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  runAsNonRoot: true,
  runAsUser: 65534,
  seccompProfile: { type: 'RuntimeDefault' },
};

/** A Role and binding letting `user` read bundles, and pods and their logs, in `namespace` alone. */
export function tenantRole(namespace: string, user: string) {
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'bundle-reader', namespace },
      rules: [
        { apiGroups: ['slipway.dev'], resources: ['bundles'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'bundle-reader', namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'bundle-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    },
  ];
}
