// Push → page served on the real node (root on Linux, as the e2e tier): the operator and the
// gateway as their own processes, a git server on this machine, build Jobs with rootless
// BuildKit, the node's registry, real pods answering HTTP. For a static project and a Node
// project with a cached install phase, `npm ci` from the real npm registry (fixtures/e2e-projects.ts):
//   cold  the project's first build: its manual bundle, created with kubectl (empty cache)
//   warm  a push that changes only the page (a GitHub delivery to the gateway)
// each from the moment the bundle is asked for until the page answers with the new version,
// over ROUNDS projects of each kind, and each project's pull request → preview served
// (e2e-previews.ts); then TEN static projects pushed at once.
import { withToken } from '../../rules/webhook-url.ts';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import type { ProjectObject } from '../../crds/index.ts';
import { kubeConfigFromFile, slipwayApi } from '../../lib/kube.ts';
import { waitFor } from '../../lib/wait.ts';
import { installAdmissionPolicies, installCrds } from '../../scripts/cluster/install-crds.ts';
import { clusterDown, clusterUp } from '../../scripts/cluster/control-plane.ts';
import { installLocalController, localControllerKubeconfig } from '../../scripts/cluster/writers.ts';
import { installBuildNamespace } from '../../scripts/cluster/build-namespace.ts';
import { realNode } from '../../scripts/cluster/real-node.ts';
import { githubPush } from '../../test/support/github-push.ts';
import { readyCondition } from '../../test/e2e/support/chain.ts';
import { startGitServer, type GitServer } from '../../test/e2e/support/host-services.ts';
import { LOG_DIR, startSlipway, type Slipway } from '../../test/e2e/support/slipway.ts';
import {
  benchProject,
  expectedPage,
  manualBundle,
  pageFiles,
  projectFiles,
  projectObjects,
  type BenchProject,
  type ProjectKind,
} from '../fixtures/e2e-projects.ts';
import { NamespaceWatch } from '../lib/namespace-watch.ts';
import type { SuiteResult, Table, Target } from '../lib/report.ts';
import { percentile, round } from '../lib/stats.ts';
import type { SuiteOptions } from './suite.ts';
import { previewTimes } from './e2e-previews.ts';

const CLUSTER = 'slipway-e2e';
/** How long one push may take to be served before the run gives up on it. */
const SERVED_TIMEOUT_MS = 600_000;

const run = promisify(execFile);

interface Context {
  kc: KubeConfig;
  /** kubectl with the cluster's kubeconfig; `input` goes to its stdin. */
  kubectl: (args: string[], input?: string) => Promise<{ stdout: string }>;
  namespace: string;
  git: GitServer;
  slipway: Slipway;
  builder: string;
  watch: NamespaceWatch;
}

const kubectlApply = (ctx: Context, objects: object[]) =>
  ctx.kubectl(['apply', '-n', ctx.namespace, '-f', '-'], objects.map((o) => stringify(o)).join('---\n'));

/** Resolves when a Ready pod of the project's Deployment runs `bundle` and answers its page. */
async function served(ctx: Context, project: BenchProject, bundle: string, version: string): Promise<void> {
  const want = expectedPage(project, version);
  const deadline = Date.now() + SERVED_TIMEOUT_MS;
  let last = 'no pod yet';
  while (Date.now() < deadline) {
    // Listening before looking: a change while the page is fetched still wakes the next look.
    const changed = ctx.watch.next(1000);
    const b = ctx.watch.bundle(bundle);
    if (b?.status?.phase === 'Failed')
      throw new Error(`bundle ${bundle} failed: ${readyCondition(b)?.message ?? ''}`);
    for (const pod of ctx.watch.podsOf(project.name)) {
      const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      if (!ready || pod.metadata?.deletionTimestamp) continue;
      if (pod.metadata?.annotations?.['slipway.dev/bundle'] !== bundle) continue;
      const answer = await fetch(`http://${pod.status!.podIP}:${project.base.port}/`)
        .then(async (r) => `${r.status} ${await r.text()}`)
        .catch((e: unknown) => String(e));
      if (answer === `200 ${want}`) return;
      last = answer;
    }
    // The next change of a bundle or pod, or a second later: a Ready pod answers at once.
    await changed;
  }
  throw new Error(`${project.name} did not serve ${JSON.stringify(want)} in time (last answer: ${last})`);
}

/** Creates the project and its first bundle; seconds until its page is served. */
async function coldBuild(ctx: Context, project: BenchProject): Promise<number> {
  const commit = await ctx.git.commit(projectFiles(project, 'v1'), `${project.name} v1`, project.name);
  await kubectlApply(ctx, projectObjects(ctx.namespace, project, ctx.git.url));
  const bundle = `${project.name}-v1`;
  const t0 = performance.now();
  await kubectlApply(ctx, [manualBundle(project, bundle, commit, ctx.builder)]);
  await served(ctx, project, bundle, 'v1');
  return (performance.now() - t0) / 1000;
}

