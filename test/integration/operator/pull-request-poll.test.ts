// The periodic look at a project's open pull requests, against a GitHub-shaped API on a real
// port that lists them (the pull_request object of GitHub's real delivery): a pull request whose
// delivery never came gets its Preview, and one no longer open loses it — with no delivery at
// all. The operator runs on a fake clock, so "a while later" needs no waiting.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import type { PreviewObject } from '../../../crds/index.ts';
import type { Operator } from '../../../operator/operator.ts';
import { kubectlPatch, testKubeConfig, waitFor } from '../../support/cluster.ts';
import { loadFixture } from '../../unit/webhook-gateway/support/fixtures.ts';
import { clients, projectNamespace, startOperator, type TestNamespace } from './support.ts';

let kc: KubeConfig;
let ns: TestNamespace;
let operator: Operator;
let api: Server;
let now = new Date();
/** What the API lists as open now, and what it was asked. */
let open: unknown[] = [];
const asked: string[] = [];
const pullRequest = JSON.parse(loadFixture('pull-requests/github-pull-request-opened').body.toString('utf8'))
  .pull_request as { number: number; head: { sha: string } };
const get = (name: string) => clients(kc).slipway.get<PreviewObject>('Preview', ns.name, name);
const gone = () =>
  waitFor('the Preview to go', () =>
    get('shop-pr-2').then(
      () => undefined,
      (err: { code?: number }) => (err.code === 404 ? true : Promise.reject(err)),
    ),
  );

beforeAll(async () => {
  kc = testKubeConfig();
  api = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      res.writeHead(req.method === 'GET' ? 200 : 201, { 'content-type': 'application/json' });
      res.end(JSON.stringify(req.method === 'GET' ? open : { id: 1 }));
    });
  }).listen(0, '127.0.0.1');
  await new Promise((r) => api.once('listening', r));
  const apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/api/v3`;
  ns = await projectNamespace(kc, 'op-poll', {
    repository: { url: 'https://github.com/Codertocat/Hello-World.git' },
    report: { tokenSecretRef: { name: 'github-token', key: 'token' }, apiUrl },
  });
  await clients(kc).core.createNamespacedSecret({
    namespace: ns.name,
    body: { metadata: { name: 'github-token' }, stringData: { token: 'ghp_poll' } },
  });
  operator = await startOperator(kc, ns.name, {}, { now: () => now });
});

afterAll(async () => {
  await operator?.stop();
  api?.close();
  await ns?.remove();
});

describe('the look at open pull requests', () => {
  it('turning previews on finds a pull request opened before, and makes its Preview with no delivery', async () => {
    open = [pullRequest];
    await kubectlPatch('project', 'shop', ns.name, {
      spec: { previews: { environmentRef: { name: 'staging' }, host: 'pr-{number}.test', label: 'bug' } },
    });
    const made = await waitFor('the Preview of pull request 2', () =>
      get('shop-pr-2').catch(() => undefined),
    );
    expect(made.spec).toMatchObject({ number: 2, headCommit: pullRequest.head.sha, provider: 'github' });
    expect(asked).toContain('GET /api/v3/repos/Codertocat/Hello-World/pulls?state=open&per_page=100');
  });

  it('a preview removed at this head (by hand, or idle) is not made again by the look; a push makes it again', async () => {
    await clients(kc).slipway.delete('Preview', ns.name, 'shop-pr-2');
    await gone();
    const lists = () => asked.filter((a) => a.startsWith('GET')).length;
    const before = lists();
    await kubectlPatch('project', 'shop', ns.name, { spec: { previews: { idleHours: 72 } } });
    await waitFor('another look', async () => (lists() > before ? true : undefined));
    await operator.controller('pull-request-poll').idle();
    expect(await get('shop-pr-2').catch((err: { code?: number }) => err.code)).toBe(404);
    // A push: the pull request's head moves, and the next look makes its preview again.
    open = [{ ...pullRequest, head: { ...(pullRequest as { head: object }).head, sha: 'c'.repeat(40) } }];
    await kubectlPatch('project', 'shop', ns.name, { spec: { previews: { idleHours: 96 } } });
    const again = await waitFor('the Preview made again', () => get('shop-pr-2').catch(() => undefined));
    expect(again.spec.headCommit).toBe('c'.repeat(40));
  });

  it('a pull request closed while its delivery was lost loses its Preview at the next look', async () => {
    open = [];
    // Minutes later (a Preview just made may be of a pull request opened since the page was read).
    now = new Date(Date.now() + 5 * 60_000);
    await kubectlPatch('project', 'shop', ns.name, { spec: { previews: { idleHours: 48 } } });
    await gone();
  });
});
