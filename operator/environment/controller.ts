// The Environment controller: checks the project and Deployment an environment points at.
// A missing one gives Ready=False with a reason; the watches bring it back when it appears.
// (status.currentBundle and status.lastDeployment are written by the Bundle controller,
// which performs the rollouts.)
import { objectKey } from '../../lib/informer.ts';
import type { HandlerResult } from '../../lib/queue.ts';
import type { OperatorContext } from '../context.ts';
import { INDEX } from '../informers.ts';
import type { Controller, Reconciler } from '../runtime/controller.ts';
import { publishReadyStatus } from '../runtime/ready-status.ts';
import { decideEnvironment } from './decide.ts';

export class EnvironmentReconciler implements Reconciler {
  private readonly ctx: OperatorContext;

  constructor(ctx: OperatorContext) {
    this.ctx = ctx;
  }

  async reconcile(namespace: string, name: string): Promise<HandlerResult | void> {
    const { informers } = this.ctx;
    const environment = informers.environments.get(namespace, name);
    if (!environment || environment.metadata.deletionTimestamp) return;
    const ready = decideEnvironment({
      environment,
      project: informers.projects.get(namespace, environment.spec.projectRef.name),
      deployment: informers.deployments.get(namespace, environment.spec.deploymentRef.name),
    });
    await publishReadyStatus(this.ctx, 'Environment', environment, ready, {}, this.ctx.now());
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
  informers.deployments.onEvent((d) => {
    const key = objectKey(d.metadata?.namespace, d.metadata?.name ?? '');
    for (const e of informers.environments.byIndex(INDEX.deployment, key))
      controller.enqueue(e.metadata.namespace, e.metadata.name);
  });
}
