// Pure decision of the Environment controller: are its references usable?
import type { V1Deployment } from '@kubernetes/client-node';
import type { EnvironmentObject, ProjectObject } from '../../crds/index.ts';
import type { ConditionUpdate } from '../../lib/conditions.ts';

export interface EnvironmentInputs {
  environment: EnvironmentObject;
  project: ProjectObject | undefined;
  deployment: V1Deployment | undefined;
}

export function decideEnvironment({ environment, project, deployment }: EnvironmentInputs): ConditionUpdate {
  const not = (reason: string, message: string): ConditionUpdate => ({
    type: 'Ready',
    status: 'False',
    reason,
    message,
  });
  const { projectRef, deploymentRef } = environment.spec;
  if (!project || project.metadata.deletionTimestamp)
    return not('ProjectNotFound', `project ${projectRef.name} does not exist`);
  if (!deployment) return not('DeploymentNotFound', `Deployment ${deploymentRef.name} does not exist`);
  const containers = deployment.spec?.template?.spec?.containers ?? [];
  if (deploymentRef.container && !containers.some((c) => c.name === deploymentRef.container))
    return not(
      'ContainerNotFound',
      `Deployment ${deploymentRef.name} has no container ${deploymentRef.container}`,
    );
  if (containers.length === 0)
    return not('ContainerNotFound', `Deployment ${deploymentRef.name} has no containers`);
  return {
    type: 'Ready',
    status: 'True',
    reason: 'Valid',
    message: `deploys to container ${deploymentRef.container ?? containers[0]!.name} of Deployment ${deploymentRef.name}`,
  };
}
