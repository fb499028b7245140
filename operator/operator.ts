// The operator as an object: shared informers, one controller per kind, leader election.
// start.ts runs it as a process; integration tests and benchmarks run it in-process.
//
// Informers start at once on every replica (so a new leader has warm caches); controllers
// only run while this replica leads. Losing the lease stops the controllers and reports it.
import type { KubeConfig } from '@kubernetes/client-node';
import { EventRecorder } from '../lib/events.ts';
import { kubeClients, slipwayApi } from '../lib/kube.ts';
import type { LeaderElector } from '../lib/leader.ts';
import { operatorElector } from './leadership.ts';
import type { Logger } from '../lib/log.ts';
import { SecretReader } from '../lib/secret-reader.ts';
import { reconcileRequested } from '../rules/reconcile-request.ts';
import { BundleLifecycle } from './bundle/lifecycle.ts';
import { countStep } from './bundle/step-metrics.ts';
import type { OperatorConfig } from './config.ts';
import type { OperatorContext } from './context.ts';
import { StatusWriter } from './reconcile/status-writer.ts';
import { createInformers, startInformers, stopInformers } from './informers.ts';
import { exportDeliveryFigures } from './delivery-metrics.ts';
import { exportReadiness } from './readiness-metric.ts';
import { leader as leaderGauge, zeroKnownSeries } from './metrics.ts';
import type { Controller } from './reconcile/controller.ts';
import { KindControllers } from './kind-controllers.ts';
import { DeliveryEngine } from './delivery/engine.ts';
import { sinks } from './sinks.ts';
import type { QueueTimers } from '../lib/queue.ts';
import type { ClusterRanges } from './outbound/cluster-ranges.ts';
import { outboundCalls } from './outbound/outbound-calls.ts';
import { RegistryGuard } from './outbound/registry-guard.ts';

/** Secrets stay 30 s (a missing one 5 s), and a read that fails uses one up to 5 min old. */
const SECRET_CACHE = { ttlMs: 30_000, missingTtlMs: 5_000, staleMs: 5 * 60_000 };

export interface OperatorOptions {
  /** Called when this replica loses the lease; the process should exit and start afresh. */
  onLostLeadership?: () => void;
  now?: () => Date;
  /** The delivery engine's clock and timers (tests run it on a fake clock). */
  deliveryTimers?: QueueTimers;
}

export class Operator {
  readonly context: OperatorContext;
  /** Every registered kind's controllers (kinds.ts). */
  private readonly controllers: KindControllers;
  /** A bundle's life-cycle events (started, built, backed up, deployed, rolled back, failed). */
  readonly bundleLifecycle: BundleLifecycle;
  /** Everything sent out of the cluster (commit statuses, deployments, notifications, subscribers). */
  readonly deliveries: DeliveryEngine;
  /** The cluster's Service and pod ranges and node addresses, which outbound calls never reach. */
  private readonly clusterRanges: ClusterRanges;
  /** Report tokens and notification receivers, read by name when needed. */
  private readonly secrets: SecretReader;
  private readonly elector: LeaderElector | undefined;
  private readonly log: Logger;
  private controllersRunning = false;
  private stopped = false;
  private synced = false;
  private readonly stopReadiness: () => void;
  private readonly stopDeliveryFigures: () => void;

