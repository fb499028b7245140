// npm start as a user runs it (scripts/start.ts, here on the test's local cluster through
// KUBECONFIG, which it recognises as a local control plane and watches) through a 30 s API
// server outage: the kube-apiserver process is frozen for 30 s. Meanwhile the status API keeps
// answering from memory and npm start keeps running (a child that exits is started again,
// nothing cascades). Then the API server is killed, and npm start's control-plane watch starts
// it again. The operator, the gateway and the status API take new work with no help: a new
// component is published, a push makes a bundle, the operator reconciles it.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BundleObject, ProjectObject } from '../../../crds/index.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import { clusterDir } from '../../../scripts/cluster/control-plane.ts';
import { watchControlPlane } from '../../../scripts/cluster/control-plane-watch.ts';
import { stopProcess } from '../../../scripts/processes.ts';
import { statusComponent, inNamespace } from '../../support/builders.ts';
import {
  kubectl,
  kubectlApply,
  testKubeConfig,
  testState,
  waitFor,
  webhookSecretValue,
} from '../../support/cluster.ts';
import { githubPush } from '../../support/github-push.ts';
import { withToken } from '../../../rules/webhook-url.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DEMO = 'slipway-demo';
const OUTAGE_MS = 30_000;

const kc = testKubeConfig();
const api = slipwayApi(kc);
let start: ChildProcess;
let output = '';
/** npm start's output since the last reset (the control-plane lines after the kill). */
let recent = '';
let statusApi: string;
let gateway: string;
/** The operator's, the gateway's and the status API's /metrics (admin ports). */
let metricsUrls: string[];

/** Whether every port from `base` to `base + count - 1` can be listened on now. */
async function freeRange(base: number, count: number): Promise<boolean> {
  for (let port = base; port < base + count; port++) {
    const server = createServer();
    const ok = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (ok) await new Promise((resolve) => server.close(resolve));
    else return false;
  }
  return true;
}

async function ports(): Promise<number> {
  for (let base = 21000; base < 30000; base += 7) if (await freeRange(base, 5)) return base;
  throw new Error('no five free ports in 21000-30000');
}

/** The pid kwokctl recorded for the test cluster's kube-apiserver. */
function apiServerPid(): number {
  const name = testState().name;
  if (!name)
    throw new Error(
      'this test stops the API server, so it needs the local control plane the integration tier starts; ' +
        'it cannot run against a cluster from KUBECONFIG',
    );
  return Number(readFileSync(join(clusterDir(name), 'pids', 'kube-apiserver.pid'), 'utf8').trim());
}

const answers = () =>
  kubectl(['get', '--raw', '/readyz', '--request-timeout=2s']).then(
    () => true,
    () => false,
  );

