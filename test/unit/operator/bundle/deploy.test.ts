// decide.ts: a built bundle's backup and rollout to its Environment.
import { describe, expect, it } from '@jest/globals';
import { decideBundle } from '../../../../operator/bundle/decide.ts';
import {
  NAMESPACE as NS,
  bundle,
  database,
  deployTo,
  environment,
  spec,
  status,
  stored,
} from '../../../support/builders.ts';
import { deployment, finished, job } from '../builders.ts';
import { DIGEST, inputs, summary, deployBundle, type Case } from './bundle-inputs.ts';

describe('decideBundle: deploy', () => {
  const env = environment('staging', stored(), spec(database));
  const cases: Case[] = [
    {
      name: 'a missing environment blocks the deploy until it appears',
      in: { bundle: deployBundle('b1') },
      then: 'Built none waiting',
      conditions: 'Built=True/Succeeded Deployed=Unknown/EnvironmentNotFound Ready=False/EnvironmentNotFound',
    },
    {
      name: 'an environment of another project is not deployed to',
      in: {
        bundle: deployBundle('b1'),
        environment: environment('staging', stored(), spec({ projectRef: { name: 'other' } })),
        deployment: deployment(),
      },
      then: 'Built none waiting',
      conditions:
        'Built=True/Succeeded Deployed=Unknown/EnvironmentProjectMismatch Ready=False/EnvironmentProjectMismatch',
    },
    {
      name: 'a missing Deployment blocks the deploy',
      in: { bundle: deployBundle('b1'), environment: env },
      then: 'Built none waiting',
      conditions: 'Built=True/Succeeded Deployed=Unknown/DeploymentNotFound Ready=False/DeploymentNotFound',
    },
    {
      name: 'a Deployment without the named container blocks the deploy',
      in: {
        bundle: deployBundle('b1'),
        environment: environment(
          'staging',
          stored(),
          spec({ deploymentRef: { name: 'shop-web', container: 'php' } }),
        ),
        deployment: deployment(),
      },
      then: 'Built none waiting',
      conditions: 'Built=True/Succeeded Deployed=Unknown/ContainerNotFound Ready=False/ContainerNotFound',
    },
    {
      name: 'a built bundle starts its rollout when the environment is free',
      in: { bundle: deployBundle('b1'), environment: env, deployment: deployment({ bundle: 'b0' }) },
      then: 'Deploying startRollout progressing',
      conditions: 'Built=True/Succeeded Deployed=Unknown/Progressing Ready=Unknown/Progressing',
    },
    {
      name: 'one rollout per environment: wait while an older bundle is still rolling out',
      in: {
        bundle: deployBundle('b1', 10),
        environment: env,
        deployment: deployment({ bundle: 'b0', updated: 0 }),
        projectBundles: [deployBundle('b0', 0), deployBundle('b1', 10)],
      },
      then: 'Built none waiting',
      conditions:
        'Built=True/Succeeded Deployed=Unknown/WaitingForEnvironment Ready=Unknown/WaitingForEnvironment',
    },
    {
      name: 'the environment is free again once the other bundle finished',
      in: {
        bundle: deployBundle('b1', 10),
        environment: env,
        deployment: deployment({ bundle: 'b0' }),
        projectBundles: [
          bundle('b0', stored(), spec({ deploy: deployTo() }), status(finished('Ready'))),
          deployBundle('b1', 10),
        ],
      },
      then: 'Deploying startRollout progressing',
      conditions: 'Built=True/Succeeded Deployed=Unknown/Progressing Ready=Unknown/Progressing',
    },
    {
      name: 'a backup without database settings cannot run',
      in: {
        bundle: deployBundle('b1', 0, true),
        environment: environment(undefined, stored()),
        deployment: deployment(),
      },
      then: 'Built none waiting',
      conditions: 'Built=True/Succeeded BackedUp=Unknown/BackupNotConfigured Ready=False/BackupNotConfigured',
    },
    {
      name: 'with backupBeforeDeploy the backup Job comes first',
      in: { bundle: deployBundle('b1', 0, true), environment: env, deployment: deployment() },
      then: 'BackingUp createBackupJob progressing',
      conditions: 'Built=True/Succeeded BackedUp=Unknown/BackingUp Ready=Unknown/BackingUp',
    },
    {
      name: 'the Deployment is not touched while the backup runs',
      in: {
        bundle: deployBundle('b1', 0, true),
        environment: env,
        deployment: deployment(),
        backupJob: job('b1-backup', 'running'),
      },
      then: 'BackingUp none progressing',
      conditions: 'Built=True/Succeeded BackedUp=Unknown/BackingUp Ready=Unknown/BackingUp',
    },
    {
      name: 'a failed backup fails the bundle and deploys nothing',
      in: {
        bundle: deployBundle('b1', 0, true),
        environment: env,
        deployment: deployment(),
        backupJob: job('b1-backup', 'failed'),
      },
      then: 'Failed none finished',
      conditions: 'Built=True/Succeeded BackedUp=False/BackupFailed Ready=False/BackupFailed',
    },
    {
      name: 'after the backup the rollout starts',
      in: {
        bundle: deployBundle('b1', 0, true),
        environment: env,
        deployment: deployment(),
        backupJob: job('b1-backup', 'succeeded'),
      },
      then: 'Deploying startRollout progressing',
      conditions:
        'Built=True/Succeeded BackedUp=True/Succeeded Deployed=Unknown/Progressing Ready=Unknown/Progressing',
    },
    {
      name: 'a rollout still updating pods is Deploying',
      in: {
        bundle: deployBundle('b1'),
        environment: env,
        deployment: deployment({ bundle: 'b1', replicas: 2, updated: 1 }),
      },
      then: 'Deploying none progressing',
      conditions: 'Built=True/Succeeded Deployed=Unknown/Progressing Ready=Unknown/Progressing',
    },
    {
      name: 'a rollout the Deployment controller has not seen yet is Deploying, whatever old status says',
      in: {
        bundle: deployBundle('b1'),
        environment: env,
        deployment: deployment({ bundle: 'b1', generation: 3, observedGeneration: 2 }),
      },
      then: 'Deploying none progressing',
      conditions: 'Built=True/Succeeded Deployed=Unknown/Progressing Ready=Unknown/Progressing',
    },
    {
      name: 'old pods still running keep the rollout going',
      in: {
        bundle: deployBundle('b1'),
        environment: env,
        deployment: deployment({ bundle: 'b1', total: 2 }),
      },
      then: 'Deploying none progressing',
      conditions: 'Built=True/Succeeded Deployed=Unknown/Progressing Ready=Unknown/Progressing',
    },
    {
      name: 'a complete rollout makes the bundle Ready',
      in: { bundle: deployBundle('b1'), environment: env, deployment: deployment({ bundle: 'b1' }) },
      then: 'Ready none finished',
      conditions: 'Built=True/Succeeded Deployed=True/Succeeded Ready=True/Succeeded',
    },
    {
      name: 'a paused Deployment holds the rollout, saying how to resume it',
      in: {
        bundle: deployBundle('b1'),
        environment: env,
        deployment: deployment({ bundle: 'b1', updated: 0, paused: true }),
      },
      then: 'Deploying none waiting',
      conditions: 'Built=True/Succeeded Deployed=Unknown/DeploymentPaused Ready=False/DeploymentPaused',
    },
    {
      name: 'a rollout past its progress deadline fails',
      in: {
        bundle: deployBundle('b1'),
        environment: env,
        deployment: deployment({ bundle: 'b1', updated: 0, deadlineExceeded: true }),
      },
      then: 'Failed none finished',
      conditions: 'Built=True/Succeeded Deployed=False/RolloutFailed Ready=False/RolloutFailed',
    },
  ];
  it.each(cases)('$name', ({ in: given, then, conditions }) => {
    expect(summary(decideBundle(inputs(given)))).toEqual({ then, conditions });
  });

  it('rolls out the environment container it names', () => {
    const d = decideBundle(
      inputs({
        bundle: deployBundle('b1'),
        environment: environment(
          'staging',
          stored(),
          spec({ deploymentRef: { name: 'shop-web', container: 'php' } }),
        ),
        deployment: deployment({ containers: ['nginx', 'php'] }),
      }),
    );
    expect(d.action).toEqual({
      type: 'startRollout',
      container: 'php',
      image: `registry.test/${NS}/shop:b1@${DIGEST}`,
    });
  });

  it('records the backup Job and where the dump goes', () => {
    const d = decideBundle(
      inputs({ bundle: deployBundle('b1', 0, true), environment: env, deployment: deployment() }),
    );
    expect(d.status.backup).toEqual({ job: 'b1-backup', location: 'pvc://backups/shop/staging/b1.sql' });
  });
});
