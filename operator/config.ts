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

/** A setting: the environment variable it is read from, and how it is read. */
const from = <S extends z.ZodType>(env: string, schema: S) => ({ env, schema });

/**
 * Every setting, named once: its field in the config, its environment variable, its parse (with
 * its default). The fields composed of others, and the checks across fields, follow in
 * configSchema.
 */
const SETTINGS = {
  gatewayBaseUrl: from(
    'SLIPWAY_GATEWAY_BASE_URL',
    text('http://localhost:8080')
      .pipe(z.url({ protocol: /^https?$/ }))
      .transform((v) => v.replace(/\/+$/, '')),
  ),
  builderImage: from('SLIPWAY_BUILDER_IMAGE', text('moby/buildkit:rootless')),
  fetchImage: from('SLIPWAY_FETCH_IMAGE', text('alpine/git:v2.45.1')),
  /** Has `crane` on its PATH: the build Job's push container (no user code runs there). */
  pushImage: from('SLIPWAY_PUSH_IMAGE', text('gcr.io/go-containerregistry/crane:v0.22.1')),
  registry: from(
    'SLIPWAY_REGISTRY',
    text('registry.slipway.svc.cluster.local:5000').transform((v) => v.replace(/\/+$/, '')),
  ),
  registryInsecure: from('SLIPWAY_REGISTRY_INSECURE', bool(false)),
  /** A kubernetes.io/dockerconfigjson Secret, looked up in the bundle's namespace, for pushing. */
  registryPushSecret: from('SLIPWAY_REGISTRY_PUSH_SECRET', optionalText),
  /** The same, mounted for the build (base and builder images); never the push credentials. */
  registryPullSecret: from('SLIPWAY_REGISTRY_PULL_SECRET', optionalText),
  /**
   * How builds authenticate to the registry (docs/adr/0006): `tokens`, credentials Slipway mints
   * per build for the gateway's token endpoint; `secrets`, the namespaces' own push and pull
   * Secrets; `anonymous`, none (single-team clusters only). Unset: `secrets` with a push Secret
   * configured, otherwise builds do not start (RegistryUnprotected).
   */
  registryAuth: from(
    'SLIPWAY_REGISTRY_AUTH',
    optionalText.pipe(z.enum(['tokens', 'secrets', 'anonymous']).optional()),
  ),
  /** Where the directories of directoryMap land inside the bundle image. */
  appRoot: from('SLIPWAY_APP_ROOT', text('/app')),
  backupImageMysql: from('SLIPWAY_BACKUP_IMAGE_MYSQL', text('mysql:8.4')),
  backupImagePostgresql: from('SLIPWAY_BACKUP_IMAGE_POSTGRESQL', text('postgres:17')),
  /** Builds at the same time per project, unless the Project's annotation says otherwise. */
  buildConcurrency: from('SLIPWAY_BUILD_CONCURRENCY', int(1, 1, 100)),
  /** The most builds at the same time a Project's annotation may ask for. */
  maxBuildConcurrency: from('SLIPWAY_MAX_BUILD_CONCURRENCY', int(10, 1, 100)),
  /** The most builds at the same time of all the Projects of one namespace: one tenant cannot take the build namespace. */
  maxNamespaceBuilds: from('SLIPWAY_MAX_NAMESPACE_BUILDS', int(5, 1, 1000)),
  /** Requests and limits of the build Job's containers (fetch and build). */
  buildResources: from('SLIPWAY_BUILD_RESOURCES', resources(DEFAULT_BUILD_RESOURCES)),
  /** Requests and limits of the backup Job's container. */
  backupResources: from('SLIPWAY_BACKUP_RESOURCES', resources(DEFAULT_BACKUP_RESOURCES)),
  buildTimeoutSeconds: from('SLIPWAY_BUILD_TIMEOUT_SECONDS', int(3600, 10, 86_400)),
  backupTimeoutSeconds: from('SLIPWAY_BACKUP_TIMEOUT_SECONDS', int(3600, 10, 86_400)),
  /** Where build and backup Job pods may run (for example dedicated build nodes). */
  jobNodeSelector: from(
    'SLIPWAY_JOB_NODE_SELECTOR',
    optionalText
      .pipe(
        z
          .string()
          .regex(/^[^=,\s]+=[^=,\s]*(,[^=,\s]+=[^=,\s]*)*$/, 'expected key=value[,key=value…]')
          .optional(),
      )
      .transform((v) =>
        v ? Object.fromEntries(v.split(',').map((pair) => pair.split('=') as [string, string])) : undefined,
      ),
  ),
  /**
   * A directory on the nodes where build pods keep BuildKit's store between builds, one per
   * Project and environment (off when unset: every build starts from an empty store).
   */
  buildStore: from(
    'SLIPWAY_BUILD_STORE',
    optionalText.pipe(
      z
        .string()
        .regex(
          /^\/[^\s]*[^\s/]$/,
          'expected an absolute directory path on the nodes, such as /var/lib/slipway/builds',
        )
        .optional(),
    ),
  ),
  /** The size BuildKit's own collection keeps each build store under, in MB (10^6 bytes). */
  buildStoreKeepMegabytes: from('SLIPWAY_BUILD_STORE_KEEP_MB', int(10_240, 512, 10_000_000)),
  /** Reconciles at the same time per controller. */
  workers: from('SLIPWAY_WORKERS', int(4, 1, 64)),
  leaderElection: from('SLIPWAY_LEADER_ELECTION', bool(true)),
  leaseName: from('SLIPWAY_LEASE_NAME', optionalText),
  leaseDurationSeconds: from('SLIPWAY_LEASE_DURATION_SECONDS', int(15, 3, 300)),
  adminPort: from('SLIPWAY_ADMIN_PORT', int(8081, 0, 65_535)),
  podName: from('POD_NAME', text(hostname())),
  podNamespace: from('POD_NAMESPACE', text('default')),
  /** Only this namespace; every namespace when undefined. */
  watchNamespace: from('SLIPWAY_WATCH_NAMESPACE', optionalText),
  /**
   * Where every build Job runs (docs/adr/0004): a namespace Slipway owns, the only one whose
   * Pod Security must allow rootless BuildKit; tenants have no rights there.
   */
  buildNamespace: from(
    'SLIPWAY_BUILD_NAMESPACE',
    text(DEFAULT_BUILD_NAMESPACE).pipe(
      z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'expected a namespace name'),
    ),
  ),
  /**
   * Only the objects this label selector selects (a shard, like Flux's --watch-label-selector):
   * Projects, Bundles, their Jobs and pods, and the status kinds. Environments and Webhooks are
   * watched whole and acted on for this shard's Projects. Every object when undefined.
   */
  watchLabelSelector: from(
    'SLIPWAY_WATCH_LABEL_SELECTOR',
    optionalText.refine(
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
  ),
  /**
   * The gateway's ServiceAccount (`<namespace>/<name>`): in each namespace with Projects the
   * operator lets it `get` exactly their webhook Secrets, and nothing else. Unset (a gateway
   * running with its own credentials, as under npm start): no Roles are made.
   */
  gatewayServiceAccount: from(
    'SLIPWAY_GATEWAY_SERVICE_ACCOUNT',
    optionalText
      .pipe(
        z
          .string()
          .regex(
            /^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/,
            'expected <namespace>/<name>',
          )
          .optional(),
      )
      .transform((v) => {
        if (!v) return undefined;
        const [namespace, name] = v.split('/') as [string, string];
        return { namespace, name };
      }),
  ),
  /** Signs the archive download URL a build Job gets (the gateway holds the same key). */
  archiveUrlKey: from('SLIPWAY_ARCHIVE_URL_KEY', optionalText),
  archiveBaseUrl: from(
    'SLIPWAY_ARCHIVE_BASE_URL',
    optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
  ),
  outboundAllow: from('SLIPWAY_OUTBOUND_ALLOW', cidrs),
  outboundDeny: from('SLIPWAY_OUTBOUND_DENY', cidrs),
  /**
   * What builds may reach: the operator writes the NetworkPolicy around them in the build
   * namespace from these and the cluster ranges it reads; undefined (the chart's enabled: false,
   * "off"): it writes none. JSON of rules/build-network-policy.ts's settings.
   */
  buildEgress: from(
    'SLIPWAY_BUILD_EGRESS',
    z
      .string()
      .optional()
      .transform((v, ctx): BuildEgressSettings | undefined => {
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
  ),
};

type Setting = keyof typeof SETTINGS;
const schemas = Object.fromEntries(Object.entries(SETTINGS).map(([key, s]) => [key, s.schema])) as {
  [K in Setting]: (typeof SETTINGS)[K]['schema'];
};

/** A problem of the settings as a whole, said with the variables it is about. */
const problem = (ctx: z.RefinementCtx, message: string) => ctx.addIssue({ code: 'custom', message });

const configSchema = z
  .object(schemas)
  .superRefine((s, ctx) => {
    if (s.registryAuth === 'tokens' && !s.archiveUrlKey)
      problem(
        ctx,
        'SLIPWAY_REGISTRY_AUTH=tokens needs SLIPWAY_ARCHIVE_URL_KEY, the key the gateway checks build credentials with',
      );
    if (s.registryAuth === 'secrets' && !s.registryPushSecret)
      problem(
        ctx,
        'SLIPWAY_REGISTRY_AUTH=secrets needs SLIPWAY_REGISTRY_PUSH_SECRET, the Secret each namespace pushes with',
      );
    if (s.watchNamespace === s.buildNamespace)
      problem(
        ctx,
        `SLIPWAY_BUILD_NAMESPACE must not be the watched namespace (${s.buildNamespace}): builds run apart from tenants`,
      );
  })
  .transform(({ backupImageMysql, backupImagePostgresql, outboundAllow, outboundDeny, ...s }) => ({
    ...s,
    registryAuth: s.registryAuth ?? (s.registryPushSecret ? ('secrets' as const) : undefined),
    leaseName: s.leaseName ?? leaseNameFor(s.watchLabelSelector),
    /**
     * Where the gateway serves uploaded archives to build Jobs (its SLIPWAY_ARCHIVE_BASE_URL; by
     * default the gateway's URL): an archive URL anywhere else fails its bundle, ForeignArchive.
     */
    archiveBaseUrl: (s.archiveBaseUrl ?? s.gatewayBaseUrl).replace(/\/+$/, ''),
    backupImages: { mysql: backupImageMysql, postgresql: backupImagePostgresql },
    /**
     * Outbound calls (commit statuses, notifications, subscriber webhooks) connect only to public
     * addresses: `allow` lists the inside ranges they may reach anyway, `deny` more ranges to
     * refuse (the cluster's pod and Service ranges when they are not private).
     */
    outbound: { allow: outboundAllow, deny: outboundDeny },
  }));

/** Every key present: zod leaves a key out of its output type when its value may be undefined. */
type EveryKey<T> = { [K in keyof Required<T>]: T[K] };

export type OperatorConfig = EveryKey<z.output<typeof configSchema>>;

export function loadConfig(env: Record<string, string | undefined> = process.env): OperatorConfig {
  const input = Object.fromEntries(Object.entries(SETTINGS).map(([key, s]) => [key, env[s.env]]));
  const parsed = configSchema.safeParse(input);
  // Every key is in the input (undefined when its variable is unset), so every key is in the output.
  if (parsed.success) return parsed.data as OperatorConfig;
  const problems = parsed.error.issues.map((i) => {
    const setting = SETTINGS[i.path[0] as Setting];
    const inside = i.path.slice(1).join('.');
    return setting ? `${setting.env}${inside ? `.${inside}` : ''}: ${i.message}` : i.message;
  });
  throw new Error(`invalid operator configuration: ${problems.join('; ')}`);
}
