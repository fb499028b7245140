// Registry tokens (docs/adr/0006) between the two real processes: the operator (in this test)
// mints each build its credentials, in the build namespace beside its Job, and the gateway (its
// real entry point, `node webhook-gateway/main.ts`) trades them at /registry/token for signed
// tokens that allow the build's own repositories and nothing else. The registry's side, which
// refuses what a token leaves out, is the e2e tier's (test/e2e/push-to-deploy.test.ts).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createPublicKey, randomBytes, verify, type JsonWebKey } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import { freePort, stopProcess } from '../../../scripts/processes.ts';
import { gatewayRegistryEnv } from '../../../scripts/cluster/real-node.ts';
import type { Operator } from '../../../operator/operator.ts';
import { bundle, inNamespace } from '../../support/builders.ts';
import { testKubeConfig, testState, waitFor } from '../../support/cluster.ts';
import {
  BUILD_NAMESPACE,
  clients,
  createForkBundle,
  heldOperatorNamespace,
  waitForBuildJob,
  type TestNamespace,
} from './support.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const REGISTRY = 'registry.slipway.test:5000/builds';
const KEY = randomBytes(32).toString('hex');

let kc: KubeConfig;
let ns: TestNamespace;
let operator: Operator;
let gateway: ChildProcess;
let gatewayUrl: string;
let output = '';

