// The operator process, started by main.ts: reads its settings from the environment (config.ts),
// serves /healthz, /readyz and /metrics on the admin port, reconciles until SIGTERM.
import { onShutdown, startAdminServer } from '../lib/admin.ts';
import { loadKubeConfig } from '../lib/kube.ts';
import { childLogger } from '../lib/log.ts';
import { loadConfig } from './config.ts';
import { watchLabelSelectorArg } from './shard.ts';
import { Operator } from './operator.ts';

const log = childLogger({ component: 'operator' });

async function main(): Promise<void> {
  // The flag (as Flux's controllers take it) wins over SLIPWAY_WATCH_LABEL_SELECTOR.
  const selector = watchLabelSelectorArg(process.argv.slice(2));
  const config = loadConfig(
    selector === undefined ? process.env : { ...process.env, SLIPWAY_WATCH_LABEL_SELECTOR: selector },
  );
  const kc = loadKubeConfig();
  const operator = new Operator(kc, config, log, {
    onLostLeadership: () => {
      // Another replica may already be acting: stop at once and let the restart begin clean.
      log.error('lost the leader lease; exiting');
      process.exit(1);
    },
  });
  const admin = await startAdminServer({ port: config.adminPort, ready: () => operator.ready() });
  log.info(
    {
      adminPort: config.adminPort,
      watchNamespace: config.watchNamespace ?? '(all)',
      watchLabelSelector: config.watchLabelSelector ?? '(all)',
      lease: config.leaseName,
      leaderElection: config.leaderElection,
      identity: config.podName,
    },
    'operator starting',
  );
  onShutdown(async () => {
    await operator.stop();
    await new Promise<void>((resolve) => admin.close(() => resolve()));
  }, log);
  await operator.start();
}

main().catch((err: unknown) => {
  log.fatal({ err: err instanceof Error ? err.message : String(err) }, 'operator failed to start');
  process.exit(1);
});
