// The webhook gateway process: `node webhook-gateway/main.ts`.
import { providers } from '../crds/index.ts';
import { DEFAULT_BUILD_NAMESPACE } from '../rules/build-namespace.ts';
import { z } from 'zod';
import { onShutdown, startAdminServer } from '../lib/admin.ts';
import { clientAddress, parseTrustedProxies } from '../lib/client-address.ts';
import { loadKubeConfig, slipwayApi } from '../lib/kube.ts';
import { logger } from '../lib/log.ts';
import { counter, histogram } from '../lib/metrics.ts';
import { collectOrphanArchives } from './archive/collector.ts';
import { ARCHIVE_GC_GRACE_MS, ARCHIVE_GC_INTERVAL_MS, ARCHIVE_TMP_MAX_AGE_MS } from './limits.ts';
import { bundleWriter, ClusterAdapter } from './cluster-adapter.ts';
import { previewWriter } from '../lib/preview-writer.ts';
import { createArchiveStore, loadArchiveStoreConfig } from './archive/store-config.ts';
import { createGatewayServer } from './index.ts';
import { tokenSigner } from './registry/token-signer.ts';

const env = z
  .object({
    SLIPWAY_PORT: z.coerce.number().int().min(1).max(65535).default(8080),
    SLIPWAY_ADMIN_PORT: z.coerce.number().int().min(1).max(65535).default(8081),
    SLIPWAY_PUBLIC_URL: z.url({
      message: 'SLIPWAY_PUBLIC_URL must be the public http(s) address of the gateway',
    }),
    SLIPWAY_ARCHIVE_BASE_URL: z.url().optional(),
    SLIPWAY_ARCHIVE_URL_KEY: z
      .string()
      .min(32, 'SLIPWAY_ARCHIVE_URL_KEY needs at least 32 characters')
      .optional(),
    SLIPWAY_MAX_UPLOAD_BYTES: z.coerce.number().int().positive().optional(),
    SLIPWAY_WATCH_NAMESPACE: z.string().optional(),
    SLIPWAY_BUILD_NAMESPACE: z.string().default(DEFAULT_BUILD_NAMESPACE),
    SLIPWAY_TRUSTED_PROXIES: z.string().default(''),
    // The registry token endpoint (docs/adr/0006): on with a key; credentials need the archive key.
    SLIPWAY_REGISTRY_TOKEN_KEY: z.string().optional(),
    SLIPWAY_REGISTRY_TOKEN_SERVICE: z.string().min(1).default('slipway-registry'),
    SLIPWAY_REGISTRY_TOKEN_ISSUER: z.string().min(1).default('slipway'),
    SLIPWAY_REGISTRY_PUBLIC_REPOSITORIES: z.string().default(''),
    SLIPWAY_REGISTRY_TOKEN_SECONDS: z.coerce.number().int().min(60).max(3600).default(600),
  })
  .parse(process.env);
// SLIPWAY_ARCHIVE_STORE (filesystem|s3), SLIPWAY_ARCHIVE_DIR and SLIPWAY_S3_*: see store-config.ts.
const storeConfig = loadArchiveStoreConfig(process.env);
const store = createArchiveStore(storeConfig);

const log = logger.child({ component: 'webhook-gateway' });
const requests = histogram('slipway_gateway_request_duration_seconds', 'Gateway requests by route template', [
  'method',
  'route',
  'status',
]);
const deliveries = counter('slipway_gateway_deliveries_total', 'Deliveries by provider and result', [
  'provider',
  'result',
]);
// At 0 from the start, so an alert's increase() counts the first rejection after a restart.
for (const provider of [...providers, 'upload']) deliveries.inc({ provider, result: 'rejected' }, 0);
const archivesCollected = counter(
  'slipway_gateway_archives_collected_total',
  'Stored archives deleted because no Bundle refers to them',
  [],
);

// Behind an ingress every provider shares the proxy's address: believe its X-Forwarded-For, so
// failed authentications are counted per real client and one bad sender cannot lock out the rest.
const trustedProxies = parseTrustedProxies(
  env.SLIPWAY_TRUSTED_PROXIES.split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);
