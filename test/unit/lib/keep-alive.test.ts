// Both public servers keep idle connections longer than the load balancers in front of them
// (60 s), so a proxy never sends a request on a connection Node is closing (a 502 for its client).
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PUBLIC_KEEP_ALIVE_TIMEOUT_MS } from '../../../lib/keep-alive.ts';
import { createStatusApp } from '../../../status-api/server.ts';
import { createGatewayServer, FilesystemArchiveStore } from '../../../webhook-gateway/index.ts';
import { storeOf } from '../status-api/builders.ts';

const dir = mkdtempSync(join(tmpdir(), 'slipway-keep-alive-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const listening = (server: Server) =>
  new Promise<Server>((resolve) =>
    server.listening ? resolve(server) : server.once('listening', () => resolve(server)),
  );

describe('public servers behind proxies', () => {
  it('keep idle connections 65 s, longer than the 60 s of the usual load balancers', async () => {
    expect(PUBLIC_KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(60_000);
    const status = createStatusApp({ store: storeOf({}), config: { rateLimit: { enabled: false } } }).listen(
      0,
      '127.0.0.1',
    );
    const gateway = createGatewayServer({
      publicBaseUrl: 'http://127.0.0.1',
      projectBySlug: () => undefined,
      createBundles: async () => [],
      archiveStore: new FilesystemArchiveStore(dir),
      isReady: () => true,
    }).listen(0, '127.0.0.1');
    try {
      for (const server of [await listening(status), await listening(gateway)])
        expect(server.keepAliveTimeout).toBe(PUBLIC_KEEP_ALIVE_TIMEOUT_MS);
    } finally {
      status.close();
      gateway.close();
    }
  });
});
