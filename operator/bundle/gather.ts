// What the Bundle controller decides on: the bundle's project, environment, Deployment, Jobs
// and pods from the informer caches (with the build Jobs this process created that the cache
// does not show yet), the same Jobs and Deployment read live from the API server before an act,
// and the causes only the API has: FailedCreate Events of a Job without pods, and the last log
// lines of a failed container. The build Job and its pods are in the build namespace, the
// backup Job and its pods in the bundle's.
import type { V1Deployment, V1Job, V1Pod } from '@kubernetes/client-node';
import type { BundleObject } from '../../crds/index.ts';
import { LABEL_STEP, labelValue } from '../../crds/labels.ts';
import { objectKey } from '../../lib/informer.ts';
import { isNotFound } from '../../lib/kube.ts';
import type { OperatorContext } from '../context.ts';
import { INDEX } from '../informers.ts';
import { backupJobName, buildJobName, bundleImage, imageRepository } from '../names.ts';
import type { BuildExpectations } from './build-expectations.ts';
import type { BundleInputs, BundlePods } from './decision.ts';
import { podlessJobs } from './workload-readings.ts';
import { backupLocation } from '../jobs/backup-job.ts';
import { failedContainerOutput, jobState, pushedDigest } from './workload-state.ts';
import { awaitsPushedImage } from './build-step.ts';
import { PUSH_CONTAINER } from '../jobs/build-job.ts';
import { timeMs } from '../../rules/timestamps.ts';
import { bundleLogsUrl } from '../../rules/bundle-status-url.ts';
import { registryProblem } from '../outbound/registry-guard.ts';

/** The label the Job controller puts on a Job's pods. */
const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
/** How long a new Job may be without a pod before its FailedCreate Events are read. */
export const NO_POD_GRACE_MS = 3_000;

export class BundleGatherer {
  private readonly ctx: OperatorContext;
  private readonly expectations: BuildExpectations;
  /** Per Job: when its FailedCreate Events were last read, and what they said. */
  private readonly refusals = new Map<string, { at: number; message: string | undefined }>();

  constructor(ctx: OperatorContext, expectations: BuildExpectations) {
    this.ctx = ctx;
    this.expectations = expectations;
  }

  projectKey(bundle: BundleObject): string {
    return objectKey(bundle.metadata.namespace, labelValue(bundle.spec.projectRef.name));
  }

  /**
   * The project's build Jobs but this bundle's, from the cache and those expected: how many are
   * running, and the names of all of them (whatever their state).
   */
  projectBuilds(bundle: BundleObject): Pick<BundleInputs, 'runningBuilds' | 'startedBuilds'> {
    const { buildJobs } = this.ctx.informers;
    const { buildNamespace } = this.ctx.config;
    const own = buildJobName(bundle.metadata.namespace, bundle.metadata.name);
    const key = this.projectKey(bundle);
    const startedBuilds = new Set<string>();
    let runningBuilds = 0;
    // Only the operator makes Jobs in the build namespace: each one there holds a build slot.
    for (const job of buildJobs.byIndex(INDEX.project, key)) {
      const name = job.metadata?.name;
      if (job.metadata?.labels?.[LABEL_STEP] !== 'build' || !name || name === own) continue;
      startedBuilds.add(name);
      if (jobState(job).state === 'running') runningBuilds += 1;
    }
    for (const name of this.expectations.pending(
      key,
      (job) => job === own || !!buildJobs.get(buildNamespace, job),
    )) {
      startedBuilds.add(name);
      runningBuilds += 1;
    }
    return { runningBuilds, startedBuilds };
  }

  /**
   * The running build Jobs of all the projects of the bundle's namespace but this bundle's, from
   * the cache (Jobs this process created that the cache does not show yet are the project's
   * count's: a burst of several projects at once may start a few over the limit).
   */
  namespaceBuilds(bundle: BundleObject): number {
    const own = buildJobName(bundle.metadata.namespace, bundle.metadata.name);
    return this.ctx.informers.buildJobs
      .byIndex(INDEX.buildsOfNamespace, bundle.metadata.namespace)
      .filter(
        (job) =>
          job.metadata?.labels?.[LABEL_STEP] === 'build' &&
          job.metadata?.name !== own &&
          jobState(job).state === 'running',
      ).length;
  }

