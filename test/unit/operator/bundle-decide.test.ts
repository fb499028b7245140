import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import type { BundleObject } from '../../../crds/index.ts';
import { awaitsPushedImage, decideBundle } from '../../../operator/bundle/decide.ts';
import {
  REQUEUE_NO_POD_MS,
  type BundleDecision,
  type BundleInputs,
} from '../../../operator/bundle/decision.ts';
import { contendedBy, podlessJobs } from '../../../operator/bundle/observed.ts';
import {
  NAMESPACE as NS,
  T0,
  at,
  bundle,
  database,
  deployTo,
  environment,
  project,
  spec,
  status,
  stored,
  type Modifier,
} from '../../support/builders.ts';
import { condition, deployment, finished, job } from './builders.ts';

const NOW = new Date(T0.getTime() + 100_000);
/** An archive the gateway (at http://gw) stored for project shop of namespace NS. */
const ARCHIVE_URL = `http://gw/archives/${NS}/shop/${'f'.repeat(64)}.tar.gz`;

const DIGEST = `sha256:${'d'.repeat(64)}`;
const B0_IMAGE = `registry.test/${NS}/shop:b0@${DIGEST}`;

function inputs(overrides: Partial<BundleInputs> = {}): BundleInputs {
  const b = overrides.bundle ?? bundle('b1', stored());
  return {
    bundle: b,
    project: project(undefined, stored()),
    environment: undefined,
    deployment: undefined,
    buildJob: undefined,
    backupJob: undefined,
    projectBundles: [b],
    runningBuilds: 0,
    startedBuilds: new Set(),
    defaultBuildConcurrency: 1,
    maxBuildConcurrency: 10,
    image: `registry.test/${NS}/shop:${b.metadata.name}`,
    // What the live read finds once a build Job succeeded (the cache path has none: see below).
    pushedImage: `registry.test/${NS}/shop:${b.metadata.name}@${DIGEST}`,
    archiveBaseUrl: 'http://gw',
    backupLocation: `pvc://backups/shop/staging/${b.metadata.name}.sql`,
    now: NOW,
    ...overrides,
  };
}

/**
 * What a reader of `kubectl get/describe` would see change: "phase action outcome", and each
 * condition as Type=Status/Reason in the order of the bundle's status.
 */
