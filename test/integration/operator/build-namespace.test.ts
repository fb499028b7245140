// Builds in the build namespace (docs/adr/0004) on a real API server: the Secrets a build mounts
// are copied beside its Job and deleted once it has ended; a bundle is let go only after its
// build Job is gone (its finalizer); a build whose bundle vanished without that is deleted.
// Job pods are held off every node, so the test decides when a build ends.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Operator } from '../../../operator/operator.ts';
import { buildJobName } from '../../../operator/names.ts';
import { bundle, inNamespace, project, spec } from '../../support/builders.ts';
import { testKubeConfig, waitFor } from '../../support/cluster.ts';
import {
  BUILD_NAMESPACE,
  bundleInPhase,
  clients,
  createForkBundle,
  finishBuildPod,
  get,
  heldOperatorNamespace,
  readyReason,
  waitForBuildJob,
  type TestNamespace,
} from './support.ts';

let kc: KubeConfig;
let ns: TestNamespace;
let operator: Operator;

const secretIn = (name: string) =>
  clients(kc)
    .core.readNamespacedSecret({ name, namespace: BUILD_NAMESPACE })
    .catch(() => undefined);
const jobIn = (name: string) =>
  clients(kc)
    .batch.readNamespacedJob({ name, namespace: BUILD_NAMESPACE })
    .catch(() => undefined);

beforeAll(async () => {
  kc = testKubeConfig();
  ({ ns, operator } = await heldOperatorNamespace(kc, 'op-builds', {
    SLIPWAY_REGISTRY_PUSH_SECRET: 'push-creds',
    SLIPWAY_REGISTRY_PULL_SECRET: 'pull-creds',
  }));
  const { core, slipway } = clients(kc);
  await core.createNamespacedSecret({
    namespace: ns.name,
    body: { metadata: { name: 'git-creds' }, stringData: { username: 'ci', password: 'token' } },
  });
  // This namespace has push credentials and no pull credentials: only what exists is copied.
  await core.createNamespacedSecret({
    namespace: ns.name,
    body: {
      metadata: { name: 'push-creds' },
      type: 'kubernetes.io/dockerconfigjson',
      stringData: { '.dockerconfigjson': '{"auths":{"registry.slipway.test:5000":{"auth":"cHVzaDpw"}}}' },
    },
  });
  await slipway.create(
    'Project',
    project(
      'private',
      inNamespace(ns.name),
      spec({
        slug: `private-${ns.name}`,
        repository: {
          url: 'https://git.example.com/private.git',
          credentialsSecretRef: { name: 'git-creds' },
        },
      }),
    ),
  );
  await waitFor('project private Ready', async () =>
    readyReason(await get.project(kc, ns.name, 'private'))?.startsWith('True/'),
  );
});

afterAll(async () => {
  await operator?.stop();
  await ns?.remove();
});