  /** The bundle with its build and backup Jobs from the cache: all a finished bundle's look reads. */
  withJobs(bundle: BundleObject): Pick<BundleInputs, 'bundle' | 'buildJob' | 'backupJob'> {
    const { namespace, name } = bundle.metadata;
    const { jobs, buildJobs } = this.ctx.informers;
    return {
      bundle,
      buildJob: buildJobs.get(this.ctx.config.buildNamespace, buildJobName(namespace, name)),
      backupJob: jobs.get(namespace, backupJobName(name)),
    };
  }

  fromCache(bundle: BundleObject): BundleInputs {
    const { informers, config } = this.ctx;
    const { namespace, name } = bundle.metadata;
    const projectName = bundle.spec.projectRef.name;
    const envName = bundle.spec.deploy?.environmentRef.name;
    const environment = envName ? informers.environments.get(namespace, envName) : undefined;
    const deployment = environment
      ? informers.deployments.get(namespace, environment.spec.deploymentRef.name)
      : undefined;
    return {
      ...this.withJobs(bundle),
      project: informers.projects.get(namespace, projectName),
      environment,
      deployment,
      projectBundles: informers.bundles.byIndex(INDEX.project, objectKey(namespace, projectName)),
      ...this.projectBuilds(bundle),
      defaultBuildConcurrency: config.buildConcurrency,
      maxBuildConcurrency: config.maxBuildConcurrency,
      namespaceRunningBuilds: this.namespaceBuilds(bundle),
      maxNamespaceBuilds: config.maxNamespaceBuilds,
      image: bundleImage(config.registry, namespace, projectName, name),
      archiveBaseUrl: config.archiveBaseUrl,
      registry: config.registry,
      registryProblem: registryProblem(config, this.ctx.registryGuard),
      buildNamespace: config.buildNamespace,
      // Signed once: a bundle whose status holds it is not signed again on every reconcile.
      ...(bundle.status?.logsUrl
        ? { logsUrl: bundle.status.logsUrl }
        : config.archiveUrlKey && bundle.metadata.uid
          ? {
              logsUrl: bundleLogsUrl(config.gatewayBaseUrl, config.archiveUrlKey, {
                namespace,
                name,
                uid: bundle.metadata.uid,
              }),
            }
          : {}),
      backupLocation: environment ? backupLocation(environment, name) : undefined,
      pods: this.podsOf(namespace, name),
      now: this.ctx.now(),
    };
  }

  /** The project's bundles as the API server has them now. */
  async projectBundlesLive(bundle: BundleObject): Promise<BundleObject[]> {
    const all = await this.ctx.slipway.list<BundleObject>('Bundle', bundle.metadata.namespace);
    return all.filter((b) => b.spec.projectRef.name === bundle.spec.projectRef.name);
  }

  /** The newest FailedCreate Event of a Job, read at most every few seconds per Job. */
  private async failedCreate(namespace: string, job: string, now: Date): Promise<string | undefined> {
    // Keyed by namespace: build Jobs of two namespaces share one.
    const key = `${namespace}/${job}`;
    const memo = this.refusals.get(key);
    if (memo && now.getTime() - memo.at < NO_POD_GRACE_MS) return memo.message;
    let message: string | undefined;
    try {
      const events = await this.ctx.clients.core.listNamespacedEvent({
        namespace,
        fieldSelector: `involvedObject.kind=Job,involvedObject.name=${job},reason=FailedCreate`,
      });
      message = events.items.sort(
        (a, b) =>
          (timeMs(b.lastTimestamp ?? b.eventTime) ?? 0) - (timeMs(a.lastTimestamp ?? a.eventTime) ?? 0),
      )[0]?.message;
    } catch (err) {
      // The cause is a nicety (the Job's deadline still ends it); say why it is missing.
      this.ctx.log.warn({ err, job: key }, 'reading the FailedCreate Events of a Job failed');
    }
    if (this.refusals.size > 1000) this.refusals.clear();
    this.refusals.set(key, { at: now.getTime(), message });
    return message;
  }

  /** The bundle's pods in the cache, by the Job (or rollout) they belong to. */
  private podsOf(namespace: string, name: string): BundlePods {
    const key = objectKey(namespace, labelValue(name));
    const pods = this.ctx.informers.pods.byIndex(INDEX.bundle, key);
    const builds = this.ctx.informers.buildPods.byIndex(INDEX.bundle, key);
    const ofJob = (all: readonly V1Pod[], job: string) =>
      all.filter((p) => p.metadata?.labels?.[JOB_NAME_LABEL] === job);
    return {
      build: ofJob(builds, buildJobName(namespace, name)),
      backup: ofJob(pods, backupJobName(name)),
      rollout: pods.filter((p) => p.metadata?.labels?.[JOB_NAME_LABEL] === undefined),
    };
  }

