// The Environment controller: checks the project and Deployment an environment points at (a
// missing one gives Ready=False with a reason; the watches bring it back when it appears), and
// reports the rollouts the Bundle controller performs (status.currentBundle, lastDeployment).
// It is the only writer of the Environment's status.
import { objectKey } from '../../lib/informer.ts';
import type { HandlerResult } from '../../lib/queue.ts';
import type { OperatorContext } from '../context.ts';
import { INDEX } from '../informers.ts';
import type { Controller, Reconciler } from '../runtime/controller.ts';
import { decideEnvironment, deploymentRecord } from './decide.ts';

export class EnvironmentReconciler implements Reconciler {
  private readonly ctx: OperatorContext;

  constructor(ctx: OperatorContext) {
    this.ctx = ctx;
  }

  async reconcile(namespace: string, name: string): Promise<HandlerResult | void> {
    const { informers } = this.ctx;
    const environment = informers.environments.get(namespace, name);
    if (!environment || environment.metadata.deletionTimestamp) return;
    const deployment = informers.deployments.get(namespace, environment.spec.deploymentRef.name);
    const ready = decideEnvironment({
      environment,
      project: informers.projects.get(namespace, environment.spec.projectRef.name),
      deployment,
    });
    const written = { ...environment, status: this.ctx.status.current(environment) };
    const record = deploymentRecord(written, deployment, (bundle) =>
      informers.bundles.get(namespace, bundle),
    );
    await this.ctx.status.writeReady('Environment', environment, ready, record);
  }
}

export function watchForEnvironments(ctx: OperatorContext, controller: Controller): void {
  const { informers } = ctx;
  informers.environments.onEvent((e) => controller.enqueue(e.metadata.namespace, e.metadata.name));
  informers.projects.onEvent((p) => {
    for (const e of informers.environments.byIndex(
      INDEX.project,
      objectKey(p.metadata.namespace, p.metadata.name),
    ))
      controller.enqueue(e.metadata.namespace, e.metadata.name);
  });
  // A bundle's Deployed condition is the outcome of the rollout this environment reports.
  informers.bundles.onEvent((b) => {
    const env = b.spec.deploy?.environmentRef.name;
    if (env) controller.enqueue(b.metadata.namespace, env);
  });
  informers.deployments.onEvent((d) => {
    const key = objectKey(d.metadata?.namespace, d.metadata?.name ?? '');
    for (const e of informers.environments.byIndex(INDEX.deployment, key))
      controller.enqueue(e.metadata.namespace, e.metadata.name);
  });
}
