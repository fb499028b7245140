// Gateway end to end on a real API server: a GitHub push, re-signed, reaches the gateway over
// HTTP; the gateway finds the project in its informer caches, verifies, parses, matches the
// webhook and creates the Bundle on the API server before it answers 201. Every delivery
// pushes a different commit, so every one creates a Bundle. The operator is not running: the
// Project status and the webhook Secret are set here, as the operator would set them.
// Its ceiling is measured in the same run: the same Bundle created straight on the API server
// by the load generator at the same concurrency, in interleaved rounds (gateway, proxy, raw, ...),
// over HTTP/1.1 as the gateway's own calls go (over HTTP/2, raw creates were 15% slower). Between
// the two, a bare proxy (servers/bare-proxy.ts) that only forwards the Bundle through the
// gateway's client: what one more process on the way costs, before the gateway does any work.
import { randomBytes } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import { GROUP, VERSION, type BundleObject } from '../../crds/index.ts';
import { slipwayApi } from '../../lib/kube.ts';
import * as build from '../../test/support/builders.ts';
import { deriveWebhookToken } from '../../rules/webhook-url.ts';
import { commitId, githubPushOf, type Delivery } from '../fixtures/github.ts';
import { ChildServer } from '../lib/child.ts';
import { until } from '../lib/cluster.ts';
import { apiServerTarget, type ApiServerTarget } from '../lib/api-server.ts';
import { interleavedRounds, runLoad, type LoadRequest, type LoadResult } from '../lib/load.ts';
import type { MemoryReading } from '../lib/memory.ts';
import type { SuiteResult } from '../lib/report.ts';
import { round, roundAll } from '../lib/stats.ts';
import type { SuiteOptions } from './suite.ts';

const PROJECT = 'shop';
const SECRET_KEY = 'secret';
const WARMUP = 20;
/** On the copies made by the ceiling (`raw`) and the bare proxy (`proxy`): the gateway's are counted apart. */
const MADE_BY_LABEL = 'bench.slipway.dev/made-by';
/**
 * Rounds per side: gateway, proxy, raw, gateway, ... The API server's pace drifts over seconds (an
 * earlier namespace being deleted, etcd compacting): raw creates alone moved between 148 and 320
 * per second from one 2.5 s round to the next. Short rounds, many times over, give both sides the
 * same conditions.
 */
const ROUNDS = 6;

const perSecondRatio = (a: LoadResult, b: LoadResult) => a.requestsPerSecond / b.requestsPerSecond;

