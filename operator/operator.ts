// The operator as an object: shared informers, one controller per kind, leader election.
// start.ts runs it as a process; integration tests and benchmarks run it in-process.
//
// Informers start at once on every replica (so a new leader has warm caches); controllers
// only run while this replica leads. Losing the lease stops the controllers and reports it.
import type { KubeConfig } from '@kubernetes/client-node';
import { EventRecorder } from '../lib/events.ts';
import { kubeClients, slipwayApi } from '../lib/kube.ts';
import { LeaderElector } from '../lib/leader.ts';
import type { Logger } from '../lib/log.ts';
import { SecretReader } from '../lib/secret-reader.ts';
import { reconcileRequested } from '../rules/reconcile-request.ts';
import { BundleReconciler } from './bundle/controller.ts';
import { BundleLifecycle } from './bundle/lifecycle.ts';
import { countStep } from './bundle/step-metrics.ts';
import { watchForBundles } from './bundle/watches.ts';
import type { OperatorConfig } from './config.ts';
import type { OperatorContext } from './context.ts';
import { StatusWriter } from './reconcile/status-writer.ts';
import { EnvironmentReconciler, watchForEnvironments } from './environment/controller.ts';
import { allInformers, createInformers } from './informers.ts';
import { exportDeliveryFigures } from './delivery-metrics.ts';
import { exportReadiness } from './readiness-metric.ts';
import { leader as leaderGauge, zeroKnownSeries } from './metrics.ts';
import { ProjectReconciler, watchForProjects } from './project/controller.ts';
import { Controller } from './reconcile/controller.ts';
import { PageEntryReconciler, StatusPageReconciler } from './status-page/controller.ts';
import { PageIds } from './status-page/page-ids.ts';
import { watchStatusPageEntries } from './status-page/watches.ts';
import { WebhookReconciler, watchForWebhooks } from './webhook/controller.ts';
import { PreviewReconciler } from './preview/controller.ts';
import { watchForPreviews } from './preview/watches.ts';
import { AutomaticPromotions, watchForAutomaticPromotions } from './promotion/automatic.ts';
import { PromotionReconciler } from './promotion/controller.ts';
import { watchForPromotions } from './promotion/watches.ts';
import { PullRequestPoll, watchForPolls } from './preview/poll.ts';
import { RemovedPreviews } from './preview/removed-previews.ts';
import { DeliveryEngine } from './delivery/engine.ts';
import { sinks } from './sinks.ts';
import type { QueueTimers } from '../lib/queue.ts';
import { AddressGuard } from './outbound/address-guard.ts';
import { guardedFetch } from './outbound/guarded-fetch.ts';
import { ClusterRanges } from './outbound/cluster-ranges.ts';
import { RegistryGuard } from './outbound/registry-guard.ts';
import { BuildEgressPolicy } from './outbound/build-egress.ts';

const INFORMER_START_RETRY_MS = 2_000;

export interface OperatorOptions {
  /** Called when this replica loses the lease; the process should exit and start afresh. */
  onLostLeadership?: () => void;
  now?: () => Date;
  /** The delivery engine's clock and timers (tests run it on a fake clock). */
  deliveryTimers?: QueueTimers;
}

export class Operator {
  readonly context: OperatorContext;
  readonly controllers: {
    projects: Controller;
    environments: Controller;
    webhooks: Controller;
    bundles: Controller;
    previews: Controller;
    promotions: Controller;
    automaticPromotions: Controller;
    /** The periodic look at each previewing project's open pull requests. */
    pullRequestPolls: Controller;
    statusPages: Controller;
    statusComponents: Controller;
    statusNotices: Controller;
  };
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
    this.secrets = new SecretReader(clients.core, log, {
      ttlMs: 30_000,
      missingTtlMs: 5_000,
      staleMs: 5 * 60_000,
      now: () => now().getTime(),
    });
    // Every outbound call connects only where the guard lets it (outbound/address-guard.ts), and
    // goes through the one delivery engine, outside the reconcile (operator/sinks.ts lists them).
    const guard = new AddressGuard(config.outbound);
    const outbound = guardedFetch(guard);
    // The NetworkPolicy around builds cuts the same ranges out (bundle/build-egress.ts): written
    // with each read, the first before the controllers start any build.
    const buildEgress = config.buildEgress
      ? new BuildEgressPolicy(
          clients.apply,
          { namespace: config.buildNamespace, settings: config.buildEgress, deny: config.outbound.deny },
          log,
        )
      : undefined;
    this.clusterRanges = new ClusterRanges(
      kc,
      guard,
      log,
      buildEgress && ((ranges) => buildEgress.write(ranges)),
    );
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
    this.stopReadiness = exportReadiness(ctx.informers, () => this.isLeader() && this.synced);
    this.stopDeliveryFigures = exportDeliveryFigures(
      ctx.informers,
      () => this.isLeader() && this.synced,
      now,
    );
    const pageIds = new PageIds(slipway);
    const removedPreviews = new RemovedPreviews();
    this.controllers = {
      projects: new Controller('project', new ProjectReconciler(ctx), config.workers, log),
      environments: new Controller('environment', new EnvironmentReconciler(ctx), config.workers, log),
      webhooks: new Controller('webhook', new WebhookReconciler(ctx), config.workers, log),
      bundles: new Controller('bundle', new BundleReconciler(ctx, this.bundleLifecycle), config.workers, log),
      previews: new Controller('preview', new PreviewReconciler(ctx), config.workers, log),
      promotions: new Controller('promotion', new PromotionReconciler(ctx), config.workers, log),
      automaticPromotions: new Controller('promote-from', new AutomaticPromotions(ctx), config.workers, log),
      pullRequestPolls: new Controller(
        'pull-request-poll',
        new PullRequestPoll(ctx, this.secrets, outbound, removedPreviews),
        1,
        log,
      ),
      statusPages: new Controller('statuspage', new StatusPageReconciler(ctx), config.workers, log),
      statusComponents: new Controller(
        'statuscomponent',
        new PageEntryReconciler('StatusComponent', ctx, pageIds),
        config.workers,
        log,
      ),
      statusNotices: new Controller(
        'statusnotice',
        new PageEntryReconciler('StatusNotice', ctx, pageIds),
        config.workers,
        log,
      ),
    };
    watchForProjects(ctx, this.controllers.projects);
    watchForEnvironments(ctx, this.controllers.environments);
    watchForWebhooks(ctx, this.controllers.webhooks);
    watchForBundles(ctx, this.controllers.bundles);
    watchForPreviews(ctx, this.controllers.previews, removedPreviews);
    watchForPolls(ctx, this.controllers.pullRequestPolls);
    watchForPromotions(ctx, this.controllers.promotions);
    watchForAutomaticPromotions(ctx, this.controllers.automaticPromotions);
    watchStatusPageEntries(
      informers,
      this.controllers.statusComponents,
      this.controllers.statusNotices,
      this.controllers.statusPages,
    );

