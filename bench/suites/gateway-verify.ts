// Gateway, in-process: the pure work of one push delivery, without HTTP or the API server —
// URL token check, provider recognition, HMAC-SHA256 signature check over the raw body, payload
// parse, and the bundle plan. Operations per second of each step and of the whole path.
import type { BundleObject, WebhookObject } from '../../crds/index.ts';
import { planBundles } from '../../webhook-gateway/plan.ts';
import { parseDelivery, recogniseProvider, verifyDelivery } from '../../providers/index.ts';
import { deriveWebhookToken } from '../../rules/webhook-url.ts';
import { isWebhookToken } from '../../webhook-gateway/token.ts';
import { generateKeyPairSync, sign } from 'node:crypto';
import {
  grantedAccess,
  mintRegistryCredential,
  parseScope,
  readRegistryCredential,
} from '../../rules/registry-access.ts';
import { signRegistryToken, tokenSigner } from '../../webhook-gateway/registry/token-signer.ts';
import { githubPush } from '../fixtures/github.ts';
import type { SuiteResult } from '../lib/report.ts';
import { round } from '../lib/stats.ts';
import type { SuiteOptions } from './suite.ts';

const SECRET = 'bench-secret-5d0c7b2e91';
const SLUG = 'shop';

interface OpResult {
  name: string;
  ops: number;
  seconds: number;
  opsPerSecond: number;
  microsecondsPerOp: number;
}

/** Runs `op` in batches until `seconds` have passed (after a warm-up); the batch loop costs ~nothing. */
function measure(name: string, op: () => unknown, seconds: number): OpResult {
  let sink: unknown;
  for (let i = 0; i < 20_000; i++) sink = op();
  const batch = 500;
  let ops = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  while (performance.now() < until) {
    for (let i = 0; i < batch; i++) sink = op();
    ops += batch;
  }
  const elapsed = (performance.now() - started) / 1000;
  if (sink === undefined) throw new Error(`${name} returned nothing`);
  return {
    name,
    ops,
    seconds: elapsed,
    opsPerSecond: ops / elapsed,
    microsecondsPerOp: (elapsed * 1e6) / ops,
  };
}

