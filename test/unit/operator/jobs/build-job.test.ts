import { describe, expect, it } from '@jest/globals';
import { backupJob } from '../../../../operator/jobs/backup-job.ts';
import { BUILD_SCRIPT } from '../../../../operator/jobs/build-scripts.ts';
import { dockerfile } from '../../../../operator/jobs/dockerfile.ts';
import { buildJob } from '../../../../operator/jobs/build-job.ts';
import { pushedDigest } from '../../../../operator/bundle/workload-state.ts';
import type { BundleObject } from '../../../../crds/index.ts';
import {
  DEFAULT_BACKUP_RESOURCES,
  DEFAULT_BUILD_RESOURCES,
  loadConfig,
} from '../../../../operator/config.ts';
import { boundedName } from '../../../../crds/labels.ts';
import { buildJobName, bundleImage } from '../../../../operator/names.ts';
import { bundle, database, deployTo, environment, project, spec, stored } from '../../../support/builders.ts';

const settings = loadConfig({ SLIPWAY_REGISTRY: 'registry.test:5000' });

const containerOf = (job: ReturnType<typeof buildJob>, container: 'fetch' | 'build' | 'push') => {
  const spec = job.spec!.template.spec!;
  return [...(spec.initContainers ?? []), ...spec.containers].find((x) => x.name === container)!;
};
const envOf = (job: ReturnType<typeof buildJob>, container: 'fetch' | 'build' | 'push') =>
  Object.fromEntries((containerOf(job, container).env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]));

describe('names', () => {
  it('are deterministic and fit in 63 characters, with a hash keeping long names apart', () => {
    expect(buildJobName('team', 'b1')).toMatch(/^[0-9a-f]{16}-b1-build$/);
    // Two namespaces' bundles of one name share the build namespace without colliding.
    expect(buildJobName('team', 'b1')).not.toBe(buildJobName('other', 'b1'));
    const long1 = `${'x'.repeat(70)}-one`;
    const long2 = `${'x'.repeat(70)}-two`;
    expect(buildJobName('team', long1)).toHaveLength(63);
    expect(buildJobName('team', long1)).toBe(buildJobName('team', long1));
    expect(buildJobName('team', long1)).not.toBe(buildJobName('team', long2));
    expect(boundedName('a'.repeat(300), '', 253).length).toBeLessThanOrEqual(253);
  });

  it('puts each bundle in its own tag of the project repository', () => {
    expect(bundleImage('registry.test:5000', 'team', 'shop', 'b1')).toBe('registry.test:5000/team/shop:b1');
  });
});

