// The operator's settings, all from environment variables with defaults that work on a
// local control plane. Parsed once at start-up; a bad value stops the process with a message.
import { hostname } from 'node:os';
import { z } from 'zod';
import { LABEL_SHARD } from '../crds/labels.ts';
import { leaseNameFor } from './shard.ts';
import { labelSelector, selectorKeys } from '../lib/label-selector.ts';
import { buildEgressSettings, type BuildEgressSettings } from '../rules/build-network-policy.ts';
import { parseCidr, type Cidr } from '../rules/cidr.ts';
import { DEFAULT_BUILD_NAMESPACE } from '../rules/build-namespace.ts';

const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((v) => (v === undefined ? fallback : ['true', '1', 'yes'].includes(v)));

const int = (fallback: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).optional().default(fallback);

/** Kubernetes quantities by resource name: `{"requests":{"cpu":"250m"},"limits":{"memory":"4Gi"}}`. */
const quantity = z
  .string()
  .regex(/^[0-9.]+[a-zA-Z]*$/)
  .optional();
const quantities = z.object({ cpu: quantity, memory: quantity, 'ephemeral-storage': quantity }).strict();
export type PodResources = { requests?: Record<string, string>; limits?: Record<string, string> };
const resources = (fallback: PodResources) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return fallback;
      try {
        return JSON.parse(v) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'expected JSON like {"requests":{…},"limits":{…}}' });
        return z.NEVER;
      }
    })
    .pipe(z.object({ requests: quantities.optional(), limits: quantities.optional() }).strict());

/**
 * Build and backup pods are bounded by default, so one project's build cannot take a node: the
 * builds on the real node (2 cores) stay well inside these. Disk is limited but not requested
 * (an explicit 0): a request would leave the pod unschedulable on nodes that do not report
 * ephemeral storage (kwok's simulated ones), while the kubelet enforces the limit everywhere.
 */
export const DEFAULT_BUILD_RESOURCES: PodResources = {
  requests: { cpu: '250m', memory: '512Mi', 'ephemeral-storage': '0' },
  limits: { cpu: '2', memory: '4Gi', 'ephemeral-storage': '20Gi' },
};
export const DEFAULT_BACKUP_RESOURCES: PodResources = {
  requests: { cpu: '100m', memory: '128Mi', 'ephemeral-storage': '0' },
  limits: { cpu: '1', memory: '1Gi', 'ephemeral-storage': '2Gi' },
};

const text = (fallback: string) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? fallback : v.trim()));