beforeAll(async () => {
  kc = testKubeConfig();
  ({ ns, operator } = await heldOperatorNamespace(kc, 'op-regtok', {
    SLIPWAY_REGISTRY: REGISTRY,
    SLIPWAY_REGISTRY_AUTH: 'tokens',
    SLIPWAY_ARCHIVE_URL_KEY: KEY,
  }));
  const port = await freePort();
  gatewayUrl = `http://127.0.0.1:${port}`;
  gateway = spawn(process.execPath, [join(ROOT, 'webhook-gateway', 'main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      KUBECONFIG: testState().controllerKubeconfig,
      SLIPWAY_WATCH_NAMESPACE: ns.name,
      SLIPWAY_PORT: String(port),
      SLIPWAY_ADMIN_PORT: String(await freePort()),
      SLIPWAY_PUBLIC_URL: gatewayUrl,
      SLIPWAY_ARCHIVE_DIR: join(ROOT, '.slipway', `archives-${ns.name}`),
      SLIPWAY_ARCHIVE_URL_KEY: KEY,
      // A new key, and the node's images (slipway/*) public, as every tier's gateway gets them.
      ...gatewayRegistryEnv(undefined),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [gateway.stdout!, gateway.stderr!])
    stream.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
  await waitFor(
    'the gateway to answer',
    async () => {
      if (gateway.exitCode !== null) throw new Error(`the gateway exited:\n${output}`);
      return (await fetch(`${gatewayUrl}/registry/jwks.json`).catch(() => undefined))?.ok;
    },
    30_000,
  );
});

afterAll(async () => {
  if (gateway) await stopProcess(gateway);
  await operator?.stop();
  await ns?.remove();
});

/** The username and password of a build's dockerconfigjson Secret in the build namespace. */
async function credentialOf(secret: string): Promise<{ username: string; password: string }> {
  const read = await clients(kc).core.readNamespacedSecret({ name: secret, namespace: BUILD_NAMESPACE });
  expect(read.type).toBe('kubernetes.io/dockerconfigjson');
  const config = JSON.parse(Buffer.from(read.data!['.dockerconfigjson']!, 'base64').toString()) as {
    auths: Record<string, { username: string; password: string; auth: string }>;
  };
  expect(Object.keys(config.auths)).toEqual(['registry.slipway.test:5000']);
  return config.auths['registry.slipway.test:5000']!;
}

interface Claims {
  iss: string;
  aud: string;
  exp: number;
  access: { type: string; name: string; actions: string[] }[];
}

/** Asks for a token (GET, the credential as Basic auth); returns the status and, on 200, the checked claims. */
async function token(
  scopes: string[],
  credential?: { username: string; password: string },
): Promise<{ status: number; claims?: Claims }> {
  const url = new URL(`${gatewayUrl}/registry/token`);
  url.searchParams.set('service', 'slipway-registry');
  for (const scope of scopes) url.searchParams.append('scope', scope);
  const headers: Record<string, string> = credential
    ? {
        Authorization: `Basic ${Buffer.from(`${credential.username}:${credential.password}`).toString('base64')}`,
      }
    : {};
  const answer = await fetch(url, { headers });
  if (answer.status !== 200) return { status: answer.status };
  return { status: 200, claims: await checked(((await answer.json()) as { token: string }).token) };
}

/** The claims of a token whose signature the gateway's published key verifies (as the registry does). */
async function checked(jwt: string): Promise<Claims> {
  const [header, payload, signature] = jwt.split('.');
  const { keys } = (await (await fetch(`${gatewayUrl}/registry/jwks.json`)).json()) as {
    keys: (JsonWebKey & { kid: string })[];
  };
  const { kid, alg } = JSON.parse(Buffer.from(header!, 'base64url').toString()) as {
    kid: string;
    alg: string;
  };
  expect(alg).toBe('ES256');
  const key = keys.find((k) => k.kid === kid);
  expect(key).toBeDefined();
  const valid = verify(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    { key: createPublicKey({ key: key!, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature!, 'base64url'),
  );
  expect(valid).toBe(true);
  return JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Claims;
}

describe('registry tokens for builds', () => {
  it("mints a build push and pull credentials of its own, which the gateway trades for tokens of the build's own repositories only", async () => {
    await clients(kc).slipway.create('Bundle', bundle('token-1', inNamespace(ns.name)));
    const job = await waitForBuildJob(kc, ns.name, 'token-1');
    const name = job.metadata!.name!;
    const volumes = (job.spec?.template.spec?.volumes ?? []).flatMap((v) =>
      v.secret ? [`${v.name}=${v.secret.secretName}`] : [],
    );
    expect(volumes.sort()).toEqual([`registry-pull=${name}-pull`, `registry-push=${name}-push`]);
    const push = await credentialOf(`${name}-push`);
    const pull = await credentialOf(`${name}-pull`);
    const own = `builds/${ns.name}/shop`;
    const other = 'builds/another-team/shop';

    // The push containers: push and pull on the project's repository, nothing on another team's.
    const pushed = await token([`repository:${own}:pull,push`, `repository:${other}:pull,push`], push);
    expect(pushed.claims).toMatchObject({ iss: 'slipway', aud: 'slipway-registry' });
    expect(pushed.claims!.access).toEqual([{ type: 'repository', name: own, actions: ['pull', 'push'] }]);
    // A short-lived token.
    expect(pushed.claims!.exp - Date.now() / 1000).toBeLessThanOrEqual(600);

    // The build (and its steps): pull on the namespace's repositories, never push.
    const pulled = await token(
      [`repository:${own}:pull,push`, `repository:builds/${ns.name}/blog:pull`, `repository:${other}:pull`],
      pull,
    );
    expect(pulled.claims!.access).toEqual([
      { type: 'repository', name: own, actions: ['pull'] },
      { type: 'repository', name: `builds/${ns.name}/blog`, actions: ['pull'] },
    ]);
    // Nobody lists the registry.
    expect((await token(['registry:catalog:*'], push)).claims!.access).toEqual([]);

    // containerd and BuildKit ask with a POST form: the same answer.
    const form = await fetch(`${gatewayUrl}/registry/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'password',
        service: 'slipway-registry',
        scope: `repository:${own}:pull,push repository:${other}:push`,
        username: push.username,
        password: push.password,
      }),
    });
    expect(form.status).toBe(200);
    const body = (await form.json()) as { access_token: string; expires_in: number };
    expect((await checked(body.access_token)).access).toEqual([
      { type: 'repository', name: own, actions: ['pull', 'push'] },
    ]);
    expect(body.expires_in).toBe(600);
  });

  it("gives anyone the public images and no one else's, and refuses a forged credential with 401", async () => {
    const anonymous = await token([
      'repository:slipway/php:pull,push',
      `repository:builds/${ns.name}/shop:pull`,
    ]);
    expect(anonymous.claims!.access).toEqual([
      { type: 'repository', name: 'slipway/php', actions: ['pull'] },
    ]);

    // Another namespace's name in a credential the operator did not sign.
    const forged = { username: 'push.9999999999.builds/another-team/shop', password: 'x'.repeat(43) };
    expect((await token(['repository:builds/another-team/shop:push'], forged)).status).toBe(401);
    // For another service than the registry's: 400.
    const elsewhere = await fetch(`${gatewayUrl}/registry/token?service=docker.io&scope=repository:a/b:pull`);
    expect(elsewhere.status).toBe(400);
  });

  it("mints no pull credential for a fork's build", async () => {
    await createForkBundle(ns.name, 'fork-1', 'shop');
    const job = await waitForBuildJob(kc, ns.name, 'fork-1');
    const secrets = (job.spec?.template.spec?.volumes ?? []).flatMap((v) => (v.secret ? [v.name] : []));
    expect(secrets).toEqual(['registry-push']);
  });
});