describe('build Job', () => {
  it('runs in the build namespace, names its bundle in labels, and pushes to the configured registry', () => {
    const b = bundle('b1', stored());
    const job = buildJob(b, project(undefined, stored()), 'registry.test:5000/team/shop:b1', settings);
    expect(job.metadata?.name).toBe(buildJobName(b.metadata.namespace, 'b1'));
    expect(job.metadata?.namespace).toBe('slipway-builds');
    // An owner reference cannot cross namespaces: the labels stand in for it, on the pods too.
    expect(job.metadata?.ownerReferences).toBeUndefined();
    const owner = {
      'slipway.dev/bundle': 'b1',
      'slipway.dev/bundle-namespace': b.metadata.namespace,
      'slipway.dev/bundle-uid': 'uid-b1',
    };
    expect(job.metadata?.labels).toMatchObject(owner);
    expect(job.spec?.template.metadata?.labels).toMatchObject(owner);
    const pod = job.spec!.template.spec!;
    expect(pod.initContainers!.map((c) => c.name)).toEqual(['fetch', 'build']);
    const build = containerOf(job, 'build');
    expect(build.image).toBe('moby/buildkit:rootless');
    expect(build.command).toEqual(['/bin/sh', '-c', BUILD_SCRIPT, 'build']);
    // BuildKit (and the build steps) write an OCI layout; the push container pushes it.
    expect(envOf(job, 'build').BUILD_OUTPUT).toBe('type=oci,dest=/image/layout,tar=false');
    expect(pod.containers.map((c) => c.name)).toEqual(['push']);
    expect(containerOf(job, 'push').command).toEqual([
      'crane',
      'push',
      '/image/layout',
      'registry.test:5000/team/shop:b1',
      '--image-refs',
      '/dev/termination-log',
    ]);
    expect(job.spec?.backoffLimit).toBe(0);
  });

  it("takes the digest only from the push container's report of the bundle's own repository", () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    const pod = (message: string, exitCode = 0) => ({
      metadata: { creationTimestamp: new Date() },
      status: { containerStatuses: [{ name: 'push', state: { terminated: { exitCode, message } } }] },
    });
    const repository = 'registry.test:5000/team/shop';
    const read = (message: string, exitCode?: number) =>
      pushedDigest([pod(message, exitCode)] as never, 'push', repository);
    expect(read(`${repository}@${digest}\n`)).toBe(digest);
    expect(read(`${repository}:b1@${digest}`)).toBe(digest);
    expect(read(`registry.test:5000/other/shop@${digest}`)).toBeUndefined();
    expect(read(`${repository}@${digest}`, 1)).toBeUndefined();
    expect(read('not a reference')).toBeUndefined();
  });

  it('gives the push credentials to the push container alone: the build steps never see them', () => {
    const job = buildJob(
      bundle('b1', stored()),
      project(undefined, stored()),
      'registry.test:5000/team/shop:b1',
      settings,
      { secrets: { push: 'push-creds', pull: 'pull-creds' } },
    );
    const pod = job.spec!.template.spec!;
    const secretOf = (volume: string) => pod.volumes!.find((v) => v.name === volume)?.secret?.secretName;
    const secretsMountedIn = (container: 'fetch' | 'build' | 'push') =>
      (containerOf(job, container).volumeMounts ?? []).map((m) => secretOf(m.name)).filter(Boolean);
    expect(secretsMountedIn('push')).toEqual(['push-creds']);
    expect(envOf(job, 'push').DOCKER_CONFIG).toBe('/registry-auth');
    expect(secretsMountedIn('build')).toEqual(['pull-creds']);
    expect(secretsMountedIn('fetch')).toEqual([]);
    // The image the build wrote reaches the push container read-only.
    expect(containerOf(job, 'push').volumeMounts).toContainEqual({
      name: 'image',
      mountPath: '/image',
      readOnly: true,
    });
  });

  it("bounds every container of build and backup pods, with the operator's settings", () => {
    const build = buildJob(bundle('b1', stored()), project(), 'registry.test:5000/team/shop:b1', settings);
    const pod = build.spec!.template.spec!;
    for (const c of [...(pod.initContainers ?? []), ...pod.containers])
      expect(c.resources).toEqual(DEFAULT_BUILD_RESOURCES);
    const env = environment('staging', stored(), spec(database));
    const backup = backupJob(bundle('b1', stored()), env, settings);
    for (const c of backup.spec!.template.spec!.containers)
      expect(c.resources).toEqual(DEFAULT_BACKUP_RESOURCES);
    const custom = loadConfig({ SLIPWAY_BUILD_RESOURCES: '{"limits":{"memory":"8Gi"}}' });
    const customPod = buildJob(bundle('b1', stored()), project(), 'r/i:t', custom).spec!.template.spec!;
    expect(customPod.containers[0]!.resources).toEqual({ limits: { memory: '8Gi' } });
  });

  it('refuses resources that are not JSON quantities, naming the setting', () => {
    expect(() => loadConfig({ SLIPWAY_BUILD_RESOURCES: 'cpu=2' })).toThrow(
      /SLIPWAY_BUILD_RESOURCES.*expected JSON/,
    );
    expect(() => loadConfig({ SLIPWAY_BACKUP_RESOURCES: '{"limits":{"gpu":"1"}}' })).toThrow(
      /SLIPWAY_BACKUP_RESOURCES/,
    );
  });

  it('tells BuildKit to use plain HTTP for an insecure registry, and only then', () => {
    const insecure = loadConfig({
      SLIPWAY_REGISTRY: '172.30.255.1:5000/builds',
      SLIPWAY_REGISTRY_INSECURE: 'true',
    });
    const job = buildJob(
      bundle('b1', stored()),
      project(undefined, stored()),
      '172.30.255.1:5000/builds/team/shop:b1',
      insecure,
    );
    expect(envOf(job, 'fetch').BUILDKITD_CONFIG).toBe(
      '[registry."172.30.255.1:5000"]\n  http = true\n  insecure = true\n',
    );
    expect(envOf(job, 'build').BUILDKITD_FLAGS).toBe(
      '--oci-worker-no-process-sandbox --config=/workspace/buildkitd.toml',
    );
    expect(containerOf(job, 'push').command!.slice(0, 2)).toEqual(['crane', 'push']);
    expect(containerOf(job, 'push').command!.at(-1)).toBe('--insecure');
    const secure = buildJob(
      bundle('b1', stored()),
      project(undefined, stored()),
      'registry.test:5000/team/shop:b1',
      settings,
    );
    expect(envOf(secure, 'fetch').BUILDKITD_CONFIG).toBeUndefined();
    expect(envOf(secure, 'build').BUILDKITD_FLAGS).toBe('--oci-worker-no-process-sandbox');
  });

  it('keeps the last log lines of a failing step as its termination message', () => {
    const job = buildJob(bundle('b1', stored()), project(undefined, stored()), 'img', settings);
    const spec = job.spec!.template.spec!;
    for (const c of [...spec.initContainers!, ...spec.containers])
      expect(c.terminationMessagePolicy).toBe('FallbackToLogsOnError');
  });

  it('clones the commit with the project credentials', () => {
    const p = project(
      'shop',
      stored(),
      spec({
        repository: { url: 'git@git.example.com:shop.git', credentialsSecretRef: { name: 'git-creds' } },
      }),
    );
    const job = buildJob(bundle('b1', stored()), p, 'img', settings, { secrets: { git: 'git-creds' } });
    expect(envOf(job, 'fetch')).toMatchObject({
      GIT_URL: 'git@git.example.com:shop.git',
      GIT_COMMIT: 'a'.repeat(40),
    });
    expect(job.spec!.template.spec!.volumes).toContainEqual(
      expect.objectContaining({
        name: 'credentials',
        secret: expect.objectContaining({ secretName: 'git-creds' }),
      }),
    );
  });

  it('downloads an archive and checks its size and sha256', () => {
    const archive = {
      url: 'https://gw.example.com/archives/k?sig=s',
      sha256: 'f'.repeat(64),
      sizeBytes: 1234,
    };
    const job = buildJob(
      bundle('b1', stored(), spec({ source: { archive } })),
      project(undefined, stored()),
      'img',
      settings,
    );
    expect(envOf(job, 'fetch')).toMatchObject({
      ARCHIVE_URL: archive.url,
      ARCHIVE_SHA256: archive.sha256,
      ARCHIVE_SIZE: '1234',
    });
    expect(envOf(job, 'fetch').GIT_URL).toBeUndefined();
  });

  it('builds from the base software and copies each mapped directory under the app root', () => {
    const b = bundle(
      'b1',
      stored(),
      spec({ baseSoftware: { image: 'php:8.3-fpm' }, directoryMap: { web: 'public/', config: './cfg' } }),
    );
    expect(dockerfile(b, '/app')).toBe(
      'FROM php:8.3-fpm\nCOPY ["cfg","/app/config"]\nCOPY ["public","/app/web"]\nLABEL "dev.slipway.bundle"="b1" "dev.slipway.project"="shop"\n',
    );
  });
});

