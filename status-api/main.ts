// The status API process: `node status-api/main.ts`.
import { z } from 'zod';
import { onShutdown, startAdminServer } from '../lib/admin.ts';
import { loadKubeConfig } from '../lib/kube.ts';
import { logger } from '../lib/log.ts';
import { observeRequest } from './metrics.ts';
import { createStatusApp } from './server.ts';
import { StatusStore } from './store.ts';
import { watchStatusResources } from './watch.ts';

const env = z
  .object({
    SLIPWAY_PORT: z.coerce.number().int().min(1).max(65535).default(8080),
    SLIPWAY_ADMIN_PORT: z.coerce.number().int().min(1).max(65535).default(8081),
    SLIPWAY_STATUS_NAMESPACE: z
      .string()
      .min(1, 'SLIPWAY_STATUS_NAMESPACE names the namespace of the StatusPage'),
    SLIPWAY_TRUSTED_PROXIES: z.string().default(''),
    SLIPWAY_RATE_LIMIT_RPS: z.coerce.number().min(0).default(10),
  })
  .parse(process.env);

const log = logger.child({ component: 'status-api' });
const store = new StatusStore();
const kc = loadKubeConfig();
const app = createStatusApp({
  store,
  logger: log,
  config: {
    trustedProxies: env.SLIPWAY_TRUSTED_PROXIES.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    rateLimit:
      env.SLIPWAY_RATE_LIMIT_RPS > 0
        ? {
            requestsPerSecond: env.SLIPWAY_RATE_LIMIT_RPS,
            burst: Math.max(1, Math.ceil(env.SLIPWAY_RATE_LIMIT_RPS)),
          }
        : { enabled: false },
  },
  observeRequest,
});

const admin = await startAdminServer({ port: env.SLIPWAY_ADMIN_PORT, ready: () => store.synced });
const server = app.listen(env.SLIPWAY_PORT, () =>
  log.info({ port: env.SLIPWAY_PORT }, 'status API listening'),
);
const watch = await watchStatusResources(kc, env.SLIPWAY_STATUS_NAMESPACE, store, log);
log.info({ namespace: env.SLIPWAY_STATUS_NAMESPACE }, 'status resources synced');

onShutdown(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await watch.stop();
  admin.close();
}, log);
