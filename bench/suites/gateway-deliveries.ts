// Gateway end to end on a real API server: a GitHub push, re-signed, reaches the gateway over
// HTTP; the gateway finds the project in its informer caches, verifies, parses, matches the
// webhook and creates the Bundle on the API server before it answers 201. Every delivery
// pushes a different commit, so every one creates a Bundle. The operator is not running: the
// Project status and the webhook Secret are set here, as the operator would set them.
import { randomBytes } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import { kubeClients, slipwayApi } from '../../lib/kube.ts';
import * as build from '../../test/support/builders.ts';
import { deriveWebhookToken } from '../../crds/webhook-url.ts';
import { commitId, githubPushOf, type Delivery } from '../fixtures/github.ts';
import { ChildServer } from '../lib/child.ts';
import { until } from '../lib/cluster.ts';
import { runLoad, type LoadResult } from '../lib/load.ts';
import type { MemoryReading } from '../lib/memory.ts';
import type { SuiteResult } from '../lib/report.ts';
import { round, roundAll } from '../lib/stats.ts';
import type { SuiteOptions } from './suite.ts';

const PROJECT = 'shop';
const SECRET_KEY = 'secret';
const WARMUP = 20;

export async function gatewayDeliveriesSuite(options: SuiteOptions): Promise<SuiteResult> {
  const bench = await options.cluster();
  const ns = await bench.namespace('bench-gateway');
  const api = slipwayApi(kubeClients(bench.kc).custom);
  const core = bench.kc.makeApiClient(CoreV1Api);
  const slug = `shop-${ns.slice(-6)}`;
  const secret = randomBytes(24).toString('base64url');
  const hookPath = `/hooks/${slug}/${deriveWebhookToken(secret, slug)}`;

  // What the operator would have done for this project: a Secret, and the status the gateway reads.
  await core.createNamespacedSecret({
    namespace: ns,
    body: { metadata: { name: `${PROJECT}-webhook` }, stringData: { [SECRET_KEY]: secret } },
  });
  await api.create(
    'Project',
    build.project(
      PROJECT,
      build.inNamespace(ns),
      build.spec({ slug, repository: { url: 'https://git.example.com/shop.git' } }),
    ),
  );
  await api.patchStatus('Project', ns, PROJECT, {
    slug,
    webhook: {
      url: `http://gateway.bench.invalid${hookPath}`,
      secretRef: { name: `${PROJECT}-webhook`, key: SECRET_KEY },
    },
    uploadScriptUrl: 'http://gateway.bench.invalid/upload.sh',
  });
  await api.create('Environment', build.environment('staging', build.inNamespace(ns)));
  await api.create(
    'Webhook',
    build.webhook(
      'master-to-staging',
      build.inNamespace(ns),
      build.spec({ branch: 'master', environmentRef: { name: 'staging' } }),
    ),
  );
  await api.create('Bundle', build.bundle('shop-manual-1', build.inNamespace(ns)));

  const gateway = await ChildServer.start<{ port: number }>('servers/gateway.ts', {
    BENCH_GATEWAY_MODE: 'kube',
    BENCH_NAMESPACE: ns,
    KUBECONFIG: bench.kubeconfig,
  });
  try {
    const origin = `http://127.0.0.1:${gateway.ready.port}`;
    let n = 0;
    const delivery = (): Delivery => githubPushOf(secret, commitId(ns, n++));
    // The caches are filled once a delivery is accepted (not 503, not 422 for the manual bundle).
    await until('the gateway to accept a delivery', async () => {
      const { headers, body } = delivery();
      const res = await fetch(origin + hookPath, { method: 'POST', headers, body });
      await res.arrayBuffer();
      return res.status === 201;
    });
    const memoryBefore = await gateway.call<MemoryReading>('memory');

    const runs: LoadResult[] = [];
    const plans = options.quick
      ? [
          { concurrency: 1, maxRequests: 50, maxDurationMs: 3_000 },
          { concurrency: 32, maxRequests: 300, maxDurationMs: 5_000 },
        ]
      : [
          { concurrency: 1, maxRequests: 500, maxDurationMs: 10_000 },
          { concurrency: 32, maxRequests: 4_000, maxDurationMs: 15_000 },
        ];
    for (const plan of plans) {
      // Signed ahead of time, so the generator spends its time sending.
      const deliveries = Array.from({ length: plan.maxRequests + WARMUP }, delivery);
      const result = await runLoad({
        origin,
        ...plan,
        warmupRequests: WARMUP,
        request: (i) => ({
          method: 'POST',
          path: hookPath,
          headers: deliveries[i]!.headers,
          body: deliveries[i]!.body,
        }),
        ok: (status) => status === 201,
      });
      if (result.errors > 0)
        throw new Error(
          `c=${plan.concurrency}: ${result.errors} deliveries failed: ${result.failures.join('; ')}`,
        );
      runs.push(result);
      options.log(
        `c=${plan.concurrency}: ${result.requests} deliveries, ${result.requestsPerSecond.toFixed(0)}/s, p99 ${result.latencyMs.p99.toFixed(1)} ms`,
      );
    }

    // Every 201 is a Bundle the API server holds: the probe's, the warm-ups' and the measured ones.
    const expected = 1 + runs.reduce((sum, r) => sum + WARMUP + r.requests, 0);
    const stored = (await api.list<unknown>('Bundle', ns, 'slipway.dev/trigger=Webhook')).length;
    const memory = await gateway.call<MemoryReading>('memory');

    return {
      tables: [
        {
          title: 'GitHub push → verified, parsed, matched, Bundle created (latency in ms)',
          columns: ['concurrency', 'deliveries', 'deliveries/s', 'p50', 'p90', 'p99', 'max'],
          rows: runs.map((r) => [
            r.concurrency,
            r.requests,
            r.requestsPerSecond,
            r.latencyMs.p50,
            r.latencyMs.p90,
            r.latencyMs.p99,
            r.latencyMs.max,
          ]),
        },
      ],
      notes: [
        stored === expected
          ? `${stored} webhook Bundles on the API server after the runs: one per 201 (warm-ups included)`
          : `MISMATCH: ${stored} webhook Bundles on the API server, but ${expected} deliveries were answered 201`,
        `gateway RSS before / after the runs: ${memoryBefore.rssMiB} / ${memory.rssMiB} MiB (heap ${memoryBefore.heapUsedMiB} / ${memory.heapUsedMiB} MiB)`,
        'gateway, load generator and the whole control plane (etcd, kube-apiserver, kwok) share the machine',
      ],
      data: {
        bundlesStored: stored,
        deliveriesAccepted: expected,
        runs: runs.map((r) => ({
          concurrency: r.concurrency,
          deliveries: r.requests,
          durationMs: round(r.durationMs),
          deliveriesPerSecond: round(r.requestsPerSecond, 1),
          latencyMs: roundAll(r.latencyMs),
        })),
        gatewayMemoryMiB: { before: memoryBefore, after: memory },
      },
    };
  } finally {
    await gateway.stop();
  }
}