function summary(d: BundleDecision) {
  return {
    then: `${d.phase} ${d.action.type} ${d.outcome}`,
    conditions: d.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`).join(' '),
  };
}

type Case = { name: string; in: Partial<BundleInputs> } & ReturnType<typeof summary>;

const built = (name: string, ...modifiers: Modifier<BundleObject>[]) =>
  bundle(
    name,
    stored(),
    status({
      phase: 'Built',
      image: `registry.test/${NS}/shop:${name}@${DIGEST}`,
      buildJob: `${name}-build`,
      conditions: [condition('Built', 'True', 'Succeeded')],
    }),
    ...modifiers,
  );

const deployBundle = (name: string, created = 0, backup = false) =>
  built(name, stored(created), spec({ deploy: deployTo('staging', backup) }));

describe('decideBundle: waiting for the environment, not for ever', () => {
  // Built at T0; NOW is 100 s later.
  const env = (waitTimeoutSeconds?: number, ready?: ReturnType<typeof condition>) =>
    environment(
      undefined,
      stored(),
      spec({ ...database, ...(waitTimeoutSeconds ? { waitTimeoutSeconds } : {}) }),
      status(ready ? { conditions: [ready] } : undefined),
    );

  it('waits with the reason, and looks again when the limit is due', () => {
    const waiting = decideBundle(
      inputs({ bundle: deployBundle('b1'), environment: env(), deployment: undefined }),
    );
    expect(summary(waiting)).toEqual({
      then: 'Built none waiting',
      conditions: 'Built=True/Succeeded Deployed=Unknown/DeploymentNotFound Ready=False/DeploymentNotFound',
    });
    expect(waiting.requeueAfterMs).toBe(60_000);
    const soon = decideBundle(
      inputs({ bundle: deployBundle('b1'), environment: env(120), deployment: undefined }),
    );
    expect(soon.requeueAfterMs).toBe(20_250);
  });

  it("fails with the reason it waited for once the Environment's waitTimeoutSeconds have passed", () => {
    const gaveUp = decideBundle(
      inputs({ bundle: deployBundle('b1'), environment: env(60), deployment: undefined }),
    );
    expect(summary(gaveUp)).toEqual({
      then: 'Failed none finished',
      conditions: 'Built=True/Succeeded Deployed=False/DeploymentNotFound Ready=False/DeploymentNotFound',
    });
    expect(gaveUp.conditions.at(-1)?.message).toMatch(
      /^Deployment shop-web does not exist; gave up after waiting 60 s \(the Environment's spec.waitTimeoutSeconds\)$/,
    );
  });

  it('starts no backup or rollout while the Environment is not ready, saying why', () => {
    const notReady = condition('Ready', 'False', 'DatabaseSecretNotFound', 'Secret db does not exist');
    const d = decideBundle(
      inputs({
        bundle: deployBundle('b1', 0, true),
        environment: env(undefined, notReady),
        deployment: deployment(),
      }),
    );
    expect(d.action).toEqual({ type: 'none' });
    expect(summary(d).then).toBe('Built none waiting');
    expect(d.conditions.at(-1)).toMatchObject({
      reason: 'EnvironmentNotReady',
      message: 'environment staging is not ready (DatabaseSecretNotFound): Secret db does not exist',
    });
  });
});

describe('decideBundle: finished and deleted bundles', () => {
  it.each(['Ready', 'Failed', 'Superseded', 'Built'] as const)(
    'does nothing for a bundle finished as %s',
    (phase) => {
      const d = decideBundle(inputs({ bundle: bundle('b1', stored(), status(finished(phase))) }));
      expect(d.skip).toBe(true);
    },
  );

  it('keeps going for a deploy bundle that is built but not deployed', () => {
    const d = decideBundle(inputs({ bundle: deployBundle('b1') }));
    expect(d.skip).toBe(false);
  });

  it('does nothing for a bundle being deleted', () => {
    const b = bundle('b1', stored());
    b.metadata.deletionTimestamp = at(50);
    expect(decideBundle(inputs({ bundle: b })).skip).toBe(true);
  });
});

describe('decideBundle: build', () => {
  const cases: Case[] = [
    {
      name: 'a missing project stops the chain until it appears',
      in: { project: undefined },
      then: 'Pending none waiting',
      conditions: 'Ready=False/ProjectNotFound',
    },
    {
      name: 'a new manual bundle starts its build Job',
      in: {},
      then: 'Building createBuildJob progressing',
      conditions: 'Built=Unknown/Building Ready=Unknown/Building',
    },
    {
      name: 'a webhook bundle without base software and directory map is refused for good',
      in: {
        bundle: bundle(
          'b1',
          stored(),
          spec({
            trigger: { type: 'Webhook', provider: 'github' },
            baseSoftware: undefined,
            directoryMap: undefined,
          }),
        ),
      },
      then: 'Failed none finished',
      conditions: 'Built=False/MissingBuildSettings Ready=False/MissingBuildSettings',
    },
    {
      name: 'a directory map that leaves the source tree is refused',
      in: { bundle: bundle('b1', stored(), spec({ directoryMap: { web: '../etc' } })) },
      then: 'Failed none finished',
      conditions: 'Built=False/InvalidDirectoryMap Ready=False/InvalidDirectoryMap',
    },
    {
      name: 'build steps with a variable the build reserves are refused',
      in: {
        bundle: bundle(
          'b1',
          stored(),
          spec({ buildSteps: { image: 'node:22', commands: ['npm ci'], env: { BUILDKIT_SYNTAX: 'x/y' } } }),
        ),
      },
      then: 'Failed none finished',
      conditions: 'Built=False/InvalidBuildSteps Ready=False/InvalidBuildSteps',
    },
    ...['../composer.lock', '/etc/passwd', './', 'composer*.json'].map((file) => ({
      name: `an install phase over ${JSON.stringify(file)} is refused: only paths inside the source, not all of it`,
      in: {
        bundle: bundle(
          'b1',
          stored(),
          spec({
            buildSteps: {
              image: 'node:22',
              install: { files: ['package.json', file], commands: ['npm ci'] },
            },
          }),
        ),
      },
      then: 'Failed none finished',
      conditions: 'Built=False/InvalidBuildSteps Ready=False/InvalidBuildSteps',
    })),
    {
      name: 'a builder image named like a stage of the Dockerfile (install) is refused: FROM would mean the stage',
      in: {
        bundle: bundle('b1', stored(), spec({ buildSteps: { image: 'Install', commands: ['npm ci'] } })),
      },
      then: 'Failed none finished',
      conditions: 'Built=False/InvalidBuildSteps Ready=False/InvalidBuildSteps',
    },
    {
      name: 'build steps with a builder image that is not an image reference are refused',
      in: {
        bundle: bundle(
          'b1',
          stored(),
          spec({ buildSteps: { image: 'node:22\nRUN x', commands: ['npm ci'] } }),
        ),
      },
      then: 'Failed none finished',
      conditions: 'Built=False/InvalidBuildSteps Ready=False/InvalidBuildSteps',
    },
    ...[
      ['another namespace', `http://gw/archives/other/shop/${'f'.repeat(64)}.tar.gz`],
      ['another project', `http://gw/archives/${NS}/blog/${'f'.repeat(64)}.tar.gz`],
      ['another host', `http://evil.example/archives/${NS}/shop/${'f'.repeat(64)}.tar.gz`],
      ['a path that is not an archive', 'http://gw/a.tgz'],
    ].map(([where, url]) => ({
      name: `an archive of ${where} is never signed: the bundle fails without a Job`,
      in: {
        project: project('shop', stored(), spec({ repository: undefined })),
        bundle: bundle(
          'b1',
          stored(),
          spec({ source: { archive: { url, sha256: 'f'.repeat(64), sizeBytes: 10 } } }),
        ),
      },
      then: 'Failed none finished',
      conditions: 'Built=False/ForeignArchive Ready=False/ForeignArchive',
    })),
    {
      name: 'a git bundle of a project without repository waits for one',
      in: { project: project('shop', stored(), spec({ repository: undefined })) },
      then: 'Pending none waiting',
      conditions: 'Built=Unknown/RepositoryNotConfigured Ready=False/RepositoryNotConfigured',
    },
    {
      name: 'an archive bundle needs no repository',
      in: {
        project: project('shop', stored(), spec({ repository: undefined })),
        bundle: bundle(
          'b1',
          stored(),
          spec({ source: { archive: { url: ARCHIVE_URL, sha256: 'f'.repeat(64), sizeBytes: 10 } } }),
        ),
      },
      then: 'Building createBuildJob progressing',
      conditions: 'Built=Unknown/Building Ready=Unknown/Building',
    },
    {
      name: 'a running build Job keeps the bundle Building',
      in: { buildJob: job('b1-build', 'running') },
      then: 'Building none progressing',
      conditions: 'Built=Unknown/Building Ready=Unknown/Building',
    },
    {
      name: "a succeeded Job of the bundle's name that another bundle (of the same name, since deleted) controls is never taken for its build",
      in: { buildJob: job('b1-build', 'succeeded', at(1), { name: 'b1', uid: 'uid-of-a-deleted-b1' }) },
      then: 'Failed none finished',
      conditions: 'Built=False/JobNotOwned Ready=False/JobNotOwned',
    },
    {
      name: 'a Job with the backup name and no controller is never taken for the backup',
      in: {
        bundle: bundle('b1', stored(), spec({ deploy: deployTo('staging', true) })),
        buildJob: job('b1-build', 'succeeded'),
        backupJob: job('b1-backup', 'succeeded', at(1), null),
        environment: environment('staging', stored(), spec(database)),
        deployment: deployment(),
      },
      then: 'Failed none finished',
      conditions: 'Built=True/Succeeded BackedUp=False/JobNotOwned Ready=False/JobNotOwned',
    },
    {
      name: 'a failed build Job fails the bundle and deploys nothing',
      in: {
        bundle: bundle('b1', stored(), spec({ deploy: deployTo() })),
        buildJob: job('b1-build', 'failed'),
        environment: environment(undefined, stored()),
        deployment: deployment(),
      },
      then: 'Failed none finished',
      conditions: 'Built=False/BuildFailed Ready=False/BuildFailed',
    },
    {
      name: 'a finished build Job without deploy ends the chain as Built',
      in: { buildJob: job('b1-build', 'succeeded') },
      then: 'Built none finished',
      conditions: 'Built=True/Succeeded Ready=True/Succeeded',
    },
    {
      name: 'with the project at its build concurrency the bundle is Queued',
      in: { runningBuilds: 1 },
      then: 'Queued none waiting',
      conditions: 'Built=Unknown/Queued Ready=Unknown/Queued',
    },
    {
      name: 'the project annotation raises the build concurrency',
      in: {
        runningBuilds: 1,
        project: {
          ...project(),
          metadata: { ...project().metadata, annotations: { 'slipway.dev/build-concurrency': '2' } },
        },
      },
      then: 'Building createBuildJob progressing',
      conditions: 'Built=Unknown/Building Ready=Unknown/Building',
    },
  ];
  it.each(cases)('$name', ({ in: given, then, conditions }) => {
    expect(summary(decideBundle(inputs(given)))).toEqual({ then, conditions });
  });

  it('records the build Job, the start time and, once built, the image', () => {
    const started = decideBundle(inputs());
    expect(started.status).toMatchObject({ buildJob: 'b1-build', startedAt: NOW.toISOString() });
    const done = decideBundle(inputs({ buildJob: job('b1-build', 'succeeded', at(5)) }));
    expect(done.status).toMatchObject({
      buildJob: 'b1-build',
      image: `registry.test/${NS}/shop:b1@${DIGEST}`,
      startedAt: at(5),
      finishedAt: NOW.toISOString(),
    });
  });

  it('deploys what the push container reported by digest, read live once the build Job succeeded', () => {
    const fromCache = inputs({
      bundle: bundle('b1', stored(), spec({ deploy: deployTo() })),
      buildJob: job('b1-build', 'succeeded'),
      environment: environment(undefined, stored()),
      deployment: deployment(),
      pushedImage: undefined,
    });
    // The cache cannot show it (the pod has ended): the controller reads it live, never deploys the tag.
    expect(awaitsPushedImage(fromCache)).toBe(true);
    expect(summary(decideBundle(fromCache)).then).toBe('Building none progressing');
    expect(decideBundle(fromCache).status.image).toBeUndefined();
    const live = decideBundle({ ...fromCache, pushedImage: `registry.test/${NS}/shop:b1@${DIGEST}` });
    expect(live.action).toEqual({
      type: 'startRollout',
      container: 'web',
      image: `registry.test/${NS}/shop:b1@${DIGEST}`,
    });
    // Its pod gone before the read: nothing to deploy by digest, said so, for good.
    const gone = decideBundle({ ...fromCache, pushedImage: null });
    expect(summary(gone).then).toBe('Failed none finished');
    expect(gone.conditions.at(-1)).toMatchObject({ reason: 'DigestUnknown' });
    expect(gone.conditions.at(-1)?.message).toMatch(/report of the pushed digest is gone/);
  });

  it('gives the build slot to the oldest waiting bundle first', () => {
    const older = bundle('a-older', stored());
    const newer = bundle('b-newer', stored(10));
    const all = [older, newer];
    expect(decideBundle(inputs({ bundle: newer, projectBundles: all })).phase).toBe('Queued');
    expect(decideBundle(inputs({ bundle: older, projectBundles: all })).action.type).toBe('createBuildJob');
  });

  it("caps a Project's build-concurrency annotation at the operator's maximum", () => {
    const greedy = {
      ...project(),
      metadata: { ...project().metadata, annotations: { 'slipway.dev/build-concurrency': '1000' } },
    };
    const queued = decideBundle(inputs({ project: greedy, runningBuilds: 10 }));
    expect(queued.phase).toBe('Queued');
    expect(queued.conditions.find((c) => c.type === 'Built')?.message).toMatch(
      /runs at most 10 builds at a time/,
    );
    expect(decideBundle(inputs({ project: greedy, runningBuilds: 9 })).action.type).toBe('createBuildJob');
  });

  it('counts an older bundle whose build Job started once, before its status shows it', () => {
    const older = bundle('a-older', stored());
    const newer = bundle('b-newer', stored(10));
    const two = {
      ...project(),
      metadata: { ...project().metadata, annotations: { 'slipway.dev/build-concurrency': '2' } },
    };
    // The older bundle's Job is running (or being created); its status.buildJob is not cached yet.
    const d = decideBundle(
      inputs({
        bundle: newer,
        project: two,
        projectBundles: [older, newer],
        runningBuilds: 1,
        startedBuilds: new Set(['a-older-build']),
      }),
    );
    expect(d.action.type).toBe('createBuildJob');
    // Without the started Job, the older bundle still waits ahead of it and takes the last slot.
    const queued = decideBundle(
      inputs({ bundle: newer, project: two, projectBundles: [older, newer], runningBuilds: 1 }),
    );
    expect(queued.phase).toBe('Queued');
  });

  it('does not hold a slot for an older bundle that cannot build yet', () => {
    const noRepository = project('shop', stored(), spec({ repository: undefined }));
    const stuckGit = bundle('a-git', stored());
    const upload = bundle(
      'b-upload',
      stored(10),
      spec({ source: { archive: { url: ARCHIVE_URL, sha256: 'f'.repeat(64), sizeBytes: 10 } } }),
    );
    const d = decideBundle(
      inputs({ project: noRepository, bundle: upload, projectBundles: [stuckGit, upload] }),
    );
    expect(d.action.type).toBe('createBuildJob');
  });

  it('does not hold a slot for an older bundle that a newer one supersedes', () => {
    const older = bundle('a-older', stored(), spec({ deploy: deployTo() }));
    const newer = bundle('b-newer', stored(10), spec({ deploy: deployTo() }));
    const d = decideBundle(inputs({ bundle: newer, projectBundles: [older, newer] }));
    expect(d.action.type).toBe('createBuildJob');
  });
});

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