  /**
   * A running Job without a pod for a few seconds may have had it refused (quota, Pod Security):
   * the Job controller says so only in a FailedCreate Event, read here in that case alone.
   */
  async withRefusedPods(input: BundleInputs): Promise<BundleInputs> {
    const refusedPods: NonNullable<BundleInputs['refusedPods']> = {};
    for (const { step, job } of podlessJobs(input)) {
      const age = input.now.getTime() - (timeMs(job.metadata?.creationTimestamp) ?? input.now.getTime());
      if (age < NO_POD_GRACE_MS) continue;
      const refusal = await this.failedCreate(job.metadata!.namespace!, job.metadata!.name!, input.now);
      if (refusal) refusedPods[step] = refusal;
    }
    return Object.keys(refusedPods).length > 0 ? { ...input, refusedPods } : input;
  }

  /** The Jobs and the Deployment, read from the API server (and a failed Job's output). */
  async live(cached: BundleInputs): Promise<BundleInputs> {
    const { batch, apps } = this.ctx.clients;
    const { namespace, name } = cached.bundle.metadata;
    const orMissing = <T>(p: Promise<T>): Promise<T | undefined> =>
      p.catch((err: unknown) => {
        if (isNotFound(err)) return undefined;
        throw err;
      });
    const deploymentName = cached.environment?.spec.deploymentRef.name;
    // A bundle that backs nothing up has no backup Job to read, unless the cache shows one.
    const backs = cached.bundle.spec.deploy?.backupBeforeDeploy || cached.backupJob !== undefined;
    const { buildNamespace } = this.ctx.config;
    const [buildJobObj, backupJobObj, deployment] = await Promise.all([
      orMissing<V1Job>(
        batch.readNamespacedJob({ name: buildJobName(namespace, name), namespace: buildNamespace }),
      ),
      backs
        ? orMissing<V1Job>(batch.readNamespacedJob({ name: backupJobName(name), namespace }))
        : Promise.resolve(undefined),
      deploymentName
        ? orMissing<V1Deployment>(apps.readNamespacedDeployment({ name: deploymentName, namespace }))
        : Promise.resolve(undefined),
    ]);
    const [buildOutput, backupOutput] = await Promise.all(
      [buildJobObj, backupJobObj].map((job) => this.failedOutput(job)),
    );
    const fresh: BundleInputs = {
      ...cached,
      buildJob: buildJobObj,
      backupJob: backupJobObj,
      deployment,
      failedOutput: { build: buildOutput, backup: backupOutput },
      now: this.ctx.now(),
    };
    return awaitsPushedImage(fresh) ? { ...fresh, pushedImage: await this.pushedImage(fresh) } : fresh;
  }

  /** The reference, by digest, the succeeded build Job's push container reported pushing. */
  private async pushedImage(input: BundleInputs): Promise<string | null> {
    const job = input.buildJob!;
    // The Job's own pods (its controller-uid), not any pod that carries its name.
    const pods = await this.ctx.clients.core.listNamespacedPod({
      namespace: job.metadata!.namespace!,
      labelSelector: `batch.kubernetes.io/controller-uid=${job.metadata!.uid}`,
    });
    const repository = imageRepository(input.image);
    const digest = pushedDigest(pods.items, PUSH_CONTAINER, repository);
    return digest ? `${input.image}@${digest}` : null;
  }

  /** For a failed Job: its failed container's last log lines, read once as the chain ends. */
  private async failedOutput(job: V1Job | undefined): Promise<string | undefined> {
    if (!job || jobState(job).state !== 'failed') return undefined;
    try {
      const pods = await this.ctx.clients.core.listNamespacedPod({
        namespace: job.metadata!.namespace!,
        labelSelector: `batch.kubernetes.io/job-name=${job.metadata!.name}`,
      });
      return failedContainerOutput(pods.items);
    } catch (err) {
      // The cause is a nicety: without it the Job's own reason still explains the failure.
      this.ctx.log.warn({ err, job: job.metadata?.name }, 'reading the pods of a failed Job failed');
      return undefined;
    }
  }
}