/** Comma-separated address ranges (`10.1.2.3/32`, `fd00::/8`; an address alone is one host). */
const cidrs = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const ranges: Cidr[] = [];
    for (const part of (v ?? '').split(',').filter((p) => p.trim() !== '')) {
      const range = parseCidr(part);
      if (range) ranges.push(range);
      else
        ctx.addIssue({ code: 'custom', message: `${JSON.stringify(part.trim())} is not an address range` });
    }
    return ranges;
  });

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const envSchema = z.object({
  SLIPWAY_GATEWAY_BASE_URL: text('http://localhost:8080')
    .pipe(z.url({ protocol: /^https?$/ }))
    .transform((v) => v.replace(/\/+$/, '')),
  SLIPWAY_BUILDER_IMAGE: text('moby/buildkit:rootless'),
  SLIPWAY_FETCH_IMAGE: text('alpine/git:v2.45.1'),
  SLIPWAY_PUSH_IMAGE: text('gcr.io/go-containerregistry/crane:v0.22.1'),
  SLIPWAY_REGISTRY: text('registry.slipway.svc.cluster.local:5000').transform((v) => v.replace(/\/+$/, '')),
  SLIPWAY_REGISTRY_INSECURE: bool(false),
  SLIPWAY_REGISTRY_PUSH_SECRET: optionalText,
  SLIPWAY_REGISTRY_PULL_SECRET: optionalText,
  SLIPWAY_REGISTRY_AUTH: optionalText.pipe(z.enum(['tokens', 'secrets', 'anonymous']).optional()),
  SLIPWAY_APP_ROOT: text('/app'),
  SLIPWAY_BACKUP_IMAGE_MYSQL: text('mysql:8.4'),
  SLIPWAY_BACKUP_IMAGE_POSTGRESQL: text('postgres:17'),
  SLIPWAY_BUILD_CONCURRENCY: int(1, 1, 100),
  SLIPWAY_MAX_BUILD_CONCURRENCY: int(10, 1, 100),
  SLIPWAY_MAX_NAMESPACE_BUILDS: int(5, 1, 1000),
  SLIPWAY_BUILD_RESOURCES: resources(DEFAULT_BUILD_RESOURCES),
  SLIPWAY_BACKUP_RESOURCES: resources(DEFAULT_BACKUP_RESOURCES),
  SLIPWAY_BUILD_TIMEOUT_SECONDS: int(3600, 10, 86_400),
  SLIPWAY_BACKUP_TIMEOUT_SECONDS: int(3600, 10, 86_400),
  SLIPWAY_JOB_NODE_SELECTOR: optionalText.pipe(
    z
      .string()
      .regex(/^[^=,\s]+=[^=,\s]*(,[^=,\s]+=[^=,\s]*)*$/, 'expected key=value[,key=value…]')
      .optional(),
  ),
  SLIPWAY_BUILD_STORE: optionalText.pipe(
    z
      .string()
      .regex(
        /^\/[^\s]*[^\s/]$/,
        'expected an absolute directory path on the nodes, such as /var/lib/slipway/builds',
      )
      .optional(),
  ),
  SLIPWAY_BUILD_STORE_KEEP_MB: int(10_240, 512, 10_000_000),
  SLIPWAY_WORKERS: int(4, 1, 64),
  SLIPWAY_LEADER_ELECTION: bool(true),
  SLIPWAY_LEASE_NAME: optionalText,
  SLIPWAY_WATCH_LABEL_SELECTOR: optionalText.refine(
    (v) => {
      try {
        labelSelector(v);
      } catch {
        return false;
      }
      // Bundles, Jobs and pods carry only the shard label: a selector on another key would
      // select Projects whose bundles it never sees.
      return selectorKeys(v).every((key) => key === LABEL_SHARD);
    },
    {
      message: `not a shard selector on ${LABEL_SHARD} (for example "${LABEL_SHARD} in (a)" or "!${LABEL_SHARD}")`,
    },
  ),

  SLIPWAY_LEASE_DURATION_SECONDS: int(15, 3, 300),
  SLIPWAY_ADMIN_PORT: int(8081, 0, 65_535),
  POD_NAME: text(hostname()),
  POD_NAMESPACE: text('default'),
  SLIPWAY_WATCH_NAMESPACE: optionalText,
  SLIPWAY_BUILD_NAMESPACE: text(DEFAULT_BUILD_NAMESPACE).pipe(
    z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'expected a namespace name'),
  ),
  SLIPWAY_ARCHIVE_URL_KEY: optionalText,
  SLIPWAY_ARCHIVE_BASE_URL: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
  SLIPWAY_OUTBOUND_ALLOW: cidrs,
  SLIPWAY_OUTBOUND_DENY: cidrs,
  /** JSON of rules/build-network-policy.ts's settings, or "off" (the chart's enabled: false). */
  SLIPWAY_BUILD_EGRESS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v?.trim() === 'off') return undefined;
      let raw: unknown;
      try {
        raw = JSON.parse(v?.trim() || '{}');
      } catch {
        ctx.addIssue({ code: 'custom', message: 'not JSON (nor "off")' });
        return z.NEVER;
      }
      const settings = buildEgressSettings.safeParse(raw);
      if (settings.success) return settings.data;
      for (const issue of settings.error.issues)
        ctx.addIssue({ code: 'custom', message: `${issue.path.join('.')}: ${issue.message}` });
      return z.NEVER;
    }),
  SLIPWAY_GATEWAY_SERVICE_ACCOUNT: optionalText.pipe(
    z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'expected <namespace>/<name>')
      .optional(),
  ),
});