describe('decideBundle: pods that cannot run', () => {
  const stuckPod = (name: string, reason: string, message: string): V1Pod => ({
    metadata: { name, creationTimestamp: new Date(at(1)) },
    status: {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'False', reason, message }],
    },
  });
  const noPods = { build: [], backup: [], rollout: [] };
  const env = environment('staging', stored(), spec(database));

  it("holds a build whose pod cannot be scheduled at Ready=False with the scheduler's message", () => {
    const d = decideBundle(
      inputs({
        buildJob: job('b1-build', 'running'),
        pods: { ...noPods, build: [stuckPod('b1-build-x', 'Unschedulable', '0/1 nodes are available')] },
      }),
    );
    expect(summary(d)).toEqual({
      then: 'Building none waiting',
      conditions: 'Built=Unknown/Unschedulable Ready=False/Unschedulable',
    });
    expect(d.conditions.at(-1)?.message).toBe('pod b1-build-x cannot be scheduled: 0/1 nodes are available');
    expect(d.requeueAfterMs).toBe(REQUEUE_NO_POD_MS);
  });

  it('counts a running Job as podless only while it has no pod at all', () => {
    const withStatus = (status: object) => {
      const j = job('b1-build', 'running', at(1));
      return { ...j, status: { ...j.status, ...status } };
    };
    const podless = (buildJob: ReturnType<typeof job>) =>
      podlessJobs(inputs({ buildJob, pods: noPods })).map(({ step }) => step);
    expect(podless(withStatus({}))).toEqual(['build']);
    // Its pod has just ended and left the pod cache; the Job still counts it active.
    expect(podless(withStatus({ active: 1 }))).toEqual([]);
    // A pod failed and the Job waits to retry: not a refusal.
    expect(podless(withStatus({ failed: 1 }))).toEqual([]);
  });

  it('names a Job whose pod was refused', () => {
    const d = decideBundle(
      inputs({
        buildJob: job('b1-build', 'running'),
        pods: noPods,
        refusedPods: { build: 'pods "b1-build-x" is forbidden: exceeded quota: none, requested: pods=1' },
      }),
    );
    expect(d.conditions.at(-1)).toMatchObject({
      reason: 'PodsRefused',
      message:
        'Job b1-build cannot create its pod: pods "b1-build-x" is forbidden: exceeded quota: none, requested: pods=1',
    });
  });

  it('holds a rollout whose new pods crash, naming the container but not quoting it', () => {
    const crashing: V1Pod = {
      metadata: { name: 'web-1', creationTimestamp: new Date(at(100)) },
      status: {
        phase: 'Running',
        containerStatuses: [
          {
            name: 'web',
            image: 'registry.test/x',
            imageID: '',
            ready: false,
            restartCount: 4,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { exitCode: 1, message: 'DB_PASSWORD=secret' } },
          },
        ],
      },
    };
    const d = decideBundle(
      inputs({
        bundle: deployBundle('b1'),
        environment: env,
        deployment: deployment({ bundle: 'b1', startedAt: at(90), updated: 0 }),
        pods: { ...noPods, rollout: [crashing] },
      }),
    );
    expect(summary(d).conditions).toBe(
      'Built=True/Succeeded Deployed=Unknown/CrashLoop Ready=False/CrashLoop',
    );
    expect(d.conditions.at(-1)?.message).toBe(
      'rolling out to Deployment shop-web: container web of pod web-1 keeps crashing (4 restarts; last exit code 1)',
    );
  });
});