    if (config.leaderElection) {
      this.elector = new LeaderElector({
        api: clients.coordination,
        namespace: config.podNamespace,
        name: config.leaseName,
        identity: config.podName,
        // client-go's proportions: renew deadline 2/3 of the lease, retries every 2/15.
        leaseDurationMs: config.leaseDurationSeconds * 1000,
        renewDeadlineMs: (config.leaseDurationSeconds * 1000 * 2) / 3,
        retryPeriodMs: (config.leaseDurationSeconds * 1000 * 2) / 15,
        log,
        onStartedLeading: () => {
          leaderGauge.set(1);
          this.startControllers();
        },
        onStoppedLeading: () => {
          leaderGauge.set(0);
          void this.stopControllers().then(() => options.onLostLeadership?.());
        },
      });
    }
  }

  /** Fills the caches, then runs the controllers (at once, or once this replica leads). */
  async start(): Promise<void> {
    this.stopped = false;
    const ranges = this.clusterRanges.start();
    // Builds start once the operator has asked the registry whether it asks for tokens.
    const registry = this.context.registryGuard?.start();
    this.elector?.start();
    await Promise.all(this.informers().map((i) => this.startInformer(i)));
    // Outbound calls wait for the cluster's ranges (a read the informers' lists have just shown
    // can be made; it is tried again every 2 s).
    await ranges;
    await registry;
    if (this.stopped) return;
    this.synced = true;
    this.log.info('caches synced');
    if (!this.elector) {
      // Without leader election (one replica) this operator leads alone.
      leaderGauge.set(1);
      this.startControllers();
    }
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
    await Promise.all(this.informers().map((i) => i.stop().catch(() => undefined)));
  }

  private informers() {
    return allInformers(this.context.informers);
  }

  private async startInformer(informer: ReturnType<typeof allInformers>[number]): Promise<void> {
    for (;;) {
      try {
        await informer.start();
        return;
      } catch (err) {
        if (this.stopped) return;
        this.log.warn({ path: informer.path, err: String(err) }, 'initial list failed; retrying');
        await new Promise((r) => setTimeout(r, INFORMER_START_RETRY_MS).unref());
        if (this.stopped) return;
      }
    }
  }

  private startControllers(): void {
    if (this.controllersRunning || this.stopped) return;
    if (!this.synced) {
      // Leadership came before the caches: start once they are full.
      const wait = setInterval(() => {
        if (this.stopped) clearInterval(wait);
        else if (this.synced) {
          clearInterval(wait);
          this.startControllers();
        }
      }, 50);
      return;
    }
    this.controllersRunning = true;
    for (const c of Object.values(this.controllers)) c.start();
    // Everything in the cache gets one look after a (re)start: nothing is lost across restarts.
    const { informers } = this.context;
    const watched: Array<
      [Controller, { list(): ReadonlyArray<{ metadata?: { namespace?: string; name?: string } }> }]
    > = [
      [this.controllers.projects, informers.projects],
      [this.controllers.environments, informers.environments],
      [this.controllers.webhooks, informers.webhooks],
      [this.controllers.bundles, informers.bundles],
      [this.controllers.previews, informers.previews],
      [this.controllers.pullRequestPolls, informers.projects],
      [this.controllers.statusPages, informers.statusPages],
      [this.controllers.statusComponents, informers.statusComponents],
      [this.controllers.statusNotices, informers.statusNotices],
    ];
    for (const [controller, cache] of watched) {
      for (const o of cache.list()) controller.enqueue(o.metadata?.namespace, o.metadata?.name);
    }
    // And every recent bundle whose provider or receivers may not have its latest state yet.
    this.deliveries.resume();
    this.log.info('controllers started');
  }

  private async stopControllers(): Promise<void> {
    if (!this.controllersRunning) return;
    this.controllersRunning = false;
    const deliveries = this.deliveries.stop();
    this.secrets.clear();
    await Promise.all([deliveries, ...Object.values(this.controllers).map((c) => c.stop())]);
    this.log.info('controllers stopped');
  }

  /** Resolves when no controller has queued or running work (tests and benchmarks). */
  async idle(): Promise<void> {
    await Promise.all(Object.values(this.controllers).map((c) => c.idle()));
  }
}
