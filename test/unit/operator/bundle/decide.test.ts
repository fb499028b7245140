// decide.ts: a bundle's chain through waiting, settling, building, and pods that cannot run.
import { buildJobName } from '../../../../operator/names.ts';
import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { awaitsPushedImage } from '../../../../operator/bundle/build-step.ts';
import { decideBundle } from '../../../../operator/bundle/decide.ts';
import { foreignBaseImage } from '../../../../operator/bundle/settings.ts';
import { REQUEUE_NO_POD_MS } from '../../../../operator/bundle/decision.ts';
import { podlessJobs } from '../../../../operator/bundle/workload-readings.ts';
import {
  NAMESPACE as NS,
  at,
  bundle,
  database,
  deployTo,
  environment,
  project,
  spec,
  status,
  stored,
} from '../../../support/builders.ts';
import { condition, deployment, finished, job } from '../builders.ts';
import { NOW, ARCHIVE_URL, DIGEST, inputs, summary, deployBundle, type Case } from './bundle-inputs.ts';

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
      name: 'a build waits while the operator has no registry credentials for builds (docs/adr/0006)',
      in: { registryProblem: 'the registry answers /v2/ without asking for a token' },
      then: 'Pending none waiting',
      conditions: 'Built=Unknown/RegistryUnprotected Ready=False/RegistryUnprotected',
    },
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
      name: "a base image in another namespace's repositories of Slipway's registry is refused for good",
      in: {
        bundle: bundle('b1', stored(), spec({ baseSoftware: { image: 'registry.test/other-team/php:8' } })),
      },
      then: 'Failed none finished',
      conditions: 'Built=False/ForeignBaseImage Ready=False/ForeignBaseImage',
    },
    {
      name: "a build steps image in another namespace's repositories of Slipway's registry is refused for good",
      in: {
        bundle: bundle(
          'b1',
          stored(),
          spec({ buildSteps: { image: 'registry.test/other-team/node:22', commands: ['npm ci'] } }),
        ),
      },
      then: 'Failed none finished',
      conditions: 'Built=False/ForeignBaseImage Ready=False/ForeignBaseImage',
    },
    {
      name: "base images from the bundle's own namespace in Slipway's registry, and from elsewhere, are built from",
      in: {
        bundle: bundle(
          'b1',
          stored(),
          spec({
            baseSoftware: { image: `registry.test/${NS}/php:8` },
            buildSteps: { image: 'docker.io/library/node:22', commands: ['npm ci'] },
          }),
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
      name: "a succeeded build Job of the bundle's name whose label names another bundle (of the same name, since deleted) is never taken for its build",
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

  it("takes Slipway's registry with its path: images beside it on the same host are elsewhere", () => {
    const registry = '172.30.255.1:5000/builds';
    expect(foreignBaseImage('172.30.255.1:5000/slipway/node:r6', registry, 'team')).toBeUndefined();
    expect(foreignBaseImage('172.30.255.1:5000/builds/team/base:1', registry, 'team')).toBeUndefined();
    expect(foreignBaseImage('172.30.255.1:5000/Builds/other/base:1', registry, 'team')).toMatch(
      /outside this namespace's repositories \(172\.30\.255\.1:5000\/builds\/team\/…\)/,
    );
    // A namespace whose name begins like another's is not inside it.
    expect(foreignBaseImage('172.30.255.1:5000/builds/team-b/base:1', registry, 'team')).toBeDefined();
  });

  it('records the build Job, the start time and, once built, the image', () => {
    const started = decideBundle(inputs());
    const buildJob = buildJobName(NS, 'b1');
    expect(started.status).toMatchObject({
      buildJob,
      build: { namespace: 'slipway-builds', job: buildJob },
      startedAt: NOW.toISOString(),
    });
    const done = decideBundle(inputs({ buildJob: job('b1-build', 'succeeded', at(5)) }));
    expect(done.status).toMatchObject({
      buildJob,
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

  it("waits for a slot of its namespace once the namespace's projects run the most builds it may, whatever each project's own limit", () => {
    const queued = decideBundle(inputs({ namespaceRunningBuilds: 5 }));
    expect(queued.phase).toBe('Queued');
    expect(queued.conditions.find((c) => c.type === 'Built')?.message).toBe(
      `waiting for a build slot: namespace ${NS} runs at most 5 builds at a time (all its projects)`,
    );
    expect(decideBundle(inputs({ namespaceRunningBuilds: 4 })).action.type).toBe('createBuildJob');
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
        startedBuilds: new Set([buildJobName(NS, 'a-older')]),
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
      message: `Job ${buildJobName(NS, 'b1')} cannot create its pod: pods "b1-build-x" is forbidden: exceeded quota: none, requested: pods=1`,
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