describe('decideBundle: rollback', () => {
  const env = environment('staging', stored(), spec(database), status({ currentBundle: 'b0' }));
  const rollback = (to: string) =>
    bundle(
      'rb',
      stored(200),
      spec({
        deploy: deployTo('staging'),
        source: { bundleRef: { name: to } },
        trigger: { type: 'Rollback' },
      }),
    );
  const b0 = bundle(
    'b0',
    stored(),
    spec({ deploy: deployTo('staging') }),
    status({
      ...finished('Ready'),
      image: B0_IMAGE,
      conditions: [
        condition('Built', 'True', 'Succeeded'),
        condition('Deployed', 'True', 'Succeeded'),
        condition('Ready', 'True', 'Succeeded'),
      ],
    }),
  );

  it("rolls out the source bundle's image without building", () => {
    const rb = rollback('b0');
    const d = decideBundle(
      inputs({
        bundle: rb,
        projectBundles: [b0, rb],
        environment: env,
        deployment: deployment({ bundle: 'b1' }),
      }),
    );
    expect(summary(d)).toEqual({
      then: 'Deploying startRollout progressing',
      conditions: 'Built=True/Reused Deployed=Unknown/Progressing Ready=Unknown/Progressing',
    });
    expect(d.action).toEqual({ type: 'startRollout', container: 'web', image: B0_IMAGE });
    expect(d.status.image).toBe(B0_IMAGE);
  });

  it('fails when the source bundle does not exist or built nothing', () => {
    const missing = decideBundle(
      inputs({ bundle: rollback('gone'), environment: env, deployment: deployment() }),
    );
    expect(summary(missing).conditions).toBe(
      'Built=False/SourceBundleNotFound Ready=False/SourceBundleNotFound',
    );
    const failed = bundle('bf', stored(), status(finished('Failed')));
    const rb = rollback('bf');
    const unbuilt = decideBundle(
      inputs({ bundle: rb, projectBundles: [failed, rb], environment: env, deployment: deployment() }),
    );
    expect(summary(unbuilt).conditions).toBe(
      'Built=False/SourceBundleNotBuilt Ready=False/SourceBundleNotBuilt',
    );
  });

  it('puts back only a bundle that was deployed to the same environment', () => {
    const elsewhere = bundle('bp', stored(), spec({ deploy: deployTo('production') }), status(b0.status!));
    const buildOnly = bundle(
      'bo',
      stored(),
      status({ ...b0.status!, conditions: [condition('Built', 'True', 'Succeeded')] }),
    );
    for (const source of [elsewhere, buildOnly]) {
      const rb = rollback(source.metadata.name);
      const d = decideBundle(
        inputs({ bundle: rb, projectBundles: [source, rb], environment: env, deployment: deployment() }),
      );
      expect(summary(d).conditions).toBe(
        'Built=False/SourceBundleNotDeployed Ready=False/SourceBundleNotDeployed',
      );
      expect(d.action.type).toBe('none');
    }
  });

  describe('automatic, after a failed rollout', () => {
    const auto = environment(
      'staging',
      stored(),
      spec({ ...database, autoRollback: true }),
      status({ currentBundle: 'b0' }),
    );
    const failing = (b: BundleObject, others: BundleObject[] = []) =>
      decideBundle(
        inputs({
          bundle: b,
          projectBundles: [b0, b, ...others],
          environment: auto,
          deployment: deployment({
            bundle: b.metadata.name,
            startedAt: at(90),
            deadlineExceeded: true,
            updated: 0,
          }),
        }),
      );

    it('goes back to the bundle the environment ran before', () => {
      const d = failing(deployBundle('b1'));
      expect(d.phase).toBe('Failed');
      expect(d.action).toEqual({ type: 'rollBack', to: 'b0', environment: 'staging' });
      expect(d.conditions.at(-1)?.message).toMatch(/; rolling back to bundle b0$/);
      // Decided again before its own status shows: the same message, and no second rollback.
      const made = bundle(
        'b1-rollback',
        stored(150),
        spec({
          deploy: deployTo('staging'),
          source: { bundleRef: { name: 'b0' } },
          trigger: { type: 'Rollback' },
        }),
      );
      const again = failing(deployBundle('b1'), [made]);
      expect(again.action).toEqual({ type: 'none' });
      expect(again.conditions.at(-1)?.message).toBe(d.conditions.at(-1)?.message);
    });

    it('does not go back to a current bundle that never ran on the environment (a forged status)', () => {
      const other = bundle('b0', stored(), spec({ deploy: deployTo('production') }), status(b0.status!));
      const b = deployBundle('b1');
      const d = decideBundle(
        inputs({
          bundle: b,
          projectBundles: [other, b],
          environment: auto,
          deployment: deployment({ bundle: 'b1', startedAt: at(90), deadlineExceeded: true, updated: 0 }),
        }),
      );
      expect(d.phase).toBe('Failed');
      expect(d.action).toEqual({ type: 'none' });
    });

    it('leaves it to a newer bundle for the environment, and never rolls back a rollback', () => {
      expect(failing(deployBundle('b1'), [deployBundle('b2', 150)]).action).toEqual({ type: 'none' });
      const rb = bundle(
        'b1',
        stored(),
        spec({
          deploy: deployTo('staging'),
          trigger: { type: 'Rollback' },
          source: { bundleRef: { name: 'b0' } },
        }),
        status({ image: B0_IMAGE, conditions: [condition('Built', 'True', 'Reused')] }),
      );
      expect(failing(rb).action).toEqual({ type: 'none' });
    });

    it('is not held back by a newer bundle that failed or was superseded', () => {
      const failedNewer = bundle(
        'b2',
        stored(150),
        spec({ deploy: deployTo('staging') }),
        status(finished('Failed')),
      );
      expect(failing(deployBundle('b1'), [failedNewer]).action).toEqual({
        type: 'rollBack',
        to: 'b0',
        environment: 'staging',
      });
    });

    it('does nothing for an environment that did not ask', () => {
      const d = decideBundle(
        inputs({
          bundle: deployBundle('b1'),
          projectBundles: [b0],
          environment: env,
          deployment: deployment({ bundle: 'b1', startedAt: at(90), deadlineExceeded: true, updated: 0 }),
        }),
      );
      expect(d.action).toEqual({ type: 'none' });
    });
  });
});

