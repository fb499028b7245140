// The backup Job of a bundle, as a plain manifest (pure; the controller creates it): the
// environment's database dumped (mysqldump or pg_dump) into its backup volume, written under a
// temporary name first. The database Secret reaches the dump only as environment variables.
import type { V1EnvVar, V1Job, V1ResourceRequirements } from '@kubernetes/client-node';
import type { BundleObject, EnvironmentObject } from '../../crds/index.ts';
import { ANNOTATION_BUNDLE } from '../../crds/labels.ts';
import { backupJobName, jobLabels } from '../names.ts';
import { controllerReferenceTo } from '../../crds/owner-references.ts';
import { isSafeRelativePath } from '../../rules/relative-path.ts';

export interface BackupJobSettings {
  backupImages: { mysql: string; postgresql: string };
  backupTimeoutSeconds: number;
  jobNodeSelector: Record<string, string> | undefined;
  backupResources: V1ResourceRequirements;
}

/** Where the backup of `bundle` goes inside the environment's volume; undefined when it cannot. */
export function backupPath(environment: EnvironmentObject, bundle: string): string | undefined {
  const storage = environment.spec.backupStorage;
  const engine = environment.spec.database?.engine;
  if (!storage || !engine) return undefined;
  const prefix = (storage.pathPrefix ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix && !isSafeRelativePath(prefix)) return undefined;
  const file = `${bundle}${engine === 'mysql' ? '.sql' : '.dump'}`;
  return [prefix, environment.metadata.name, file].filter(Boolean).join('/');
}

export function backupLocation(environment: EnvironmentObject, bundle: string): string | undefined {
  const path = backupPath(environment, bundle);
  const claim = environment.spec.backupStorage?.persistentVolumeClaim.claimName;
  return path && claim ? `pvc://${claim}/${path}` : undefined;
}

/** Writes to a temporary name first so a half-written dump never looks like a backup. */
const DUMP_SCRIPTS = {
  mysql: `set -eu
mkdir -p "$(dirname "$TARGET")"
mysqldump --single-transaction --routines --triggers --no-tablespaces -h "$DB_HOST" -P "\${DB_PORT:-3306}" -u "$DB_USER" --result-file="$TARGET.partial" "$DB_NAME"
mv "$TARGET.partial" "$TARGET"
echo "backup written to $TARGET"
`,
  postgresql: `set -eu
mkdir -p "$(dirname "$TARGET")"
pg_dump --format=custom -h "$DB_HOST" -p "\${DB_PORT:-5432}" -U "$DB_USER" -d "$DB_NAME" -f "$TARGET.partial"
mv "$TARGET.partial" "$TARGET"
echo "backup written to $TARGET"
`,
};

/** The user and group a backup runs as, and writes its dump as (the distroless "nonroot" id). */
export const BACKUP_UID = 65532;

export function backupJob(
  bundle: BundleObject,
  environment: EnvironmentObject,
  settings: BackupJobSettings,
): V1Job {
  const { namespace, name } = bundle.metadata;
  const database = environment.spec.database!;
  const claim = environment.spec.backupStorage!.persistentVolumeClaim.claimName;
  const path = backupPath(environment, name)!;
  const secret = database.secretRef.name;
  const fromSecret = (envName: string, key: string, optional = false): V1EnvVar => ({
    name: envName,
    valueFrom: { secretKeyRef: { name: secret, key, optional } },
  });
  const passwordVar = database.engine === 'mysql' ? 'MYSQL_PWD' : 'PGPASSWORD';
  const labels = jobLabels(bundle.spec.projectRef.name, name, 'backup', bundle.metadata.labels);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: backupJobName(name),
      namespace,
      labels,
      annotations: { [ANNOTATION_BUNDLE]: name },
      ownerReferences: [controllerReferenceTo('Bundle', bundle)],
    },
    spec: {
      backoffLimit: 1,
      activeDeadlineSeconds: settings.backupTimeoutSeconds,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          ...(settings.jobNodeSelector ? { nodeSelector: settings.jobNodeSelector } : {}),
          // Pod Security "restricted": the application's namespace may enforce it (builds run
          // elsewhere, docs/adr/0004). The claim is written as BACKUP_UID; fsGroup makes it
          // writable where the volume supports ownership (a hostPath volume needs chown).
          securityContext: {
            runAsNonRoot: true,
            runAsUser: BACKUP_UID,
            runAsGroup: BACKUP_UID,
            fsGroup: BACKUP_UID,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          containers: [
            {
              name: 'dump',
              image: settings.backupImages[database.engine],
              command: ['/bin/sh', '-c', DUMP_SCRIPTS[database.engine]],
              env: [
                fromSecret('DB_HOST', 'host'),
                fromSecret('DB_PORT', 'port', true),
                fromSecret('DB_NAME', 'database'),
                fromSecret('DB_USER', 'username'),
                fromSecret(passwordVar, 'password'),
                { name: 'TARGET', value: `/backup/${path}` },
              ],
              volumeMounts: [{ name: 'backup', mountPath: '/backup' }],
              resources: settings.backupResources,
              terminationMessagePolicy: 'FallbackToLogsOnError',
              securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
            },
          ],
          volumes: [{ name: 'backup', persistentVolumeClaim: { claimName: claim } }],
        },
      },
    },
  };
}
