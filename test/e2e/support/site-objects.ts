// The objects a site's project needs on the real node, as the e2e tests apply them: a backup
// volume on this machine, the Deployment a bundle rolls out to, a database Secret, the project
// "site" with its environments and its main-to-staging webhook.
import { withToken } from '../../../rules/webhook-url.ts';
import type { ProjectObject } from '../../../crds/index.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import { testKubeConfig, waitFor, webhookSecretValue } from '../../support/cluster.ts';
import type { Database } from './host-services.ts';
import { RESTRICTED_CONTAINER } from './restricted.ts';

/** A PersistentVolume on `hostDir` bound to the claim `backups` of `namespace`, and that claim. */
export function backupVolume(namespace: string, hostDir: string) {
  const volume = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: `${namespace}-backups` },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      storageClassName: '',
      claimRef: { namespace, name: 'backups' },
      hostPath: { path: hostDir, type: 'Directory' },
    },
  };
  const claim = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'backups' },
    spec: {
      accessModes: ['ReadWriteOnce'],
      storageClassName: '',
      volumeName: `${namespace}-backups`,
      resources: { requests: { storage: '1Gi' } },
    },
  };
  return { volume, claim };
}

/** A Deployment serving `image` until a bundle replaces it, ready once its port answers. */
/** A Service `name` for the pods of webDeployment(name): what a preview copies and routes to. */
export function webService(name: string, port: number) {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name },
    spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: port }] },
  };
}

export function webDeployment(
  name: string,
  web: { image: string; port: number },
  progressDeadlineSeconds = 30,
) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 1,
      progressDeadlineSeconds,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name: 'web',
              image: web.image,
              ports: [{ containerPort: web.port }],
              readinessProbe: { tcpSocket: { port: web.port }, periodSeconds: 1 },
              // The base images run as nobody: fit for a "restricted" namespace.
              securityContext: RESTRICTED_CONTAINER,
            },
          ],
        },
      },
    },
  };
}

/** The Secret an Environment's `database.secretRef` names. */
export function databaseSecret(name: string, db: Database, password = db.password) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name },
    stringData: {
      host: db.host,
      port: String(db.port),
      database: db.database,
      username: db.username,
      password,
    },
  };
}

/** The project "site" building from `repositoryUrl`. */
export function siteProject(namespace: string, repositoryUrl: string) {
  return {
    apiVersion: 'slipway.dev/v1alpha1',
    kind: 'Project',
    metadata: { name: 'site' },
    spec: { slug: `site-${namespace}`, repository: { url: repositoryUrl } },
  };
}

/** Environment `name` of "site": Deployment site-<name>, database Secret db-<name>, backups on the claim. */
export function siteEnvironment(name: string, engine: 'mysql' | 'postgresql', autoRollback = false) {
  return {
    apiVersion: 'slipway.dev/v1alpha1',
    kind: 'Environment',
    metadata: { name },
    spec: {
      projectRef: { name: 'site' },
      deploymentRef: { name: `site-${name}`, container: 'web' },
      database: { engine, secretRef: { name: `db-${name}` } },
      backupStorage: { persistentVolumeClaim: { claimName: 'backups' }, pathPrefix: 'site' },
      ...(autoRollback ? { autoRollback } : {}),
    },
  };
}

/** Pushes to main deploy to staging, after a backup unless told otherwise. */
export function mainToStagingWebhook(backupBeforeDeploy = true) {
  return {
    apiVersion: 'slipway.dev/v1alpha1',
    kind: 'Webhook',
    metadata: { name: 'main-to-staging' },
    spec: {
      projectRef: { name: 'site' },
      branch: 'main',
      matchMode: 'Exact',
      environmentRef: { name: 'staging' },
      backupBeforeDeploy,
    },
  };
}
export const mainToStaging = mainToStagingWebhook();

/**
 * A manual bundle of project "site": `commit` of `branch` on the base image `base`, serving web/;
 * `more` adds to its spec (deploy, buildSteps, comment, directoryMap). Without a deploy it ends Built.
 */
export function siteManualBundle(
  name: string,
  source: { commit: string; branch?: string },
  base: string,
  more: Record<string, unknown> = {},
) {
  return {
    apiVersion: 'slipway.dev/v1alpha1',
    kind: 'Bundle',
    metadata: { name },
    spec: {
      projectRef: { name: 'site' },
      source: { git: { commit: source.commit, branch: source.branch ?? 'main' } },
      baseSoftware: { image: base },
      directoryMap: { web: 'web' },
      trigger: { type: 'Manual' },
      ...more,
    },
  };
}

/** The webhook URL and secret "site" publishes, once the operator has. */
export async function siteWebhook(namespace: string): Promise<{ url: string; secret: string }> {
  const api = slipwayApi(testKubeConfig());
  const project = await waitFor('the project to publish its webhook URL', async () => {
    const p = await api.get<ProjectObject>('Project', namespace, 'site');
    return p.status?.webhook?.url ? p : undefined;
  });
  const secret = await webhookSecretValue(namespace, project.status!.webhook!.secretRef.name);
  // status.webhook.url leaves out the token: whoever may read the Secret derives it.
  return { url: withToken(project.status!.webhook!.url, project.status!.slug!, secret), secret };
}