describe('build steps', () => {
  const steps = {
    image: 'composer:2',
    commands: ['composer install --no-dev', `echo "a,b" > 'x y'; test -n "$APP_ENV"`],
    env: { APP_ENV: 'production', A_FIRST: '1' },
  };
  const withSteps = () =>
    bundle(
      'b1',
      stored(),
      spec({
        baseSoftware: { image: 'php:8.3' },
        directoryMap: { web: 'web', vendor: './vendor/' },
        buildSteps: steps,
      }),
    );

  it('run in a first stage on the builder image; the mapped directories come from what they leave', () => {
    expect(dockerfile(withSteps(), '/app')).toBe(
      [
        'FROM composer:2 AS build',
        'USER 0',
        'WORKDIR /src',
        'COPY . .',
        'ARG APP_ENV',
        'ARG A_FIRST',
        'ARG SLIPWAY_STEP_1',
        String.raw`RUN ["/bin/sh","-c","printf '+ %s\\n' \"$SLIPWAY_STEP_1\"; exec /bin/sh -c \"$SLIPWAY_STEP_1\""]`,
        'ARG SLIPWAY_STEP_2',
        String.raw`RUN ["/bin/sh","-c","printf '+ %s\\n' \"$SLIPWAY_STEP_2\"; exec /bin/sh -c \"$SLIPWAY_STEP_2\""]`,
        'FROM php:8.3',
        'COPY --from=build ["/src/vendor","/app/vendor"]',
        'COPY --from=build ["/src/web","/app/web"]',
        'LABEL "dev.slipway.bundle"="b1" "dev.slipway.project"="shop"',
        '',
      ].join('\n'),
    );
  });

  it('reach buildctl as build-args, each one argument: no shell or Dockerfile ever reads them', () => {
    const job = buildJob(
      withSteps(),
      project(undefined, stored()),
      'registry.test:5000/team/shop:b1',
      settings,
    );
    const args = containerOf(job, 'build').args!;
    const options = args.slice(args.indexOf('--opt'));
    expect(options).toEqual([
      '--opt',
      'build-arg:APP_ENV=production',
      '--opt',
      'build-arg:A_FIRST=1',
      '--opt',
      'build-arg:SLIPWAY_STEP_1=composer install --no-dev',
      '--opt',
      `build-arg:SLIPWAY_STEP_2=echo "a,b" > 'x y'; test -n "$APP_ENV"`,
    ]);
    expect(envOf(job, 'fetch').DOCKERFILE).not.toContain('composer install');
  });

  it('copy the whole tree when a directory maps to the source root', () => {
    const b = withSteps();
    b.spec.directoryMap = { web: '.' };
    expect(dockerfile(b, '/app/')).toContain('COPY --from=build ["/src","/app/web"]\n');
  });

  it('use no build cache without an install phase: no cache options, no push-cache', () => {
    const job = buildJob(
      withSteps(),
      project(undefined, stored()),
      'registry.test:5000/team/shop:b1',
      settings,
    );
    expect(envOf(job, 'build').CACHE_FROM).toBeUndefined();
    expect(envOf(job, 'build').CACHE_TO).toBeUndefined();
    expect(job.spec!.template.spec!.initContainers!.map((c) => c.name)).toEqual(['fetch', 'build']);
    expect(envOf(job, 'fetch').INSTALL_FILES).toBeUndefined();
  });
});