describe('decideBundle: ordering between bundles of one environment', () => {
  const env = environment('staging', stored(), spec(database));

  it('a newer bundle for the same environment supersedes one not yet rolled out', () => {
    const older = deployBundle('b1', 0);
    const newer = bundle('b2', stored(10), spec({ deploy: deployTo() }));
    const d = decideBundle(
      inputs({ bundle: older, projectBundles: [older, newer], environment: env, deployment: deployment() }),
    );
    expect(summary(d)).toEqual({
      then: 'Superseded none finished',
      conditions: 'Deployed=False/Superseded Ready=False/Superseded',
    });
    expect(d.conditions.at(-1)?.message).toBe('bundle b2 for environment staging is newer');
  });

  it('a superseded bundle stops its running build Job', () => {
    const older = bundle('b1', stored(), spec({ deploy: deployTo() }));
    const newer = bundle('b2', stored(10), spec({ deploy: deployTo() }));
    const d = decideBundle(
      inputs({ bundle: older, projectBundles: [older, newer], buildJob: job('b1-build', 'running') }),
    );
    expect(d.action).toEqual({ type: 'stopJobs' });
    expect(d.phase).toBe('Superseded');
  });

  it('a bundle whose rollout has begun is not superseded; the newer one waits for it', () => {
    const older = deployBundle('b1', 0);
    const newer = deployBundle('b2', 10);
    const dep = deployment({ bundle: 'b1', updated: 0 });
    const all = [older, newer];
    expect(
      decideBundle(inputs({ bundle: older, projectBundles: all, environment: env, deployment: dep })).phase,
    ).toBe('Deploying');
    expect(
      decideBundle(inputs({ bundle: newer, projectBundles: all, environment: env, deployment: dep })).phase,
    ).toBe('Built');
  });

  it('trusts its own Progressing condition when the cached Deployment lags behind', () => {
    const older = deployBundle('b1', 0);
    older.status!.conditions!.push(condition('Deployed', 'Unknown', 'Progressing'));
    const newer = deployBundle('b2', 10);
    const d = decideBundle(
      inputs({
        bundle: older,
        projectBundles: [older, newer],
        environment: env,
        deployment: deployment({ bundle: 'b0' }),
      }),
    );
    expect(d.phase).not.toBe('Superseded');
  });

  /** A bundle for env whose status says Deployed=Unknown/`reason`, decided against a Deployment running b0. */
  const decidedAfter = (reason: string) => {
    const b1 = deployBundle('b1', 0);
    b1.status!.conditions!.push(condition('Deployed', 'Unknown', reason));
    return decideBundle(
      inputs({
        bundle: b1,
        projectBundles: [b1],
        environment: env,
        deployment: deployment({ bundle: 'b0' }),
      }),
    );
  };

  it('leaves a hand-made rollback alone: kubectl rollout undo during its rollout fails it as RolloutReplaced', () => {
    // Its status says its rollout started; the Deployment runs b0's pod template again.
    const d = decidedAfter('Progressing');
    expect(d.action).toEqual({ type: 'none' });
    expect(summary(d)).toEqual({
      then: 'Failed none finished',
      conditions: 'Built=True/Succeeded Deployed=False/RolloutReplaced Ready=False/RolloutReplaced',
    });
    expect(d.conditions.find((c) => c.type === 'Ready')?.message).toMatch(
      /^Deployment shop-web was changed to bundle b0 while this bundle rolled out \(kubectl rollout undo\?\)/,
    );
  });

  it.each(['DeploymentNotFound', 'EnvironmentNotFound', 'WaitingForEnvironment'])(
    'rolls out a bundle that waited with Deployed=Unknown/%s once it can (waiting is not a started rollout)',
    (reason) => {
      expect(decidedAfter(reason).action.type).toBe('startRollout');
    },
  );

  it('an older bundle never replaces a newer one the environment already runs', () => {
    const older = deployBundle('b1', 0);
    const newer = bundle('b2', stored(10), spec({ deploy: deployTo() }), status(finished('Ready')));
    const d = decideBundle(
      inputs({
        bundle: older,
        projectBundles: [older, newer],
        environment: env,
        deployment: deployment({ bundle: 'b2' }),
      }),
    );
    expect(d.phase).toBe('Superseded');
  });

  it('a newer bundle for another environment does not supersede', () => {
    const mine = deployBundle('b1', 0);
    const other = bundle('b2', stored(10), spec({ deploy: deployTo('production') }));
    const d = decideBundle(
      inputs({ bundle: mine, projectBundles: [mine, other], environment: env, deployment: deployment() }),
    );
    expect(d.action.type).toBe('startRollout');
  });

  it('bundles created in the same second are ordered by name', () => {
    const a = deployBundle('b-a', 0);
    const b = deployBundle('b-b', 0);
    const all = [a, b];
    expect(
      decideBundle(inputs({ bundle: a, projectBundles: all, environment: env, deployment: deployment() }))
        .phase,
    ).toBe('Superseded');
    expect(
      decideBundle(inputs({ bundle: b, projectBundles: all, environment: env, deployment: deployment() }))
        .phase,
    ).toBe('Deploying');
  });
});

