// The containers of a build Job and what each mounts (pure; build-job.ts assembles the Job):
//   fetch       the source into the workspace, with the clone credentials alone
//   build       rootless BuildKit (the user's build steps), with the pull credentials alone
//   push-cache  the install stage's cache, and push the image: crane, with the push credentials
//               alone, running no user code
import type { V1Container, V1EnvVar, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { BundleObject } from '../../crds/index.ts';
import type { BuildSecretUse } from '../names.ts';
import { BUILD_SCRIPT, FETCH_SCRIPT } from './build-scripts.ts';
import type { BuildJobSettings } from './build-job.ts';

export const BUILD_UID = 1000;
/** Where the build leaves the image (an OCI layout) for the push container. */
export const IMAGE_LAYOUT = '/image/layout';

/** The Job's volumes, and each container's mounts and the push containers' environment. */
export interface BuildMounts {
  volumes: V1Volume[];
  fetch: V1VolumeMount[];
  build: V1VolumeMount[];
  push: V1VolumeMount[];
  pushEnv: V1EnvVar[];
}

export function buildMounts(
  bundle: BundleObject,
  secrets: Partial<Record<BuildSecretUse, string>>,
  store: { volume: V1Volume; mount: V1VolumeMount } | undefined,
): BuildMounts {
  const volumes: V1Volume[] = [
    { name: 'workspace', emptyDir: {} },
    { name: 'buildkit', emptyDir: {} },
  ];
  const fetch: V1VolumeMount[] = [{ name: 'workspace', mountPath: '/workspace' }];
  if (bundle.spec.source.git && secrets.git) {
    volumes.push({ name: 'credentials', secret: { secretName: secrets.git, defaultMode: 0o440 } });
    fetch.push({ name: 'credentials', mountPath: '/credentials', readOnly: true });
  }
  const build: V1VolumeMount[] = [
    { name: 'workspace', mountPath: '/workspace', readOnly: true },
    { name: 'buildkit', mountPath: '/home/user/.local/share/buildkit' },
    { name: 'image', mountPath: '/image' },
  ];
  volumes.push({ name: 'image', emptyDir: {} });
  if (store) {
    volumes.push(store.volume);
    build.push(store.mount);
  }
  const push: V1VolumeMount[] = [{ name: 'image', mountPath: '/image', readOnly: true }];
  // Docker config Secrets, each only in the container that needs it: the build steps never see
  // the push credentials.
  const dockerConfig = (volume: string, secretName: string): V1Volume => ({
    name: volume,
    secret: { secretName, items: [{ key: '.dockerconfigjson', path: 'config.json' }] },
  });
  if (secrets.pull) {
    volumes.push(dockerConfig('registry-pull', secrets.pull));
    build.push({ name: 'registry-pull', mountPath: '/home/user/.docker', readOnly: true });
  }
  const pushEnv: V1EnvVar[] = [];
  if (secrets.push) {
    volumes.push(dockerConfig('registry-push', secrets.push));
    push.push({ name: 'registry-push', mountPath: '/registry-auth', readOnly: true });
    pushEnv.push({ name: 'DOCKER_CONFIG', value: '/registry-auth' });
  }
  return { volumes, fetch, build, push, pushEnv };
}

const NO_ESCALATION = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };

/** Makers of the build Job's containers, over its settings and mounts. */
export function buildContainers(settings: BuildJobSettings, mounts: BuildMounts) {
  const common = {
    resources: settings.buildResources,
    // A failing step's last log lines become its termination message, shown on the pod.
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
  return {
    fetch: (env: V1EnvVar[]): V1Container => ({
      name: 'fetch',
      image: settings.fetchImage,
      command: ['/bin/sh', '-c', FETCH_SCRIPT],
      env,
      volumeMounts: mounts.fetch,
      ...common,
      securityContext: NO_ESCALATION,
    }),
    build: (args: string[], env: V1EnvVar[]): V1Container => ({
      name: 'build',
      image: settings.builderImage,
      command: ['/bin/sh', '-c', BUILD_SCRIPT, 'build'],
      args: [
        'build',
        '--frontend',
        'dockerfile.v0',
        '--local',
        'context=/workspace/src',
        '--local',
        'dockerfile=/workspace/dockerfile',
        ...args,
      ],
      env: [
        {
          name: 'BUILDKITD_FLAGS',
          value: `--oci-worker-no-process-sandbox${settings.registryInsecure ? ' --config=/workspace/buildkitd.toml' : ''}`,
        },
        { name: 'BUILD_OUTPUT', value: `type=oci,dest=${IMAGE_LAYOUT},tar=false` },
        ...env,
      ],
      volumeMounts: mounts.build,
      ...common,
      // Rootless BuildKit needs its own user namespaces: no seccomp/AppArmor filtering, but no root.
      securityContext: {
        seccompProfile: { type: 'Unconfined' },
        appArmorProfile: { type: 'Unconfined' },
        runAsUser: BUILD_UID,
        runAsGroup: BUILD_UID,
      },
    }),
    /** A container that pushes an OCI layout BuildKit wrote: crane push <layout> <reference> [options]. */
    push: (name: string, layout: string, reference: string, ...options: string[]): V1Container => ({
      name,
      image: settings.pushImage,
      command: [
        'crane',
        'push',
        layout,
        reference,
        ...options,
        ...(settings.registryInsecure ? ['--insecure'] : []),
      ],
      env: mounts.pushEnv,
      volumeMounts: mounts.push,
      ...common,
      securityContext: NO_ESCALATION,
    }),
  };
}