describe('an install phase', () => {
  const withInstall = (buildSteps: NonNullable<BundleObject['spec']['buildSteps']>) =>
    bundle(
      'b1',
      stored(),
      spec({ baseSoftware: { image: 'php:8.3' }, directoryMap: { web: 'web' }, buildSteps }),
    );
  const install = {
    image: 'composer:2',
    install: { files: ['composer.json', './composer.lock', 'packages/'], commands: ['composer install'] },
    commands: ['php bin/build-assets'],
    env: { APP_ENV: 'production' },
  };
  const job = () =>
    buildJob(withInstall(install), project(undefined, stored()), 'registry.test:5000/team/shop:b1', settings);

  it('runs in its own stage over only its files; the build steps run over the whole tree after it', () => {
    expect(dockerfile(withInstall(install), '/app')).toBe(
      [
        'FROM composer:2 AS install',
        'USER 0',
        'WORKDIR /src',
        'ARG APP_ENV',
        'COPY ["composer.json","/src/composer.json"]',
        'COPY ["composer.lock","/src/composer.lock"]',
        'COPY ["packages","/src/packages"]',
        'ARG SLIPWAY_INSTALL_1',
        String.raw`RUN ["/bin/sh","-c","printf '+ %s\\n' \"$SLIPWAY_INSTALL_1\"; exec /bin/sh -c \"$SLIPWAY_INSTALL_1\""]`,
        'FROM install AS build',
        'COPY . .',
        'ARG APP_ENV',
        'ARG SLIPWAY_STEP_1',
        String.raw`RUN ["/bin/sh","-c","printf '+ %s\\n' \"$SLIPWAY_STEP_1\"; exec /bin/sh -c \"$SLIPWAY_STEP_1\""]`,
        'FROM php:8.3',
        'COPY --from=build ["/src/web","/app/web"]',
        'LABEL "dev.slipway.bundle"="b1" "dev.slipway.project"="shop"',
        '',
      ].join('\n'),
    );
    const args = containerOf(job(), 'build').args!;
    expect(args.slice(args.indexOf('--opt'))).toEqual([
      '--opt',
      'build-arg:APP_ENV=production',
      '--opt',
      'build-arg:SLIPWAY_INSTALL_1=composer install',
      '--opt',
      'build-arg:SLIPWAY_STEP_1=php bin/build-assets',
    ]);
  });

  it('alone, leaves a build stage with no builder image: its tree and the source', () => {
    const text = dockerfile(
      withInstall({ image: 'node:22', install: { files: ['package.json'], commands: ['npm ci'] } }),
      '/app',
    );
    expect(text.split('\n').slice(3, 9)).toEqual([
      'COPY ["package.json","/src/package.json"]',
      'ARG SLIPWAY_INSTALL_1',
      String.raw`RUN ["/bin/sh","-c","printf '+ %s\\n' \"$SLIPWAY_INSTALL_1\"; exec /bin/sh -c \"$SLIPWAY_INSTALL_1\""]`,
      'FROM scratch AS build',
      'COPY --from=install /src /src',
      'COPY . /src',
    ]);
    expect(text).not.toContain('SLIPWAY_STEP_');
    expect(text).toContain('COPY --from=build ["/src/web","/app/web"]');
  });

  it("imports and exports the project's own cache; push-cache alone, with push, holds the push credentials", () => {
    const j = buildJob(
      withInstall(install),
      project(undefined, stored()),
      'registry.test:5000/team/shop:b1',
      settings,
      { secrets: { push: 'push-creds', pull: 'pull-creds' } },
    );
    const env = envOf(j, 'build');
    expect(env.CACHE_FROM).toBe('type=registry,ref=registry.test:5000/team/shop:build_cache');
    expect(env.CACHE_TO).toMatch(/^type=local,dest=\/image\/cache,mode=max,/);
    const spec = j.spec!.template.spec!;
    expect(spec.initContainers!.map((c) => c.name)).toEqual(['fetch', 'build', 'push-cache']);
    const pushCache = spec.initContainers![2]!;
    expect(pushCache.command).toEqual([
      'crane',
      'push',
      '/image/cache',
      'registry.test:5000/team/shop:build_cache',
    ]);
    const mountsOf = (c: { volumeMounts?: Array<{ name: string }> }) =>
      (c.volumeMounts ?? []).map((m) => m.name);
    expect(mountsOf(pushCache)).toContain('registry-push');
    expect(mountsOf(containerOf(j, 'build'))).not.toContain('registry-push');
  });

  it("a fork's pull request neither reads nor writes the cache, and gets no build store", () => {
    const stored$ = loadConfig({
      SLIPWAY_REGISTRY: 'registry.test:5000',
      SLIPWAY_BUILD_STORE: '/var/lib/slipway',
    });
    const of = (fork: boolean) => {
      const b = withInstall(install);
      b.spec.trigger = { type: 'PullRequest', provider: 'github', previewRef: { name: 'shop-pr-7' }, fork };
      return buildJob(b, project(undefined, stored()), 'registry.test:5000/team/shop:b1', stored$);
    };
    const names = (j: ReturnType<typeof buildJob>) =>
      j.spec!.template.spec!.initContainers!.map((c) => c.name);
    expect(names(of(false))).toContain('push-cache');
    expect(envOf(of(false), 'build').CACHE_FROM).toBeDefined();
    expect(JSON.stringify(of(false).spec!.template.spec!.volumes)).toContain('/var/lib/slipway');
    expect(names(of(true))).toEqual(['fetch', 'build']);
    expect(envOf(of(true), 'build').CACHE_FROM).toBeUndefined();
    expect(JSON.stringify(of(true).spec!.template.spec!.volumes)).not.toContain('/var/lib/slipway');
  });

  it('has the fetch step check that its files are in the source', () => {
    expect(envOf(job(), 'fetch').INSTALL_FILES).toBe('composer.json\ncomposer.lock\npackages');
  });

  it('keeps one cache per namespace, project and environment: a staging push never feeds production', () => {
    const ref = (b: BundleObject) =>
      envOf(buildJob(b, project(undefined, stored()), 'r/x:b', settings), 'build').CACHE_FROM;
    const to = (namespace: string, project: string, environment?: string) => {
      const b = withInstall(install);
      b.metadata.namespace = namespace;
      b.spec.projectRef.name = project;
      if (environment) b.spec.deploy = deployTo(environment);
      return ref(b);
    };
    expect(to('team', 'shop', 'production')).toBe(
      'type=registry,ref=registry.test:5000/team/shop:build_cache.production',
    );
    expect(to('team', 'shop', 'staging')).toBe(
      'type=registry,ref=registry.test:5000/team/shop:build_cache.staging',
    );
    expect(to('team', 'shop')).toBe('type=registry,ref=registry.test:5000/team/shop:build_cache');
    expect(to('other', 'shop', 'production')).toBe(
      'type=registry,ref=registry.test:5000/other/shop:build_cache.production',
    );
    expect(to('team', 'blog', 'production')).toBe(
      'type=registry,ref=registry.test:5000/team/blog:build_cache.production',
    );
    // A pull request's: the previews' own, which no environment's name can be.
    const pullRequest = withInstall(install);
    pullRequest.spec.trigger = { type: 'PullRequest', previewRef: { name: 'shop-pr-1' } };
    expect(ref(pullRequest)).toBe('type=registry,ref=registry.test:5000/team/shop:build_cache._previews');
  });
});

