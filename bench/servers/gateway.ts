// Child process: the webhook gateway on 127.0.0.1:0, as the gateway process wires it.
//   BENCH_GATEWAY_MODE=kube: ClusterAdapter (informers) + bundleWriter against the API server
//     of KUBECONFIG, watching BENCH_NAMESPACE: the real path of a delivery.
//   BENCH_GATEWAY_MODE=memory: one in-memory project (BENCH_SECRET) and an in-memory bundle
//     writer, to measure the HTTP and archive path alone.
// Samples its own RSS while asked to (uploads), and answers memory questions from the parent.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { BundleObject } from '../../crds/index.ts';
import { loadKubeConfig, slipwayApi } from '../../lib/kube.ts';
import { bundleWriter, ClusterAdapter } from '../../webhook-gateway/cluster-adapter.ts';
import {
  createGatewayServer,
  FilesystemArchiveStore,
  type CreateBundles,
  type ProjectBySlug,
} from '../../webhook-gateway/index.ts';
import { failToParent, serveParent } from '../lib/child.ts';
import { PeakSampler, settledMemory } from '../lib/memory.ts';

const mode = process.env.BENCH_GATEWAY_MODE ?? 'memory';
const archiveDir = mkdtempSync(join(tmpdir(), 'slipway-bench-archives-'));
process.on('exit', () => rmSync(archiveDir, { recursive: true, force: true }));

function memoryDirectory(): {
  projectBySlug: ProjectBySlug;
  createBundles: CreateBundles;
  ready: () => boolean;
} {
  const secret = process.env.BENCH_SECRET ?? '';
  const slug = process.env.BENCH_SLUG ?? 'shop';
  const bundles = new Map<string, BundleObject>();
  const manual: BundleObject = {
    apiVersion: 'slipway.dev/v1alpha1',
    kind: 'Bundle',
    metadata: { name: `${slug}-manual-1`, namespace: 'bench' },
    spec: {
      projectRef: { name: slug },
      source: { git: { commit: 'a'.repeat(40), branch: 'main' } },
      baseSoftware: { image: 'php:8.3-fpm' },
      directoryMap: { web: 'web', config: 'config' },
      trigger: { type: 'Manual' },
    },
  };
  return {
    projectBySlug: (s) =>
      s === slug
        ? {
            namespace: 'bench',
            name: slug,
            secret,
            webhooks: [
              {
                apiVersion: 'slipway.dev/v1alpha1',
                kind: 'Webhook',
                metadata: { name: 'master-to-staging', namespace: 'bench' },
                spec: {
                  projectRef: { name: slug },
                  branch: 'master',
                  matchMode: 'Exact',
                  environmentRef: { name: 'staging' },
                },
              },
            ],
            latestManualBundle: manual,
          }
        : undefined,
    createBundles: async (list) =>
      list.map((b) => {
        const result = bundles.has(b.metadata.name) ? ('duplicate' as const) : ('created' as const);
        bundles.set(b.metadata.name, b);
        return { name: b.metadata.name, uid: `uid-${b.metadata.name}`, result };
      }),
    ready: () => true,
  };
}

async function main(): Promise<void> {
  const log = pino({ level: 'silent' });
  let cluster: ClusterAdapter | undefined;
  let wiring: { projectBySlug: ProjectBySlug; createBundles: CreateBundles; ready: () => boolean };
  if (mode === 'kube') {
    // As webhook-gateway/main.ts does: one connection pool for the whole process.
    const kc = loadKubeConfig();
    const dir = new ClusterAdapter(kc, process.env.BENCH_NAMESPACE, log);
    cluster = dir;
    wiring = {
      projectBySlug: dir.projectBySlug,
      createBundles: bundleWriter(slipwayApi(kc), dir.bundleByName),
      ready: () => dir.synced(),
    };
  } else {
    wiring = memoryDirectory();
  }

  const server = createGatewayServer({
    publicBaseUrl: 'http://127.0.0.1',
    projectBySlug: wiring.projectBySlug,
    createBundles: wiring.createBundles,
    archiveStore: new FilesystemArchiveStore(archiveDir),
    archiveSigningKey: 'bench-archive-signing-key',
    isReady: wiring.ready,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await cluster?.start();

  const sampler = new PeakSampler();
  serveParent(
    {
      memory: () => settledMemory(),
      /** Starts sampling process.memoryUsage() every `arg` ms from a settled baseline. */
      startSampling: (arg) => {
        const baseline = settledMemory();
        sampler.stop();
        sampler.reset();
        sampler.start(Number(arg ?? 10));
        return baseline;
      },
      stopSampling: () => {
        const peaks = sampler.peaks();
        sampler.stop();
        // ru_maxrss: the kernel's own high-water mark for the whole process lifetime (kB on Linux).
        return { ...peaks, maxRssMiB: Math.round(process.resourceUsage().maxRSS / 102.4) / 10 };
      },
    },
    { port: (server.address() as AddressInfo).port, pid: process.pid },
  );
}

main().catch(failToParent);
