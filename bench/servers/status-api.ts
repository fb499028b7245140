// Child process: the status API's HTTP server on 127.0.0.1:0 with the rate limit off and its metrics on, fed a
// large store (see fixtures/status-objects.ts). Reports its memory before and after loading.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createStatusApp } from '../../status-api/server.ts';
import { observeRequest } from '../../status-api/metrics.ts';
import { StatusStore } from '../../status-api/store.ts';
import { NOW, statusObjects } from '../fixtures/status-objects.ts';
import { failToParent, serveParent } from '../lib/child.ts';
import { settledMemory } from '../lib/memory.ts';

async function main(): Promise<void> {
  const components = Number(process.env.BENCH_COMPONENTS ?? 2000);
  const notices = Number(process.env.BENCH_NOTICES ?? 10000);
  const empty = settledMemory();

  const store = new StatusStore();
  const objects = statusObjects(components, notices);
  const loadStarted = performance.now();
  store.upsertPage(objects.page);
  for (const c of objects.components) store.upsertComponent(c);
  for (const n of objects.notices) store.upsertNotice(n);
  store.markSynced('StatusPage');
  store.markSynced('StatusComponent');
  store.markSynced('StatusNotice');
  // The indexes are built lazily on the first read; build them now, as a real first request would.
  const snapshotStarted = performance.now();
  store.snapshot();
  const snapshotMs = performance.now() - snapshotStarted;
  const loadMs = performance.now() - loadStarted;
  objects.components.length = 0; // only the store keeps them now
  objects.notices.length = 0;
  const loaded = settledMemory();

  // A fixed clock: the timeline states (and so the filtered pages) are the same on every run.
  // Observed as in production (the request-duration histogram), so its cost is measured too.
  const app = createStatusApp({
    store,
    clock: () => NOW,
    config: { rateLimit: { enabled: false } },
    observeRequest,
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;

  serveParent(
    { memory: () => settledMemory(), cpu: () => process.cpuUsage() },
    { port, components, notices, loadMs, snapshotMs, memory: { empty, loaded } },
  );
}

main().catch(failToParent);
