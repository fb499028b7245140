// Two operator processes (`node operator/main.ts --watch-label-selector=…`), sharded as Flux
// shards its controllers: the default one takes Projects without the slipway.dev/shard label,
// the other those labelled `a`. Each holds its own Lease and builds only its own projects'
// bundles; a bundle made without the label is handed to its project's shard; a stopped shard's
// bundles wait for it; and a project moved to the other shard mid-build loses nothing, whether
// the shard it leaves is stopped (the new one takes its bundles) or running (it hands them over).
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoordinationV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { BundleObject } from '../../../crds/index.ts';
import { LABEL_SHARD } from '../../../crds/labels.ts';
import { bundle, inNamespace, labels, project, spec } from '../../support/builders.ts';
import { testKubeConfig, waitFor } from '../../support/cluster.ts';
import {
  bundleInPhase,
  clients,
  BUILD_NAMESPACE,
  finishJobPod,
  jobsOf,
  projectNamespace,
  spawnOperator,
  type TestNamespace,
} from './support.ts';

const DEFAULT = '!slipway.dev/shard';
const SHARD_A = 'slipway.dev/shard in (a)';

let kc: KubeConfig;
let ns: TestNamespace;
const running = new Map<string, ChildProcess>();
let output = '';

function startShard(selector: string, identity: string): void {
  const keep = (d: string) => (output = (output + d).slice(-20_000));
  running.set(
    identity,
    spawnOperator(ns.name, identity, keep, [`--watch-label-selector=${selector}`], {
      SLIPWAY_BUILD_CONCURRENCY: '4',
    }),
  );
}

async function stopShard(identity: string): Promise<void> {
  const child = running.get(identity);
  running.delete(identity);
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const get = (name: string) => clients(kc).slipway.get<BundleObject>('Bundle', ns.name, name);
const manual = (name: string, projectName: string, ...more: Parameters<typeof bundle>[1][]) =>
  bundle(name, inNamespace(ns.name), spec({ projectRef: { name: projectName } }), ...more);

/** Moves project blog to shard `shard` (the default: undefined). */
async function moveBlog(shard: string | undefined) {
  await clients(kc).slipway.patch('Project', ns.name, 'blog', {
    metadata: { labels: { [LABEL_SHARD]: shard ?? null } },
  });
}

async function labelled(name: string, shard: string | undefined) {
  await waitFor(
    `${name} in shard ${shard ?? '(default)'}`,
    async () => ((await get(name)).metadata.labels?.[LABEL_SHARD] === shard ? true : undefined),
    30_000,
  );
}

async function buildJob(name: string) {
  return waitFor(`the build Job of ${name}`, async () => (await jobsOf(kc, ns.name, name))[0], 30_000);
}

beforeAll(async () => {
  kc = testKubeConfig();
  ns = await projectNamespace(kc, 'shards');
  await clients(kc).slipway.create(
    'Project',
    project(
      'blog',
      inNamespace(ns.name),
      labels({ [LABEL_SHARD]: 'a' }),
      spec({ slug: `blog-${ns.name}`, repository: { url: 'https://git.example.com/blog.git' } }),
    ),
  );
  startShard(DEFAULT, 'operator-default');
  startShard(SHARD_A, 'operator-a');
});

afterAll(async () => {
  for (const identity of [...running.keys()]) await stopShard(identity);
  await ns?.remove();
});

describe('operator shards', () => {
  it('each shard holds a Lease named after its selector', async () => {
    const leases = kc.makeApiClient(CoordinationV1Api);
    const expected: Array<[string, string]> = [
      ['slipway-operator', 'operator-default'],
      ['slipway-operator-a', 'operator-a'],
    ];
    for (const [name, holder] of expected)
      await waitFor(
        `Lease ${name} held by ${holder}`,
        async () => {
          const lease = await leases.readNamespacedLease({ name, namespace: ns.name }).catch(() => undefined);
          return lease?.spec?.holderIdentity === holder ? true : undefined;
        },
        30_000,
      );
  });

  it("builds each project's bundles in its shard; one made without the label is handed over", async () => {
    await clients(kc).slipway.create('Bundle', manual('shop-1', 'shop'));
    await clients(kc).slipway.create('Bundle', manual('blog-1', 'blog'));
    const shopJob = await buildJob('shop-1');
    expect(shopJob.metadata?.labels?.[LABEL_SHARD]).toBeUndefined();
    const blogJob = await buildJob('blog-1');
    expect(blogJob.metadata?.labels?.[LABEL_SHARD]).toBe('a');
    expect(blogJob.spec?.template.metadata?.labels?.[LABEL_SHARD]).toBe('a');
    expect((await get('blog-1')).metadata.labels?.[LABEL_SHARD]).toBe('a');
    expect(output).toMatch(/handed the bundle over to its project's shard/);
  });

  it("leaves a stopped shard's bundles waiting while the other shard goes on", async () => {
    await stopShard('operator-a');
    await clients(kc).slipway.create('Bundle', manual('blog-2', 'blog', labels({ [LABEL_SHARD]: 'a' })));
    await clients(kc).slipway.create('Bundle', manual('shop-2', 'shop'));
    await buildJob('shop-2');
    expect(await jobsOf(kc, ns.name, 'blog-2')).toEqual([]);
    expect((await get('blog-2')).status?.phase).toBeUndefined();
  });

  it('a project moved away from a stopped shard takes its bundles along, mid-build too: one Job each', async () => {
    const building = await buildJob('blog-1');
    await moveBlog(undefined);
    // The default shard takes them over: blog-1's build goes on, blog-2 gets its first.
    await labelled('blog-1', undefined);
    await labelled('blog-2', undefined);
    const second = await buildJob('blog-2');
    expect(second.metadata?.labels?.[LABEL_SHARD]).toBeUndefined();
    await finishJobPod(kc, BUILD_NAMESPACE, building.metadata!.name!, 'Succeeded');
    await bundleInPhase(kc, ns.name, 'blog-1', 'Built');
    expect((await jobsOf(kc, ns.name, 'blog-1')).map((j) => j.metadata?.uid)).toEqual([
      building.metadata?.uid,
    ]);
  });

  it('a project moved to a running shard: its bundles follow, the building one and finished ones too', async () => {
    startShard(SHARD_A, 'operator-a');
    const building = await buildJob('blog-2');
    await moveBlog('a');
    await labelled('blog-2', 'a');
    await waitFor(
      "blog-2's Job with the new shard's label",
      async () =>
        (await jobsOf(kc, ns.name, 'blog-2'))[0]?.metadata?.labels?.[LABEL_SHARD] === 'a' ? true : undefined,
      30_000,
    );
    // A rollback in the new shard reuses a finished bundle: it moved too.
    await labelled('blog-1', 'a');
    await finishJobPod(kc, BUILD_NAMESPACE, building.metadata!.name!, 'Succeeded');
    await bundleInPhase(kc, ns.name, 'blog-2', 'Built');
    expect((await jobsOf(kc, ns.name, 'blog-2')).map((j) => j.metadata?.uid)).toEqual([
      building.metadata?.uid,
    ]);
  });
});