export async function gatewayDeliveriesSuite(options: SuiteOptions): Promise<SuiteResult> {
  const bench = await options.cluster();
  const ns = await bench.namespace('bench-gateway');
  const api = slipwayApi(bench.kc);
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
  let proxy: ChildServer<{ port: number }> | undefined;
  try {
    proxy = await ChildServer.start<{ port: number }>('servers/bare-proxy.ts', {
      KUBECONFIG: bench.kubeconfig,
    });
    const origin = `http://127.0.0.1:${gateway.ready.port}`;
    const proxyOrigin = `http://127.0.0.1:${proxy.ready.port}`;
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

    // The ceiling: the Bundle the gateway made for a push, created again under new names by the
    // load generator itself, straight to the API server (raw HTTPS, same concurrency).
    const apiServer = apiServerTarget(bench.kc);
    const made = (await api.list<BundleObject>('Bundle', ns, 'slipway.dev/trigger=Webhook'))[0]!;
    const bundlesPath = `/apis/${GROUP}/${VERSION}/namespaces/${ns}/bundles`;
    let copies = 0;
    /** A copy of the gateway's Bundle under a new name, marked as made by `side`. */
    const copyOfMade = (side: 'raw' | 'proxy'): string => {
      const {
        name: _name,
        uid: _uid,
        resourceVersion: _rv,
        creationTimestamp: _ct,
        generation: _g,
        managedFields: _mf,
        ...metadata
      } = made.metadata as BundleObject['metadata'] & Record<string, unknown>;
      return JSON.stringify({
        ...made,
        status: undefined,
        metadata: {
          ...metadata,
          name: `${side}-${ns}-${copies++}`,
          labels: { ...metadata.labels, [MADE_BY_LABEL]: side },
        },
      });
    };

    // Per round, per side.
    const plans = options.quick
      ? [
          { concurrency: 1, maxRequests: 20, maxDurationMs: 700 },
          { concurrency: 32, maxRequests: 100, maxDurationMs: 1_000 },
        ]
      : [
          { concurrency: 1, maxRequests: 170, maxDurationMs: 1_700 },
          { concurrency: 32, maxRequests: 700, maxDurationMs: 2_000 },
        ];
    type Plan = (typeof plans)[number];
    // Every request made ahead of time (signed, serialised), so the generator spends its time sending.
    const measure = async (
      side: string,
      plan: Plan,
      target: { origin: string } | ApiServerTarget,
      make: () => LoadRequest,
    ) => {
      const requests = Array.from({ length: plan.maxRequests + WARMUP }, make);
      const result = await runLoad({
        ...target,
        ...plan,
        warmupRequests: WARMUP,
        request: (i) => requests[i]!,
        ok: (status) => status === 201,
      });
      if (result.errors > 0)
        throw new Error(
          `${side} c=${plan.concurrency}: ${result.errors} failed: ${result.failures.join('; ')}`,
        );
      return result;
    };
    const viaGatewayRequest = (): LoadRequest => {
      const { headers, body } = delivery();
      return { method: 'POST', path: hookPath, headers, body };
    };
    const rawRequest = (): LoadRequest => ({
      method: 'POST',
      path: bundlesPath,
      headers: { ...apiServer.headers, 'content-type': 'application/json' },
      body: copyOfMade('raw'),
    });
    const proxyRequest = (): LoadRequest => ({
      method: 'POST',
      path: '/',
      headers: { 'content-type': 'application/json' },
      body: copyOfMade('proxy'),
    });
    const runs: Array<{ concurrency: number; gateway: LoadResult; proxy: LoadResult; raw: LoadResult }> = [];
    for (const plan of plans) {
      const run = {
        concurrency: plan.concurrency,
        ...(await interleavedRounds(ROUNDS, {
          gateway: () => measure('gateway', plan, { origin }, viaGatewayRequest),
          proxy: () => measure('bare proxy', plan, { origin: proxyOrigin }, proxyRequest),
          raw: () => measure('raw creates', plan, apiServer, rawRequest),
        })),
      };
      runs.push(run);
      options.log(
        `c=${plan.concurrency}: ${run.gateway.requestsPerSecond.toFixed(0)} deliveries/s (raw creates ${run.raw.requestsPerSecond.toFixed(0)}/s, ratio ${perSecondRatio(run.gateway, run.raw).toFixed(2)}; bare proxy ${run.proxy.requestsPerSecond.toFixed(0)}/s, ratio ${perSecondRatio(run.proxy, run.raw).toFixed(2)}), p99 ${run.gateway.latencyMs.p99.toFixed(1)} ms (raw ${run.raw.latencyMs.p99.toFixed(1)})`,
      );
    }

    // Every 201 is a Bundle the API server holds: the probe's, the warm-ups' and the measured ones.
    const expected = 1 + runs.reduce((sum, r) => sum + r.gateway.requests + ROUNDS * WARMUP, 0);
    const stored = (await api.list<unknown>('Bundle', ns, `slipway.dev/trigger=Webhook,!${MADE_BY_LABEL}`))
      .length;
    const memory = await gateway.call<MemoryReading>('memory');
    const row = (side: string, r: LoadResult, x: number | string, y: number | string) => [
      side,
      r.concurrency,
      r.requests,
      r.requestsPerSecond,
      r.latencyMs.p50,
      r.latencyMs.p90,
      r.latencyMs.p99,
      r.latencyMs.max,
      x,
      y,
    ];

    return {
      targets: runs.map((r) => ({
        name: `deliveries c=${r.concurrency}: per s ÷ raw creates per s`,
        value: round(perSecondRatio(r.gateway, r.raw), 2),
        atLeast: 0.8,
      })),
      tables: [
        {
          title:
            `GitHub push → verified, parsed, matched, Bundle created, against a bare proxy and raw Bundle creates ` +
            `on the same API server (${ROUNDS} interleaved rounds each; latency in ms)`,
          columns: [
            'path',
            'concurrency',
            'requests',
            'per s',
            'p50',
            'p90',
            'p99',
            'max',
            'ratio',
            '÷ proxy',
          ],
          rows: runs.flatMap((r) => [
            row(
              'gateway delivery',
              r.gateway,
              perSecondRatio(r.gateway, r.raw),
              perSecondRatio(r.gateway, r.proxy),
            ),
            row('bare proxy', r.proxy, perSecondRatio(r.proxy, r.raw), ''),
            row('raw create (ceiling)', r.raw, '', ''),
          ]),
        },
      ],
      notes: [
        stored === expected
          ? `${stored} webhook Bundles on the API server after the runs: one per 201 (warm-ups included)`
          : `MISMATCH: ${stored} webhook Bundles on the API server, but ${expected} deliveries were answered 201`,
        'ratio: per s ÷ raw creates per s at the same concurrency, all over HTTP/1.1 to the API server (target for the gateway >= 0.8)',
        "÷ proxy: gateway deliveries per s ÷ bare proxy per s, what the gateway's own work costs; the bare proxy (servers/bare-proxy.ts) creates the same Bundle through the gateway's client and checks nothing, so its own ratio is what one more process on the way costs",
        `gateway RSS before / after the runs: ${memoryBefore.rssMiB} / ${memory.rssMiB} MiB (heap ${memoryBefore.heapUsedMiB} / ${memory.heapUsedMiB} MiB)`,
        'gateway, load generator and the whole control plane (etcd, kube-apiserver, kwok) share the machine',
      ],
      data: {
        bundlesStored: stored,
        deliveriesAccepted: expected,
        runs: runs.map((r) => ({
          concurrency: r.concurrency,
          ratio: round(perSecondRatio(r.gateway, r.raw), 3),
          deliveries: r.gateway.requests,
          deliveriesPerSecond: round(r.gateway.requestsPerSecond, 1),
          latencyMs: roundAll(r.gateway.latencyMs),
          proxyPerSecond: round(r.proxy.requestsPerSecond, 1),
          ratioToProxy: round(perSecondRatio(r.gateway, r.proxy), 3),
          proxyLatencyMs: roundAll(r.proxy.latencyMs),
          rawCreates: r.raw.requests,
          rawCreatesPerSecond: round(r.raw.requestsPerSecond, 1),
          rawLatencyMs: roundAll(r.raw.latencyMs),
        })),
        gatewayMemoryMiB: { before: memoryBefore, after: memory },
      },
    };
  } finally {
    await Promise.all([gateway.stop(), proxy?.stop()]);
  }
}