describe('a build store on the node', () => {
  const storeSettings = loadConfig({
    SLIPWAY_REGISTRY: 'registry.test:5000',
    SLIPWAY_BUILD_STORE: '/var/lib/slipway/builds',
    SLIPWAY_BUILD_STORE_KEEP_MB: '2048',
  });
  const jobOf = (b: BundleObject, p = project(undefined, stored())) =>
    buildJob(b, p, 'registry.test:5000/team/shop:b1', storeSettings);

  it("is a directory per Project uid and environment, which a root init container with chown alone hands to the build's user", () => {
    const job = jobOf(bundle('b1', stored(), spec({ deploy: deployTo('production') })));
    const pod = job.spec!.template.spec!;
    expect(pod.initContainers!.map((c) => c.name)).toEqual(['build-store', 'fetch', 'build']);
    expect(pod.volumes).toContainEqual({
      name: 'build-store',
      hostPath: { path: '/var/lib/slipway/builds/uid-shop/production', type: 'DirectoryOrCreate' },
    });
    const prepare = pod.initContainers![0]!;
    expect(prepare.command).toEqual([
      '/bin/sh',
      '-c',
      'chown 1000:1000 /build-store && chmod 700 /build-store || echo "cannot hand /var/lib/slipway/builds/uid-shop/production on this node to the build: it builds without the store"',
    ]);
    expect(prepare.securityContext).toEqual({
      runAsUser: 0,
      runAsGroup: 0,
      runAsNonRoot: false,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'], add: ['CHOWN', 'FOWNER'] },
    });
    expect(prepare.env).toBeUndefined();
    // Only the build container gets it: fetch and push never see what earlier builds left.
    expect(containerOf(job, 'build').volumeMounts).toContainEqual({
      name: 'build-store',
      mountPath: '/build-store',
    });
    for (const other of ['fetch', 'push'] as const)
      expect(containerOf(job, other).volumeMounts!.map((m) => m.name)).not.toContain('build-store');
    expect(envOf(job, 'build')).toMatchObject({ BUILD_STORE: '/build-store', BUILD_STORE_KEEP_MB: '2048' });
  });

  it('is apart for each environment and for a Project made again under the same name', () => {
    const path = (job: ReturnType<typeof buildJob>) =>
      job.spec!.template.spec!.volumes!.find((v) => v.name === 'build-store')!.hostPath!.path;
    const staging = jobOf(bundle('b1', stored(), spec({ deploy: deployTo('staging') })));
    const buildOnly = jobOf(bundle('b1', stored()));
    const remade = project(undefined, stored());
    remade.metadata.uid = 'uid-shop-2';
    const again = jobOf(bundle('b1', stored(), spec({ deploy: deployTo('staging') })), remade);
    expect(path(staging)).toBe('/var/lib/slipway/builds/uid-shop/staging');
    expect(path(buildOnly)).toBe('/var/lib/slipway/builds/uid-shop/_build');
    expect(path(again)).toBe('/var/lib/slipway/builds/uid-shop-2/staging');
    // A pull request's build: the previews' own store, never an environment's; a fork's, none.
    const previewing = project(undefined, stored());
    const pullRequest = (fork: boolean) =>
      bundle(
        'b1',
        stored(),
        spec({ trigger: { type: 'PullRequest', previewRef: { name: 'shop-pr-1' }, fork } }),
      );
    expect(path(jobOf(pullRequest(false), previewing))).toBe('/var/lib/slipway/builds/uid-shop/_previews');
    expect(
      jobOf(pullRequest(true), previewing).spec!.template.spec!.volumes!.map((v) => v.name),
    ).not.toContain('build-store');
  });

  it('is off unless configured, and for a Project without a uid', () => {
    const job = buildJob(bundle('b1', stored()), project(undefined, stored()), 'r/i:t', settings);
    expect(job.spec!.template.spec!.initContainers!.map((c) => c.name)).toEqual(['fetch', 'build']);
    expect(envOf(job, 'build').BUILD_STORE).toBeUndefined();
    expect(
      jobOf(bundle('b1', stored()), project()).spec!.template.spec!.volumes!.map((v) => v.name),
    ).not.toContain('build-store');
  });
});