/** The project's webhook URL and secret, once the operator has published them. */
async function hook(ctx: Context, project: BenchProject): Promise<{ url: string; secret: string }> {
  const published = await waitFor(`project ${project.name} to publish its webhook URL`, async () => {
    const p = await slipwayApi(ctx.kc).get<ProjectObject>('Project', ctx.namespace, project.name);
    return p.status?.webhook?.url ? p.status : undefined;
  });
  const webhook = published.webhook!;
  const stored = await ctx.kc
    .makeApiClient(CoreV1Api)
    .readNamespacedSecret({ namespace: ctx.namespace, name: webhook.secretRef.name });
  const secret = Buffer.from(stored.data!.secret!, 'base64').toString();
  // status.webhook.url leaves out the token: whoever may read the Secret derives it.
  return { url: withToken(webhook.url, published.slug!, secret), secret };
}

/**
 * Commits a change of the page only (commits go one at a time: one work tree); the push, which
 * resolves to the seconds from the delivery until the new page is served.
 */
async function preparePush(
  ctx: Context,
  project: BenchProject,
  version: string,
): Promise<() => Promise<number>> {
  const { url, secret } = await hook(ctx, project);
  const commit = await ctx.git.commit(
    pageFiles(project, version),
    `${project.name} ${version}`,
    project.name,
  );
  return async () => {
    const t0 = performance.now();
    const res = await githubPush(url, secret, { branch: project.name, commit, message: version });
    const bundle = res.body.bundles?.[0]?.name;
    if (res.status !== 201 || !bundle)
      throw new Error(`the gateway answered ${res.status} ${JSON.stringify(res.body)}`);
    await served(ctx, project, bundle, version);
    return (performance.now() - t0) / 1000;
  };
}

/** CPU-seconds the machine has spent busy since boot: user, nice, system, irq and softirq of /proc/stat. */
function busyCpuSeconds(): number {
  const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const busy = [0, 1, 2, 5, 6].reduce((sum, i) => sum + (ticks[i] ?? 0), 0);
  return busy / 100; // USER_HZ is 100 on Linux
}

const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    count: samples.length,
    p50: round(percentile(sorted, 50), 1),
    p95: round(percentile(sorted, 95), 1),
  };
};