  constructor(kc: KubeConfig, config: OperatorConfig, log: Logger, options: OperatorOptions = {}) {
    this.log = log;
    const clients = kubeClients(kc);
    const informers = createInformers(
      kc,
      config.watchNamespace,
      log,
      config.watchLabelSelector,
      config.buildNamespace,
    );
    const slipway = slipwayApi(kc);
    const events = new EventRecorder(clients.events, 'slipway.dev/operator', config.podName, log);
    const now = options.now ?? (() => new Date());
    this.context = {
      config,
      clients,
      slipway,
      informers,
      events,
      status: new StatusWriter({ slipway, events, now }),
      log,
      now,
      ...(config.registryAuth === 'tokens' ? { registryGuard: new RegistryGuard(config, log) } : {}),
    };
    const ctx = this.context;
    // Observers of bundles' life-cycle events subscribe here (docs/architecture.md).
    this.bundleLifecycle = new BundleLifecycle(log);
    this.bundleLifecycle.subscribe(countStep);
    // Tokens and receivers, read from their Secrets when needed.
    this.secrets = new SecretReader(clients.core, log, { ...SECRET_CACHE, now: () => now().getTime() });
    // Every outbound call goes through the one delivery engine, outside the reconcile (sinks.ts
    // lists them), and only where the address guard lets it.
    const { fetch: outbound, clusterRanges } = outboundCalls(kc, config, clients, log);
    this.clusterRanges = clusterRanges;
    this.deliveries = new DeliveryEngine(
      sinks({ ctx, secrets: this.secrets, lifecycle: this.bundleLifecycle }),
      {
        log,
        now,
        fetch: outbound,
        ...(options.deliveryTimers ? { timers: options.deliveryTimers } : {}),
      },
    );
    // kubectl slipway reconcile on a Project: its namespace's Secrets are read again, not taken
    // from the 30 s cache.
    ctx.informers.projects.onEvent((p) => {
      if (reconcileRequested(p)) this.secrets.forget(p.metadata.namespace);
    });
    // Only the leader's view: a standby replica's caches would report every object again.
    zeroKnownSeries();
    const leading = () => this.isLeader() && this.synced;
    this.stopReadiness = exportReadiness(ctx.informers, leading);
    this.stopDeliveryFigures = exportDeliveryFigures(ctx.informers, leading, now);
    this.controllers = new KindControllers(
      { ctx, secrets: this.secrets, outbound, lifecycle: this.bundleLifecycle },
      config.workers,
      log,
    );

    this.elector = config.leaderElection
      ? operatorElector(config, clients, log, {
          started: () => this.startControllers(),
          stopped: () => void this.stopControllers().then(() => options.onLostLeadership?.()),
        })
      : undefined;
  }

  /** Fills the caches, then runs the controllers (at once, or once this replica leads). */
  async start(): Promise<void> {
    this.stopped = false;
    const ranges = this.clusterRanges.start();
    // Builds start once the operator has asked the registry whether it asks for tokens.
    const registry = this.context.registryGuard?.start();
    this.elector?.start();
    await startInformers(this.context.informers, this.log, () => this.stopped);
    // Outbound calls wait for the cluster's ranges (a read the informers' lists have just shown
    // can be made; it is tried again every 2 s).
    await ranges;
    await registry;
    if (this.stopped) return;
    this.synced = true;
    this.log.info('caches synced');
    // Without leader election (one replica) this operator leads alone; a lease won before the
    // caches were full starts the controllers now.
    if (!this.elector) leaderGauge.set(1);
    if (this.isLeader()) this.startControllers();
  }

  /** Ready for traffic: caches synced (a standby replica is ready too: it can take over at once). */
  ready(): boolean {
    return this.synced;
  }

  isLeader(): boolean {
    return this.elector ? this.elector.isLeader() : true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.clusterRanges.stop();
    this.context.registryGuard?.stop();
    await this.stopControllers();
    await this.elector?.stop();
    leaderGauge.set(0);
    this.stopReadiness();
    this.stopDeliveryFigures();
    await stopInformers(this.context.informers);
  }

  private startControllers(): void {
    // (Leadership that came before the caches: start() starts them once they are full.)
    if (this.controllersRunning || this.stopped || !this.synced) return;
    this.controllersRunning = true;
    this.controllers.start();
    // And every recent bundle whose provider or receivers may not have its latest state yet.
    this.deliveries.resume();
    this.log.info('controllers started');
  }

  private async stopControllers(): Promise<void> {
    if (!this.controllersRunning) return;
    this.controllersRunning = false;
    const deliveries = this.deliveries.stop();
    this.secrets.clear();
    await Promise.all([deliveries, this.controllers.stop()]);
    this.log.info('controllers stopped');
  }

  /** Resolves when no controller has queued or running work (tests and benchmarks). */
  async idle(): Promise<void> {
    await this.controllers.idle();
  }

  /** The controller registered as `name` (registration.ts), for tests that wait on one. */
  controller(name: string): Controller {
    return this.controllers.get(name);
  }
}