export async function gatewayVerifySuite(options: SuiteOptions): Promise<SuiteResult> {
  const { headers, body } = githubPush(SECRET);
  const token = deriveWebhookToken(SECRET, SLUG);
  const webhooks: WebhookObject[] = [
    hook('master-to-production', 'master', 'Exact', 'production'),
    hook('features', 'feature/', 'StartsWith', 'preview'),
    hook('hotfixes', '-hotfix', 'EndsWith', undefined),
  ];
  const project = { namespace: 'bench', name: SLUG, uid: '00000000-0000-0000-0000-000000000001' };
  const manual = manualBundle();

  // Correctness first: a benchmark of a path that fails fast would be meaningless.
  if (!isWebhookToken(token, SECRET, SLUG)) throw new Error('token check failed');
  if (recogniseProvider(headers, body) !== 'github') throw new Error('not recognised as GitHub');
  if (!verifyDelivery('github', headers, body, SECRET, 'github')) throw new Error('signature check failed');
  const parsed = parseDelivery('github', headers, body);
  if (parsed.kind !== 'push') throw new Error(`parsed as ${parsed.kind}`);
  const plan = () =>
    planBundles({
      project,
      webhooks,
      latestManualBundle: manual,
      trigger: {
        type: 'Webhook',
        provider: 'github',
        deliveryId: parsed.deliveryId,
        changes: parsed.changes,
      },
    });
  if (plan().outcome !== 'create') throw new Error('the plan creates nothing');

  const seconds = options.quick ? 0.5 : 2;
  const path = () => {
    if (!isWebhookToken(token, SECRET, SLUG)) return undefined;
    const source = recogniseProvider(headers, body);
    if (source === undefined || !verifyDelivery(source, headers, body, SECRET, 'github')) return undefined;
    return parseDelivery(source, headers, body);
  };
  const results = [
    measure('URL token check', () => isWebhookToken(token, SECRET, SLUG), seconds),
    measure('recognise provider', () => recogniseProvider(headers, body), seconds),
    measure(
      'verify signature (HMAC-SHA256)',
      () => verifyDelivery('github', headers, body, SECRET, 'github'),
      seconds,
    ),
    measure('parse payload', () => parseDelivery('github', headers, body), seconds),
    measure('verify-only path (token+recognise+verify+parse)', path, seconds),
    measure('plan bundles (match 3 webhooks)', plan, seconds),
    measure('verify path + plan', () => (path() ? plan() : undefined), seconds),
  ];
  // The registry token endpoint's work per request (webhook-gateway/http/registry-token.ts), and
  // its ceiling: the ES256 signature alone, which every token needs.
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signer = tokenSigner(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
  const now = Math.floor(Date.now() / 1000);
  const credential = mintRegistryCredential(SECRET, {
    role: 'push',
    repository: 'builds/bench/shop',
    expires: now + 3600,
  });
  const scopes = ['repository:builds/bench/shop:pull,push', 'repository:slipway/php:pull'];
  const tokenPath = () => {
    const held = readRegistryCredential(SECRET, credential.username, credential.password, now);
    const access = grantedAccess(
      scopes.map((s) => parseScope(s)!),
      held,
      ['slipway/*'],
    );
    if (access.length !== 2) throw new Error('the token grants the wrong access');
    return signRegistryToken(signer, {
      issuer: 'slipway',
      service: 'registry',
      subject: credential.username,
      access,
      nowSeconds: now,
      lifetimeSeconds: 600,
    });
  };
  const signature = measure(
    'ES256 signature alone (ceiling)',
    () =>
      sign('sha256', Buffer.from(scopes.join(' ')), { key: signer.privateKey, dsaEncoding: 'ieee-p1363' }),
    seconds,
  );
  const tokens = measure('registry token (credential + grant + ES256 sign)', tokenPath, seconds);
  results.push(signature, tokens);
  for (const r of results) options.log(`${r.name}: ${r.opsPerSecond.toFixed(0)} ops/s`);
  options.log(
    `registry token ÷ its signature alone: ${(tokens.opsPerSecond / signature.opsPerSecond).toFixed(2)} (target >= 0.8)`,
  );

  return {
    tables: [
      {
        title: `github-push fixture (${body.length} bytes), one thread`,
        columns: ['operation', 'ops/s', 'µs/op'],
        rows: results.map((r) => [r.name, Math.round(r.opsPerSecond), r.microsecondsPerOp]),
      },
    ],
    data: {
      fixture: 'github-push',
      bodyBytes: body.length,
      operations: results.map((r) => ({
        name: r.name,
        ops: r.ops,
        opsPerSecond: Math.round(r.opsPerSecond),
        microsecondsPerOp: round(r.microsecondsPerOp),
      })),
    },
  };
}

function hook(
  name: string,
  branch: string,
  matchMode: WebhookObject['spec']['matchMode'],
  environment: string | undefined,
): WebhookObject {
  return {
    apiVersion: 'slipway.dev/v1alpha1',
    kind: 'Webhook',
    metadata: { name, namespace: 'bench' },
    spec: {
      projectRef: { name: SLUG },
      branch,
      matchMode,
      ...(environment ? { environmentRef: { name: environment } } : {}),
    },
  };
}

function manualBundle(): BundleObject {
  return {
    apiVersion: 'slipway.dev/v1alpha1',
    kind: 'Bundle',
    metadata: { name: 'shop-manual-1', namespace: 'bench', creationTimestamp: '2026-03-01T10:00:00Z' },
    spec: {
      projectRef: { name: SLUG },
      source: { git: { commit: 'a'.repeat(40), branch: 'main' } },
      baseSoftware: { image: 'php:8.3-fpm' },
      directoryMap: { web: 'web', config: 'config', templates: 'templates' },
      trigger: { type: 'Manual' },
    },
  };
}
