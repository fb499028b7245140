// The Secrets the gateway and operator read by name, on a real API server: a value is kept for
// its TTL, and forgetting a namespace (kubectl slipway reconcile project) reads that namespace's
// again at once while other namespaces keep theirs.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { logger } from '../../../lib/log.ts';
import { SecretReader } from '../../../lib/secret-reader.ts';
import { createNamespace, testKubeConfig } from '../../support/cluster.ts';

const kc = testKubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const log = logger.child({ test: 'secret-reader' }, { level: 'silent' });
let first: { name: string; remove: () => Promise<void> };
let second: { name: string; remove: () => Promise<void> };

const writeToken = async (namespace: string, token: string, create = false) => {
  const body = { metadata: { name: 'report', namespace }, stringData: { token } };
  if (create) await core.createNamespacedSecret({ namespace, body });
  else await core.replaceNamespacedSecret({ name: 'report', namespace, body });
};

beforeAll(async () => {
  first = await createNamespace(kc, 'secrets-a');
  second = await createNamespace(kc, 'secrets-b');
  await writeToken(first.name, 'one', true);
  await writeToken(second.name, 'one', true);
});

afterAll(async () => {
  await first?.remove();
  await second?.remove();
});

describe('secrets read by name', () => {
  it('keeps a value for its TTL; forget(namespace) reads that namespace again, and only it', async () => {
    const secrets = new SecretReader(core, log, { ttlMs: 3_600_000, missingTtlMs: 3_600_000, staleMs: 0 });
    const token = (namespace: string) => secrets.value(namespace, 'report', 'token');
    expect([await token(first.name), await token(second.name)]).toEqual(['one', 'one']);
    await writeToken(first.name, 'two');
    await writeToken(second.name, 'two');
    // Within the TTL: the values read before.
    expect([await token(first.name), await token(second.name)]).toEqual(['one', 'one']);
    secrets.forget(first.name);
    expect([await token(first.name), await token(second.name)]).toEqual(['two', 'one']);
    // A Secret missing when read is remembered as missing, and forgetting reads it again too.
    expect(await secrets.value(first.name, 'later', 'token')).toBeUndefined();
    await core.createNamespacedSecret({
      namespace: first.name,
      body: { metadata: { name: 'later' }, stringData: { token: 'three' } },
    });
    expect(await secrets.value(first.name, 'later', 'token')).toBeUndefined();
    secrets.forget(first.name);
    expect(await secrets.value(first.name, 'later', 'token')).toBe('three');
  });
});
