// The operator asks the registry whether it asks for tokens (docs/adr/0006), over real HTTP.
import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RegistryGuard, registryProblem } from '../../../../operator/outbound/registry-guard.ts';
import { logger } from '../../../../lib/log.ts';

const log = logger.child({ test: 'registry-guard' });
let server: Server | undefined;
let guard: RegistryGuard | undefined;

afterEach(() => {
  guard?.stop();
  server?.close();
});

/** A registry answering /v2/ with `status` and `challenge`; the guard's answer after its first look. */
async function lookAt(status: number, challenge?: string): Promise<string | undefined> {
  server = createServer((req, res) => {
    expect(req.url).toBe('/v2/');
    res.writeHead(status, challenge ? { 'WWW-Authenticate': challenge } : {}).end('{}');
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  guard = new RegistryGuard({ registry: `127.0.0.1:${port}/builds`, registryInsecure: true }, log);
  await guard.start();
  return guard.problem();
}

describe('RegistryGuard', () => {
  it('lets builds start while the registry asks for a token', async () => {
    expect(
      await lookAt(401, 'Bearer realm="http://gw/registry/token",service="slipway-registry"'),
    ).toBeUndefined();
  });

  it('stops builds at a registry that answers without a token, saying so', async () => {
    expect(await lookAt(200)).toMatch(/answers http:\/\/127\.0\.0\.1:\d+\/v2\/ without asking for a token/);
  });

  it('stops builds at a registry that wants other credentials than tokens', async () => {
    expect(await lookAt(401, 'Basic realm="Registry Realm"')).toMatch(/asks for Basic credentials/);
  });

  it('does not stop builds when the registry cannot be reached', async () => {
    guard = new RegistryGuard({ registry: '127.0.0.1:1/builds', registryInsecure: true }, log);
    await guard.start();
    expect(guard.problem()).toBeUndefined();
  });

  it('stops every build while the operator has no way to keep namespaces apart', () => {
    expect(registryProblem({ registryAuth: undefined, registry: 'r.test/builds' }, undefined)).toMatch(
      /no registry credentials for builds/,
    );
    expect(
      registryProblem({ registryAuth: 'anonymous', registry: 'r.test/builds' }, undefined),
    ).toBeUndefined();
  });
});