describe('config', () => {
  it('has working defaults and rejects bad values with the variable name', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      buildConcurrency: 1,
      leaderElection: true,
      builderImage: 'moby/buildkit:rootless',
      buildStore: undefined,
      buildStoreKeepMegabytes: 10_240,
    });
    expect(() => loadConfig({ SLIPWAY_BUILD_CONCURRENCY: '0' })).toThrow(/SLIPWAY_BUILD_CONCURRENCY/);
    for (const path of ['var/lib/builds', '/', '/var/lib/builds/', '/var/lib/my builds'])
      expect(() => loadConfig({ SLIPWAY_BUILD_STORE: path })).toThrow(
        /SLIPWAY_BUILD_STORE: expected an absolute/,
      );
    expect(() => loadConfig({ SLIPWAY_BUILD_STORE_KEEP_MB: '100' })).toThrow(/SLIPWAY_BUILD_STORE_KEEP_MB/);
    expect(() => loadConfig({ SLIPWAY_GATEWAY_BASE_URL: 'not a url' })).toThrow(/SLIPWAY_GATEWAY_BASE_URL/);
    expect(
      loadConfig({ SLIPWAY_GATEWAY_BASE_URL: 'https://h.example/', SLIPWAY_LEADER_ELECTION: 'false' }),
    ).toMatchObject({
      gatewayBaseUrl: 'https://h.example',
      leaderElection: false,
    });
  });
});