export interface OperatorConfig {
  gatewayBaseUrl: string;
  builderImage: string;
  fetchImage: string;
  /** Has `crane` on its PATH: the build Job's push container (no user code runs there). */
  pushImage: string;
  registry: string;
  registryInsecure: boolean;
  /** A kubernetes.io/dockerconfigjson Secret, looked up in the bundle's namespace, for pushing. */
  registryPushSecret: string | undefined;
  /** The same, mounted for the build (base and builder images); never the push credentials. */
  registryPullSecret: string | undefined;
  /**
   * How builds authenticate to the registry (docs/adr/0006): `tokens`, credentials Slipway mints
   * per build for the gateway's token endpoint; `secrets`, the namespaces' own push and pull
   * Secrets; `anonymous`, none (single-team clusters only). Unset: `secrets` with a push Secret
   * configured, otherwise builds do not start (RegistryUnprotected).
   */
  registryAuth: 'tokens' | 'secrets' | 'anonymous' | undefined;
  /** Where the directories of directoryMap land inside the bundle image. */
  appRoot: string;
  backupImages: { mysql: string; postgresql: string };
  /** Builds at the same time per project, unless the Project's annotation says otherwise. */
  buildConcurrency: number;
  /** The most builds at the same time a Project's annotation may ask for. */
  maxBuildConcurrency: number;
  /** The most builds at the same time of all the Projects of one namespace: one tenant cannot take the build namespace. */
  maxNamespaceBuilds: number;
  /** Requests and limits of the build Job's containers (fetch and build). */
  buildResources: PodResources;
  /** Requests and limits of the backup Job's container. */
  backupResources: PodResources;
  buildTimeoutSeconds: number;
  backupTimeoutSeconds: number;
  /** Where build and backup Job pods may run (for example dedicated build nodes). */
  jobNodeSelector: Record<string, string> | undefined;
  /**
   * A directory on the nodes where build pods keep BuildKit's store between builds, one per
   * Project and environment (off when unset: every build starts from an empty store).
   */
  buildStore: string | undefined;
  /** The size BuildKit's own collection keeps each build store under, in MB (10^6 bytes). */
  buildStoreKeepMegabytes: number;
  /** Reconciles at the same time per controller. */
  workers: number;
  leaderElection: boolean;
  leaseName: string;
  leaseDurationSeconds: number;
  adminPort: number;
  podName: string;
  podNamespace: string;
  /** Only this namespace; every namespace when undefined. */
  watchNamespace: string | undefined;
  /**
   * Where every build Job runs (docs/adr/0004): a namespace Slipway owns, the only one whose
   * Pod Security must allow rootless BuildKit; tenants have no rights there.
   */
  buildNamespace: string;
  /**
   * Only the objects this label selector selects (a shard, like Flux's --watch-label-selector):
   * Projects, Bundles, their Jobs and pods, and the status kinds. Environments and Webhooks are
   * watched whole and acted on for this shard's Projects. Every object when undefined.
   */
  watchLabelSelector: string | undefined;
  /**
   * The gateway's ServiceAccount (`<namespace>/<name>`): in each namespace with Projects the
   * operator lets it `get` exactly their webhook Secrets, and nothing else. Unset (a gateway
   * running with its own credentials, as under npm start): no Roles are made.
   */
  gatewayServiceAccount: { namespace: string; name: string } | undefined;
  /** Signs the archive download URL a build Job gets (the gateway holds the same key). */
  archiveUrlKey: string | undefined;
  /**
   * Where the gateway serves uploaded archives to build Jobs (its SLIPWAY_ARCHIVE_BASE_URL; by
   * default the gateway's URL): an archive URL anywhere else fails its bundle, ForeignArchive.
   */
  archiveBaseUrl: string;
  /**
   * Outbound calls (commit statuses, notifications, subscriber webhooks) connect only to public
   * addresses: `allow` lists the inside ranges they may reach anyway, `deny` more ranges to
   * refuse (the cluster's pod and Service ranges when they are not private).
   */
  outbound: { allow: Cidr[]; deny: Cidr[] };
  /**
   * What builds may reach: the operator writes the NetworkPolicy around them in the build
   * namespace from these and the cluster ranges it reads; undefined: it writes none.
   */
  buildEgress: BuildEgressSettings | undefined;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): OperatorConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid operator configuration: ${problems}`);
  }
  const e = parsed.data;
  if (e.SLIPWAY_REGISTRY_AUTH === 'tokens' && !e.SLIPWAY_ARCHIVE_URL_KEY)
    throw new Error(
      'invalid operator configuration: SLIPWAY_REGISTRY_AUTH=tokens needs SLIPWAY_ARCHIVE_URL_KEY, the key the gateway checks build credentials with',
    );
  if (e.SLIPWAY_REGISTRY_AUTH === 'secrets' && !e.SLIPWAY_REGISTRY_PUSH_SECRET)
    throw new Error(
      'invalid operator configuration: SLIPWAY_REGISTRY_AUTH=secrets needs SLIPWAY_REGISTRY_PUSH_SECRET, the Secret each namespace pushes with',
    );
  if (e.SLIPWAY_WATCH_NAMESPACE === e.SLIPWAY_BUILD_NAMESPACE)
    throw new Error(
      `invalid operator configuration: SLIPWAY_BUILD_NAMESPACE must not be the watched namespace (${e.SLIPWAY_BUILD_NAMESPACE}): builds run apart from tenants`,
    );
  return {
    gatewayBaseUrl: e.SLIPWAY_GATEWAY_BASE_URL,
    builderImage: e.SLIPWAY_BUILDER_IMAGE,
    fetchImage: e.SLIPWAY_FETCH_IMAGE,
    pushImage: e.SLIPWAY_PUSH_IMAGE,
    registry: e.SLIPWAY_REGISTRY,
    registryInsecure: e.SLIPWAY_REGISTRY_INSECURE,
    registryPushSecret: e.SLIPWAY_REGISTRY_PUSH_SECRET,
    registryPullSecret: e.SLIPWAY_REGISTRY_PULL_SECRET,
    registryAuth: e.SLIPWAY_REGISTRY_AUTH ?? (e.SLIPWAY_REGISTRY_PUSH_SECRET ? 'secrets' : undefined),
    appRoot: e.SLIPWAY_APP_ROOT,
    backupImages: { mysql: e.SLIPWAY_BACKUP_IMAGE_MYSQL, postgresql: e.SLIPWAY_BACKUP_IMAGE_POSTGRESQL },
    buildConcurrency: e.SLIPWAY_BUILD_CONCURRENCY,
    maxBuildConcurrency: e.SLIPWAY_MAX_BUILD_CONCURRENCY,
    maxNamespaceBuilds: e.SLIPWAY_MAX_NAMESPACE_BUILDS,
    buildResources: e.SLIPWAY_BUILD_RESOURCES,
    backupResources: e.SLIPWAY_BACKUP_RESOURCES,
    buildTimeoutSeconds: e.SLIPWAY_BUILD_TIMEOUT_SECONDS,
    backupTimeoutSeconds: e.SLIPWAY_BACKUP_TIMEOUT_SECONDS,
    buildStore: e.SLIPWAY_BUILD_STORE,
    buildStoreKeepMegabytes: e.SLIPWAY_BUILD_STORE_KEEP_MB,
    jobNodeSelector: e.SLIPWAY_JOB_NODE_SELECTOR
      ? Object.fromEntries(
          e.SLIPWAY_JOB_NODE_SELECTOR.split(',').map((pair) => pair.split('=') as [string, string]),
        )
      : undefined,
    workers: e.SLIPWAY_WORKERS,
    leaderElection: e.SLIPWAY_LEADER_ELECTION,
    leaseName: e.SLIPWAY_LEASE_NAME ?? leaseNameFor(e.SLIPWAY_WATCH_LABEL_SELECTOR),
    leaseDurationSeconds: e.SLIPWAY_LEASE_DURATION_SECONDS,
    adminPort: e.SLIPWAY_ADMIN_PORT,
    podName: e.POD_NAME,
    podNamespace: e.POD_NAMESPACE,
    watchNamespace: e.SLIPWAY_WATCH_NAMESPACE,
    buildNamespace: e.SLIPWAY_BUILD_NAMESPACE,
    watchLabelSelector: e.SLIPWAY_WATCH_LABEL_SELECTOR,
    gatewayServiceAccount: e.SLIPWAY_GATEWAY_SERVICE_ACCOUNT
      ? {
          namespace: e.SLIPWAY_GATEWAY_SERVICE_ACCOUNT.split('/')[0]!,
          name: e.SLIPWAY_GATEWAY_SERVICE_ACCOUNT.split('/')[1]!,
        }
      : undefined,
    archiveUrlKey: e.SLIPWAY_ARCHIVE_URL_KEY,
    archiveBaseUrl: (e.SLIPWAY_ARCHIVE_BASE_URL ?? e.SLIPWAY_GATEWAY_BASE_URL).replace(/\/+$/, ''),
    outbound: { allow: e.SLIPWAY_OUTBOUND_ALLOW, deny: e.SLIPWAY_OUTBOUND_DENY },
    buildEgress: e.SLIPWAY_BUILD_EGRESS,
  };
}