describe('builds in the build namespace', () => {
  it("copies a build's Secrets beside its Job, and deletes them once it has ended", async () => {
    await clients(kc).slipway.create(
      'Bundle',
      bundle('creds-1', inNamespace(ns.name), spec({ projectRef: { name: 'private' } })),
    );
    const job = await waitForBuildJob(kc, ns.name, 'creds-1');
    const name = job.metadata!.name!;
    const volumes = Object.fromEntries(
      (job.spec?.template.spec?.volumes ?? []).flatMap((v) =>
        v.secret ? [[v.name, v.secret.secretName]] : [],
      ),
    );
    expect(volumes).toEqual({ credentials: `${name}-git`, 'registry-push': `${name}-push` });
    const git = await secretIn(`${name}-git`);
    expect(Buffer.from(git!.data!.password!, 'base64').toString()).toBe('token');
    expect(git!.metadata?.labels).toMatchObject({
      'slipway.dev/bundle-namespace': ns.name,
      'slipway.dev/bundle': 'creds-1',
    });
    expect((await secretIn(`${name}-push`))?.type).toBe('kubernetes.io/dockerconfigjson');
    expect(await secretIn(`${name}-pull`)).toBeUndefined();

    await finishBuildPod(kc, ns.name, 'creds-1', 'Succeeded');
    await bundleInPhase(kc, ns.name, 'creds-1', 'Built');
    await waitFor(
      "the build's Secrets to be deleted",
      async () => !(await secretIn(`${name}-git`)) && !(await secretIn(`${name}-push`)),
    );
    // The Job itself stays, for its logs, until the bundle goes.
    expect(await jobIn(name)).toBeDefined();
  });

  it("gives a fork's build no registry credential of the namespace to read: its build container mounts none", async () => {
    await clients(kc).core.createNamespacedSecret({
      namespace: ns.name,
      body: {
        metadata: { name: 'pull-creds' },
        type: 'kubernetes.io/dockerconfigjson',
        stringData: { '.dockerconfigjson': '{"auths":{"registry.slipway.test:5000":{"auth":"cHVsbDpw"}}}' },
      },
    });
    await createForkBundle(ns.name, 'fork-1', 'private');
    await clients(kc).slipway.create(
      'Bundle',
      bundle('own-1', inNamespace(ns.name), spec({ projectRef: { name: 'private' } })),
    );
    const mounted = async (bundleName: string) => {
      const job = await waitForBuildJob(kc, ns.name, bundleName);
      const build = job.spec!.template.spec!.initContainers!.find((c) => c.name === 'build')!;
      return (build.volumeMounts ?? []).map((m) => m.name);
    };
    expect(await mounted('fork-1')).not.toContain('registry-pull');
    expect(await secretIn(`${buildJobName(ns.name, 'fork-1')}-pull`)).toBeUndefined();
    // The control: the project's own build mounts the namespace's pull credentials.
    expect(await mounted('own-1')).toContain('registry-pull');
    for (const name of ['fork-1', 'own-1']) await finishBuildPod(kc, ns.name, name, 'Succeeded');
  });

  it('lets a deleted bundle go once its build Job is gone, and its pods follow', async () => {
    await clients(kc).slipway.create('Bundle', bundle('gone-1', inNamespace(ns.name)));
    const job = await waitForBuildJob(kc, ns.name, 'gone-1');
    const b = await waitFor('the finalizer', async () => {
      const got = await get.bundle(kc, ns.name, 'gone-1');
      return got.metadata.finalizers?.includes('slipway.dev/build') ? got : undefined;
    });
    expect(b.status?.build).toEqual({ namespace: BUILD_NAMESPACE, job: job.metadata!.name });
    await clients(kc).slipway.delete('Bundle', ns.name, 'gone-1');
    await waitFor('the bundle and its build Job to be gone', async () => {
      const bundleLeft = await get.bundle(kc, ns.name, 'gone-1').catch(() => undefined);
      return !bundleLeft && !(await jobIn(job.metadata!.name!));
    });
    await waitFor('its pods to be deleted too', async () => {
      const pods = await clients(kc).core.listNamespacedPod({
        namespace: BUILD_NAMESPACE,
        labelSelector: `batch.kubernetes.io/job-name=${job.metadata!.name}`,
      });
      return pods.items.length === 0;
    });
  });

  it('deletes the build of a bundle whose finalizer someone removed by hand', async () => {
    await clients(kc).slipway.create('Bundle', bundle('forced-1', inNamespace(ns.name)));
    const job = await waitForBuildJob(kc, ns.name, 'forced-1');
    await waitFor('the finalizer', async () =>
      (await get.bundle(kc, ns.name, 'forced-1')).metadata.finalizers?.includes('slipway.dev/build'),
    );
    await clients(kc).slipway.patch('Bundle', ns.name, 'forced-1', { metadata: { finalizers: null } });
    await clients(kc).slipway.delete('Bundle', ns.name, 'forced-1');
    await waitFor('the orphaned build Job to be deleted', async () => !(await jobIn(job.metadata!.name!)));
    expect(job.metadata?.name).toBe(buildJobName(ns.name, 'forced-1'));
  });
});