const registryTokens = env.SLIPWAY_REGISTRY_TOKEN_KEY
  ? {
      signer: tokenSigner(env.SLIPWAY_REGISTRY_TOKEN_KEY),
      service: env.SLIPWAY_REGISTRY_TOKEN_SERVICE,
      issuer: env.SLIPWAY_REGISTRY_TOKEN_ISSUER,
      publicRepositories: env.SLIPWAY_REGISTRY_PUBLIC_REPOSITORIES.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      lifetimeSeconds: env.SLIPWAY_REGISTRY_TOKEN_SECONDS,
    }
  : undefined;
if (registryTokens && !env.SLIPWAY_ARCHIVE_URL_KEY)
  throw new Error(
    'SLIPWAY_REGISTRY_TOKEN_KEY needs SLIPWAY_ARCHIVE_URL_KEY: build credentials are signed with it',
  );
const kc = loadKubeConfig();
const cluster = new ClusterAdapter(kc, env.SLIPWAY_WATCH_NAMESPACE || undefined, log);
await store.removeStaleTemporaryFiles(new Date(), ARCHIVE_TMP_MAX_AGE_MS);

const server = createGatewayServer({
  publicBaseUrl: env.SLIPWAY_PUBLIC_URL.replace(/\/$/, ''),
  archiveBaseUrl: env.SLIPWAY_ARCHIVE_BASE_URL,
  projectBySlug: cluster.projectBySlug,
  bundleByName: cluster.bundleByName,
  buildLogs: cluster.buildLogs,
  buildNamespace: env.SLIPWAY_BUILD_NAMESPACE,
  createBundles: bundleWriter(slipwayApi(kc), cluster.bundleByName),
  writePreview: previewWriter(slipwayApi(kc)),
  archiveStore: store,
  archiveLimits: env.SLIPWAY_MAX_UPLOAD_BYTES ? { maxArchiveBytes: env.SLIPWAY_MAX_UPLOAD_BYTES } : undefined,
  archiveSigningKey: env.SLIPWAY_ARCHIVE_URL_KEY,
  registryTokens,
  isReady: () => cluster.synced(),
  clientAddress: (req) =>
    clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], trustedProxies),
  logger: log,
  observe: ({ method, route, status, durationSeconds, provider, result }) => {
    requests.observe({ method, route, status: String(status) }, durationSeconds);
    if (route === '/hooks/:slug/:token' || route === '/hooks/:slug' || route === '/uploads/:slug') {
      deliveries.inc({
        provider: provider ?? (route === '/uploads/:slug' ? 'upload' : 'unknown'),
        result: result ?? 'rejected',
      });
    }
  },
});

const admin = await startAdminServer({ port: env.SLIPWAY_ADMIN_PORT, ready: () => cluster.synced() });
server.listen(env.SLIPWAY_PORT, () =>
  log.info({ port: env.SLIPWAY_PORT, archiveStore: storeConfig.type }, 'webhook gateway listening'),
);
await cluster.start();
log.info('caches synced');

// Archives no Bundle refers to any more are deleted, at start and then every interval.
const watchNamespace = env.SLIPWAY_WATCH_NAMESPACE || undefined;
const collect = async () => {
  try {
    const { removed, seen, ran } = await collectOrphanArchives({
      store,
      referencedKeys: cluster.referencedArchiveKeys,
      namespace: watchNamespace,
      graceMs: ARCHIVE_GC_GRACE_MS,
      now: () => new Date(),
    });
    archivesCollected.inc(removed.length);
    if (ran) log.info({ seen, removed: removed.length }, 'collected archives no bundle refers to');
  } catch (err) {
    log.warn({ err }, 'collecting unused archives failed; trying again later');
  }
};
void collect();
const collector = setInterval(() => void collect(), ARCHIVE_GC_INTERVAL_MS);
collector.unref();

onShutdown(async () => {
  clearInterval(collector);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await cluster.stop();
  admin.close();
}, log);
