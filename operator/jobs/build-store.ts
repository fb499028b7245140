// A BuildKit store that outlives the build pod (SLIPWAY_BUILD_STORE): a directory on the node
// for each Project and environment, as kpack keeps a cache volume per image. A warm build then
// finds the builder image unpacked and the install stage's layers in place, where a build from
// an empty store fetches and unpacks them again. The directory is named by the Project's uid, so
// a Project deleted and made again, or another tenant's namespace of the same name, never finds
// an earlier one's store; and by environment, as the registry cache is, so a staging push cannot
// plant what a production build reuses. BUILD_SCRIPT locks it for the build (flock): a second
// build of the same environment on the same node builds from an empty store instead of waiting.
import type {
  V1Container,
  V1EnvVar,
  V1ResourceRequirements,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';

/** Where the build container sees its store. */
export const BUILD_STORE_MOUNT = '/build-store';
/** The init container that hands the node's directory to the build's user; its volume's name too. */
export const BUILD_STORE_CONTAINER = 'build-store';

export interface BuildStoreParts {
  volume: V1Volume;
  /** Runs before the build: chown of the directory the kubelet made (root's, 0755) to the build's user. */
  prepare: V1Container;
  mount: V1VolumeMount;
  env: V1EnvVar[];
}

/**
 * The store of a Project's environment: the node's directory `<root>/<project uid>/<environment>`
 * (`_build` for bundles that only build), and what the build pod needs of it.
 */
export function buildStoreParts(options: {
  root: string;
  projectUid: string;
  environment: string | undefined;
  keepMegabytes: number;
  uid: number;
  image: string;
  resources: V1ResourceRequirements;
}): BuildStoreParts {
  const path = `${options.root}/${options.projectUid}/${options.environment ?? '_build'}`;
  const volume: V1Volume = {
    name: BUILD_STORE_CONTAINER,
    hostPath: { path, type: 'DirectoryOrCreate' },
  };
  const mount: V1VolumeMount = { name: BUILD_STORE_CONTAINER, mountPath: BUILD_STORE_MOUNT };
  return {
    volume,
    mount,
    prepare: {
      name: BUILD_STORE_CONTAINER,
      image: options.image,
      // Only the directory itself: its content is BuildKit's, owned by the build's sub-ids. A
      // node that refuses (SELinux, a root-squashed NFS) gets a build without its store, which
      // then says the store is not writable, rather than a failed build.
      command: [
        '/bin/sh',
        '-c',
        `chown ${options.uid}:${options.uid} ${BUILD_STORE_MOUNT} && chmod 700 ${BUILD_STORE_MOUNT} || ` +
          `echo "cannot hand ${path} on this node to the build: it builds without the store"`,
      ],
      volumeMounts: [mount],
      resources: options.resources,
      terminationMessagePolicy: 'FallbackToLogsOnError',
      // Root for a chown and a chmod, with no other capability; it runs no user code.
      securityContext: {
        runAsUser: 0,
        runAsGroup: 0,
        runAsNonRoot: false,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'], add: ['CHOWN', 'FOWNER'] },
      },
    },
    env: [
      { name: 'BUILD_STORE', value: BUILD_STORE_MOUNT },
      { name: 'BUILD_STORE_KEEP_MB', value: String(options.keepMegabytes) },
    ],
  };
}