export async function e2eSuite(options: SuiteOptions): Promise<SuiteResult> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0)
    throw new Error('the e2e suite runs real pods on this machine (the real node) and needs root on Linux');
  const rounds = Number(process.env.BENCH_E2E_ROUNDS ?? (options.quick ? 1 : 4));
  const together = Number(process.env.BENCH_E2E_TOGETHER ?? (options.quick ? 3 : 10));
  options.log('starting the cluster with the real node (built the first time: minutes)');
  const cluster = await clusterUp(CLUSTER, { realNode: true });
  const kc = kubeConfigFromFile(cluster.kubeconfig);
  await installCrds(kc);
  await installAdmissionPolicies(kc);
  // The processes act as Slipway's identity (only it may write what they write).
  await installLocalController(kc);
  await installBuildNamespace(kc);
  const controller = localControllerKubeconfig(
    kc,
    join(dirname(cluster.kubeconfig), 'bench-controller.kubeconfig'),
  );
  const node = realNode();
  const namespace = `bench-e2e-${Date.now().toString(36)}`;
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  const git = await startGitServer(node.hostAddress, LOG_DIR);
  const slipway = await startSlipway(controller, namespace, node);
  const kubectl = (args: string[], input?: string) => {
    const child = run(join(cluster.binDir, 'kubectl'), ['--kubeconfig', cluster.kubeconfig, ...args]);
    if (input !== undefined) child.child.stdin!.end(input);
    return child;
  };
  const watch = new NamespaceWatch(kc, namespace);
  await watch.start();
  const ctx: Context = { kc, kubectl, namespace, git, slipway, builder: node.builderImages.node!, watch };
  const samples: Record<
    ProjectKind,
    { cold: number[]; warm: number[]; opened: number[]; later: number[]; push: number[] }
  > = {
    static: { cold: [], warm: [], opened: [], later: [], push: [] },
    node: { cold: [], warm: [], opened: [], later: [], push: [] },
  };
  let batch: { seconds: number[]; wall: number; busy: number };
  try {
    for (let r = 1; r <= rounds; r += 1) {
      for (const kind of ['static', 'node'] as const) {
        const project = benchProject(node, kind, `${kind}-${r}`);
        const cold = await coldBuild(ctx, project);
        const warm = await (await preparePush(ctx, project, 'v2'))();
        samples[kind].cold.push(cold);
        samples[kind].warm.push(warm);
        options.log(`${project.name}: cold ${cold.toFixed(1)} s, warm ${warm.toFixed(1)} s`);
        const preview = await previewTimes(
          {
            kubectl,
            apply: (objects) => kubectlApply(ctx, objects),
            commit: (files, message, branch) => git.commit(files, message, branch),
            hook: await hook(ctx, project),
            ingressPort: node.ingress.port,
          },
          project,
          namespace,
        );
        samples[kind].opened.push(preview.opened);
        samples[kind].later.push(preview.later);
        samples[kind].push.push(preview.push);
        options.log(
          `${project.name}: pull request opened → preview ${preview.opened.toFixed(1)} s (a later one ${preview.later.toFixed(1)} s), push → preview ${preview.push.toFixed(1)} s`,
        );
      }
    }
    options.log(`${together} static projects: first builds, then one push each, all at once`);
    const projects = Array.from({ length: together }, (_, i) =>
      benchProject(node, 'static', `many-${i + 1}`),
    );
    for (const project of projects) await coldBuild(ctx, project);
    const pushes = [];
    for (const project of projects) pushes.push(await preparePush(ctx, project, 'v2'));
    const t0 = performance.now();
    const busy0 = busyCpuSeconds();
    const seconds = await Promise.all(pushes.map((push) => push()));
    batch = { seconds, wall: (performance.now() - t0) / 1000, busy: busyCpuSeconds() - busy0 };
  } finally {
    await watch.stop();
    await slipway.stop();
    await git.stop();
    await core.deleteNamespace({ name: namespace }).catch(() => undefined);
    if (cluster.created) await clusterDown(CLUSTER);
  }
  const rows = (['static', 'node'] as const).flatMap((kind) => {
    const cold = summary(samples[kind].cold);
    const warm = summary(samples[kind].warm);
    return [
      [kind, 'cold (first build)', cold.count, cold.p50, cold.p95, ''],
      [kind, 'warm (push of the page)', warm.count, warm.p50, warm.p95, round(warm.p50 / cold.p50, 2)],
    ];
  });
  const single = summary(samples.static.warm).p50;
  const slowest = Math.max(...batch.seconds);
  const tables: Table[] = [
    {
      title: 'Push → page served on the real node (s)',
      columns: ['project', 'build', 'pushes', 'p50', 'p95', 'warm ÷ cold'],
      rows,
    },
    {
      title: 'Pull request → preview served through the ingress controller (s)',
      columns: ['project', 'delivery', 'pull requests', 'p50', 'p95', '÷ push → served'],
      rows: (['static', 'node'] as const).flatMap((kind) => {
        const warm = summary(samples[kind].warm).p50;
        const labels = {
          opened: "opened (the project's first)",
          later: 'opened (a later one)',
          push: 'synchronize (a push to one)',
        };
        return (['opened', 'later', 'push'] as const).map((what) => {
          const s = summary(samples[kind][what]);
          const label = labels[what];
          return [kind, label, s.count, s.p50, s.p95, round(s.p50 / warm, 2)];
        });
      }),
    },
    {
      title: `${together} static projects pushed at once (s)`,
      columns: ['figure', 'value'],
      rows: [
        ['slowest push → served', round(slowest, 1)],
        [
          'median push → served',
          round(
            percentile(
              [...batch.seconds].sort((a, b) => a - b),
              50,
            ),
            1,
          ),
        ],
        ['pushes served per minute', round((together / batch.wall) * 60, 1)],
        [`CPU busy per push (${cpus().length} cores, whole machine)`, round(batch.busy / together, 1)],
        ['slowest ÷ one warm static push (p50)', round(slowest / single, 2)],
      ],
    },
  ];
  const targets: Target[] = [
    {
      name: 'node project: warm push ÷ cold build, push → served p50',
      value: round(summary(samples.node.warm).p50 / summary(samples.node.cold).p50, 2),
      atMost: 0.5,
    },
    {
      name: `${together} pushes at once: slowest ÷ one push (p50)`,
      value: round(slowest / single, 2),
      atMost: 3,
    },
  ];
  return {
    tables,
    targets,
    data: { rounds, together, samples, batch },
    notes: [
      "cold: the project's first bundle (its manual bundle, applied with kubectl) until the page answers with it; warm: a GitHub push delivery of a commit changing only the page until the page answers with it",
      "pull request → preview: previews turned on for the project after its warm push, a GitHub pull_request delivery (opened, then synchronize with a new commit; closed, and once the preview is gone a second pull request opened) until the node's ingress controller answers the preview's host with the page; pull requests build in a store of their own, so the project's first is cold; ÷ push → served is against the same project kind's warm push p50",
      'the node project runs npm ci (550 packages from the real npm registry, 137 MB of node_modules) in its install phase and npm run build after it',
      "builds keep BuildKit's store on the node (SLIPWAY_BUILD_STORE, one per project and environment): a warm push finds the builder image unpacked and the install in place; a cold build starts from an empty store and pushes the registry cache",
    ],
  };
}