describe('what an acting decision holds (contendedBy)', () => {
  const staging = environment('staging', stored());
  const production = environment('production', stored(), spec({ deploymentRef: { name: 'shop-prod' } }));
  const toStaging = bundle('b1', stored(), spec({ deploy: deployTo('staging') }));
  const toProduction = bundle('b2', stored(), spec({ deploy: deployTo('production') }));

  it('the Deployment it rolls out to: environments of one project hold nothing in common', () => {
    expect(contendedBy(inputs({ bundle: toStaging, environment: staging }))).toEqual([
      `deployment:${NS}/shop-web`,
    ]);
    expect(contendedBy(inputs({ bundle: toProduction, environment: production }))).toEqual([
      `deployment:${NS}/shop-prod`,
    ]);
  });

  it('two environments on one Deployment share its lock; a missing environment is locked by name', () => {
    const alias = environment('preview', stored());
    const toPreview = bundle('b3', stored(), spec({ deploy: deployTo('preview') }));
    expect(contendedBy(inputs({ bundle: toPreview, environment: alias }))).toEqual(
      contendedBy(inputs({ bundle: toStaging, environment: staging })),
    );
    expect(contendedBy(inputs({ bundle: toPreview }))).toEqual([`environment:${NS}/preview`]);
  });

  it('a bundle that only builds holds nothing', () => {
    expect(contendedBy(inputs())).toEqual([]);
  });
});

describe('decideBundle: only its own image is deployed', () => {
  it('refuses an image from a forged status: another registry, another project, or no digest', () => {
    const env = environment('staging', stored(), spec(database));
    for (const image of [
      `evil.example/pwn@${DIGEST}`,
      `registry.test/${NS}/other:b1@${DIGEST}`,
      `registry.test/other-ns/shop:b1@${DIGEST}`,
      `registry.test/${NS}/shop:b1`,
    ]) {
      const b = bundle(
        'b1',
        stored(),
        spec({ deploy: deployTo('staging') }),
        status({ phase: 'Built', image, conditions: [condition('Built', 'True', 'Succeeded')] }),
      );
      const d = decideBundle(
        inputs({ bundle: b, environment: env, deployment: deployment({ bundle: 'b0' }) }),
      );
      expect(summary(d)).toEqual({
        then: 'Failed none finished',
        conditions: 'Built=True/Succeeded Deployed=False/ForeignImage Ready=False/ForeignImage',
      });
      expect(d.conditions.at(-1)?.message).toContain(
        `status.image ${image} is not an image of this project's repository`,
      );
    }
  });
});