beforeAll(async () => {
  const base = await ports();
  [gateway, statusApi] = [`http://127.0.0.1:${base}`, `http://127.0.0.1:${base + 1}`];
  metricsUrls = [2, 3, 4].map((i) => `http://127.0.0.1:${base + i}/metrics`);
  start = spawn(process.execPath, [join(ROOT, 'scripts', 'start.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      KUBECONFIG: testState().kubeconfig,
      SLIPWAY_GATEWAY_PORT: String(base),
      SLIPWAY_STATUS_API_PORT: String(base + 1),
      SLIPWAY_ADMIN_PORT_BASE: String(base + 2),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-40_000);
    recent += d.toString();
  };
  start.stdout!.on('data', keep);
  start.stderr!.on('data', keep);
  const started = await waitFor(
    'npm start to say Slipway is running',
    () => (start.exitCode !== null ? 'exited' : output.includes('Slipway is running.') && 'running'),
    180_000,
    250,
  );
  if (started === 'exited') throw new Error(`npm start exited with ${start.exitCode}:\n${output}`);
}, 200_000);

afterAll(async () => {
  // The API server must be back for the next test files, whatever happened here (npm start's
  // watch revives it while npm start runs; this one after).
  if (start) await stopProcess(start, 20_000);
  if (!(await answers())) {
    const watch = watchControlPlane(testState().name!, { log: () => undefined, intervalMs: 200 });
    await waitFor('the API server to answer again', answers, 120_000, 500).finally(() => watch.stop());
  }
  await kubectl(['delete', 'namespace', DEMO, '--wait=false', '--ignore-not-found']).catch(() => undefined);
}, 180_000);

/** Applies a StatusComponent and waits until the status API publishes it (the operator gives its id). */
async function published(name: string): Promise<void> {
  await kubectlApply([statusComponent(name, inNamespace(DEMO))]);
  await waitFor(
    `the status API to publish component ${name}`,
    async () => {
      const res = await fetch(`${statusApi}/api/v1/components?per_page=100`);
      return res.ok && (await res.text()).includes(`"${name}"`);
    },
    90_000,
    500,
  );
}

/** The metric names a query reads (a histogram's by its own name). */
function queriedMetrics(expr: string): string[] {
  const names = expr.match(/\b(slipway|process|nodejs)_[a-z_]+\b/g) ?? [];
  return names.map((n) => n.replace(/_(bucket|sum|count)$/, ''));
}

describe("npm start's metrics", () => {
  it('the Grafana dashboard reads only metrics the three processes export, as a scrape of each shows', async () => {
    const exported = new Set<string>();
    for (const url of metricsUrls) {
      const text = await (await fetch(url)).text();
      for (const [, name] of text.matchAll(/^# TYPE (\S+) /gm)) exported.add(name!);
    }
    // Each process says which release it is.
    expect(exported).toContain('slipway_build_info');
    const dashboard = JSON.parse(
      readFileSync(join(ROOT, 'charts', 'slipway', 'dashboards', 'slipway.json'), 'utf8'),
    ) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
    const queried = dashboard.panels.flatMap((p) => p.targets.flatMap((t) => queriedMetrics(t.expr)));
    expect(queried.length).toBeGreaterThan(10);
    expect([...new Set(queried)].filter((name) => !exported.has(name))).toEqual([]);
  });
});

describe('npm start through a 30 s API server outage', () => {
  it('keeps serving, restarts the API server, and takes new work afterwards with no help', async () => {
    // The demo's three notices and four components, each with the id the operator gave it.
    await waitFor(
      'the status API to show the whole demo',
      async () => {
        const res = await fetch(`${statusApi}/api/v1/status`);
        const links = res.ok
          ? ((await res.json()) as { page: { links: Record<string, { count: number }> } }).page.links
          : undefined;
        return links?.notices!.count === 3 && links.components!.count === 4;
      },
      60_000,
      250,
    );
    // The outage: the API server frozen (SIGSTOP) for 30 s: requests and watches hang, leases
    // cannot be renewed. The status API answers from memory throughout; npm start keeps running.
    const apiServer = apiServerPid();
    process.kill(apiServer, 'SIGSTOP');
    let resumed = false;
    const resume = () => {
      if (!resumed) process.kill(apiServer, 'SIGCONT');
      resumed = true;
    };
    let snapshot: string;
    let served = 0;
    try {
      await waitFor('the API server to stop answering', async () => !(await answers()), 20_000, 200);
      snapshot = await (await fetch(`${statusApi}/api/v1/status`)).text();
      const until = Date.now() + OUTAGE_MS;
      while (Date.now() < until) {
        const res = await fetch(`${statusApi}/api/v1/status`);
        expect(res.status).toBe(200);
        expect(await res.text()).toBe(snapshot);
        served += 1;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    } finally {
      resume();
    }
    expect(served).toBeGreaterThanOrEqual(20);
    expect(start.exitCode).toBeNull();
    const outageEnded = Date.now();
    const seconds = () => Math.round((Date.now() - outageEnded) / 100) / 10;
    const timings: Record<string, number> = {};
    await waitFor('the API server to answer again', answers, 60_000, 250);
    timings.apiServerAnswers = seconds();
    // The operator (giving ids) and the status API (publishing) have both caught up.
    await published('after-freeze');
    timings.recoveredFromFreeze = seconds();

    // Then it dies (SIGKILL): npm start's own watch of the local control plane starts it again.
    recent = '';
    process.kill(apiServerPid(), 'SIGKILL');
    await waitFor(
      'npm start to say it started the API server again',
      () => /\[control-plane\] kube-apiserver(, .+)? running again/.test(recent),
      120_000,
      250,
    );
    expect(recent).toContain('[control-plane] kube-apiserver stopped running; starting it again');
    await waitFor('the API server to answer again', answers, 60_000, 250);
    timings.apiServerRestarted = seconds();

    // New work after the restart, with no help. The status API's informers resumed:
    await published('after-restart');
    timings.statusApiPublishes = seconds();
    // The gateway answers a push from its caches and creates the bundle:
    const project = await api.get<ProjectObject>('Project', DEMO, 'shop');
    const secret = await webhookSecretValue(DEMO, project.status!.webhook!.secretRef.name);
    const hookUrl = withToken(project.status!.webhook!.url, project.status!.slug!, secret).replace(
      /^https?:\/\/[^/]+/,
      gateway,
    );
    const delivery = await waitFor(
      'the gateway to take a push',
      async () => {
        const res = await githubPush(hookUrl, secret, {
          branch: 'main',
          commit: 'abcdef0123456789abcdef0123456789abcdef01',
          message: 'After the outage',
        });
        return res.status === 201 ? res : undefined;
      },
      90_000,
      1_000,
    );
    timings.gatewayCreatesBundle = seconds();
    const name = delivery.body.bundles![0]!.name;
    // The operator (restarted by npm start if it lost its Lease) reconciles it:
    const bundle = await waitFor(
      'the operator to reconcile the bundle pushed after the outage',
      async () => {
        const b = await api.get<BundleObject>('Bundle', DEMO, name);
        return b.status?.phase ? b : undefined;
      },
      120_000,
      500,
    );
    expect(bundle.status?.phase).toBeDefined();
    timings.operatorReconciles = seconds();
    // Seconds after the 30 s outage ended, for the record (not asserted: the machine is shared).
    writeFileSync(join(ROOT, '.slipway', 'outage-timings.json'), `${JSON.stringify(timings, null, 2)}\n`);
    expect(start.exitCode).toBeNull();
    expect(output).not.toContain('npm start failed');
  }, 400_000);
});
