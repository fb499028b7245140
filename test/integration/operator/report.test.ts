// Reporting to a provider's API that answers on a real port (a GitHub-shaped API here: the
// project's spec.report.apiUrl points at it): the first call is rate limited with Retry-After,
// the operator waits that long and sends again; the build never waits for it. A rollout is a
// deployment there. A restarted operator sends nothing twice, and a provider that refuses shows
// on the Project.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import type { BundleObject, ProjectObject } from '../../../crds/index.ts';
import type { Operator } from '../../../operator/operator.ts';
import { bundle, inNamespace, project, spec } from '../../support/builders.ts';
import { testKubeConfig, waitFor } from '../../support/cluster.ts';
import {
  bundleInPhase,
  clients,
  createEnvironment,
  projectNamespace,
  startOperator,
  type TestNamespace,
} from './support.ts';

const COMMIT = 'c0ffee'.padEnd(40, '0');
const TOKEN = 'ghp_reporting_test_token_1234';

interface Call {
  at: number;
  method: string;
  url: string;
  privateToken?: string;
  authorization: string | undefined;
  body: Record<string, unknown> & { state: string; context?: string; description: string };
}

let kc: KubeConfig;
let ns: TestNamespace;
let operator: Operator;
let api: Server;
let apiUrl: string;
const calls: Call[] = [];
/** What the API answers next: a queue of status codes, then 201. */
const answers: Array<{ status: number; headers?: Record<string, string> }> = [];

async function read(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

beforeAll(async () => {
  kc = testKubeConfig();
  api = createServer((req, res) => {
    void read(req).then((text) => {
      const body = JSON.parse(text);
      calls.push({
        at: Date.now(),
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        privateToken: req.headers['private-token'] as string | undefined,
        body,
      });
      // GitLab refuses to set a deployment to the status it already has, in its words.
      if (req.method === 'PUT' && body.status === 'running') {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end('{"message":{"status":["cannot transition via \\"run\\""]}}');
        return;
      }
      const answer = answers.shift() ?? { status: 201 };
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.status < 300 ? '{"id":1}' : `{"message":"no (${TOKEN} is not echoed)"}`);
    });
  });
  api.listen(0, '127.0.0.1');
  await new Promise((r) => api.once('listening', r));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/api/v3`;
  ns = await projectNamespace(kc, 'op-report', {
    repository: { url: 'https://github.com/acme/shop.git' },
    report: { tokenSecretRef: { name: 'shop-github-token', key: 'token' }, apiUrl },
  });
  await clients(kc).core.createNamespacedSecret({
    namespace: ns.name,
    body: { metadata: { name: 'shop-github-token' }, stringData: { token: `${TOKEN}\n` } },
  });
  operator = await startOperator(kc, ns.name, { SLIPWAY_ARCHIVE_URL_KEY: 'k'.repeat(32) });
});

afterAll(async () => {
  await operator?.stop();
  api?.close();
  await ns?.remove();
});

const built = (name: string) =>
  bundle(name, inNamespace(ns.name), spec({ source: { git: { commit: COMMIT, branch: 'main' } } }));
const ofContext = (context: string) => calls.filter((c) => c.body.context === context);

describe('reporting to the provider', () => {
  it('waits as long as a rate-limited answer asks, then the provider has pending and then success', async () => {
    answers.push({ status: 429, headers: { 'retry-after': '1' } });
    await clients(kc).slipway.create('Bundle', built('report-1'));
    // The build does not wait for the provider.
    await bundleInPhase(kc, ns.name, 'report-1', 'Built');
    const success = await waitFor('success reported', () =>
      calls.find((c) => c.body.state === 'success' && c.body.context === 'slipway/build'),
    );
    const [refused, retried] = ofContext('slipway/build');
    expect(refused?.body.state).toBe('pending');
    expect(retried!.at - refused!.at).toBeGreaterThanOrEqual(950);
    expect(success).toMatchObject({
      url: `/api/v3/repos/acme/shop/statuses/${COMMIT}`,
      authorization: `Bearer ${TOKEN}`,
      body: { description: 'Built bundle report-1' },
    });
    expect(success.body.target_url).toMatch(new RegExp(`/bundles/${ns.name}/report-1/`));
    const b = await waitFor('status.reported', async () => {
      const got = await clients(kc).slipway.get<BundleObject>('Bundle', ns.name, 'report-1');
      return got.status?.reported?.length ? got : undefined;
    });
    expect(b.status?.reported).toEqual([{ context: 'slipway/build', state: 'success' }]);
  });

  it('reports a rollout as a deployment of the commit, whose last status is success with the environment URL', async () => {
    await createEnvironment(kc, ns.name, 'staging', { deployment: 'shop-web', engine: 'mysql' });
    await clients(kc).slipway.patch('Environment', ns.name, 'staging', {
      spec: { url: 'https://staging.shop.example.com' },
    });
    await clients(kc).slipway.create(
      'Bundle',
      bundle(
        'deploy-1',
        inNamespace(ns.name),
        spec({
          source: { git: { commit: COMMIT, branch: 'main' } },
          deploy: { environmentRef: { name: 'staging' }, backupBeforeDeploy: false },
        }),
      ),
    );
    await bundleInPhase(kc, ns.name, 'deploy-1', 'Ready');
    const deployments = `/api/v3/repos/acme/shop/deployments`;
    const success = await waitFor('the deployment to succeed', () =>
      calls.find((c) => c.url === `${deployments}/1/statuses` && c.body.state === 'success'),
    );
    expect(success.body).toMatchObject({
      environment_url: 'https://staging.shop.example.com',
      log_url: expect.stringMatching(new RegExp(`/bundles/${ns.name}/deploy-1/`)),
      description: 'Deployed to staging',
    });
    const made = calls.filter((c) => c.url === deployments);
    expect(made).toHaveLength(1);
    expect(made[0]!.body).toMatchObject({
      ref: COMMIT,
      environment: 'staging',
      auto_merge: false,
      required_contexts: [],
    });
    // Its states only ever go forward; the rollout is not also a commit status.
    const states = calls.filter((c) => c.url === `${deployments}/1/statuses`).map((c) => c.body.state);
    expect(states.at(-1)).toBe('success');
    expect(states.every((s) => s === 'in_progress' || s === 'success')).toBe(true);
    expect(calls.some((c) => c.body.context === 'slipway/deploy/staging')).toBe(false);
    const b = await waitFor('the deployment on status.reported', async () => {
      const got = await clients(kc).slipway.get<BundleObject>('Bundle', ns.name, 'deploy-1');
      return got.status?.reported?.some((r) => r.deploymentId && r.state === 'success') ? got : undefined;
    });
    expect(b.status?.reported).toContainEqual({
      context: 'slipway/deploy/staging',
      state: 'success',
      deploymentId: '1',
    });
  });

  it('sends nothing twice after a restart', async () => {
    await operator.deliveries.idle();
    await operator.stop();
    const before = calls.length;
    operator = await startOperator(kc, ns.name, { SLIPWAY_ARCHIVE_URL_KEY: 'k'.repeat(32) });
    await operator.idle();
    await operator.deliveries.idle();
    expect(calls.length).toBe(before);
  });

  it('shows a provider that keeps refusing on the Project, with its answer and without the token', async () => {
    answers.push({ status: 401 }, { status: 401 });
    await clients(kc).slipway.create('Bundle', built('report-2'));
    const condition = await waitFor("the Project's Reported condition to say so", async () => {
      const project = await clients(kc).slipway.get<ProjectObject>('Project', ns.name, 'shop');
      const reported = project.status?.conditions?.find((c) => c.type === 'Reported');
      return reported?.status === 'False' ? reported : undefined;
    });
    expect(condition).toMatchObject({ reason: 'ReportFailed' });
    expect(condition.message).toMatch(
      /^GitHub did not take slipway\/build pending for commit c0ffee000000 \(bundle report-2\): HTTP 401/,
    );
    expect(condition.message).not.toContain(TOKEN);
    // Its build went on all the same.
    await bundleInPhase(kc, ns.name, 'report-2', 'Built');
  });
});

describe('reporting to GitLab', () => {
  it('reports a rollout as a GitLab deployment of the pushed branch, made running and then set to success', async () => {
    const gitlabApi = apiUrl.replace('/api/v3', '/api/v4');
    await clients(kc).slipway.create(
      'Project',
      project(
        'gl-shop',
        inNamespace(ns.name),
        spec({
          provider: 'gitlab',
          repository: { url: 'https://gitlab.example.com/acme/web/shop.git' },
          report: { tokenSecretRef: { name: 'shop-github-token', key: 'token' }, apiUrl: gitlabApi },
        }),
      ),
    );
    await createEnvironment(kc, ns.name, 'gl-staging', { deployment: 'gl-web', engine: 'mysql' });
    await clients(kc).slipway.patch('Environment', ns.name, 'gl-staging', {
      spec: { projectRef: { name: 'gl-shop' } },
    });
    await clients(kc).slipway.create(
      'Bundle',
      bundle(
        'gl-deploy-1',
        inNamespace(ns.name),
        spec({
          projectRef: { name: 'gl-shop' },
          source: { git: { commit: COMMIT, branch: 'release' } },
          deploy: { environmentRef: { name: 'gl-staging' }, backupBeforeDeploy: false },
        }),
      ),
    );
    await bundleInPhase(kc, ns.name, 'gl-deploy-1', 'Ready');
    const deployments = '/api/v4/projects/acme%2Fweb%2Fshop/deployments';
    const success = await waitFor('the GitLab deployment to succeed', () =>
      calls.find((c) => c.method === 'PUT' && c.url === `${deployments}/1` && c.body.status === 'success'),
    );
    expect(success.privateToken).toBe(TOKEN);
    const made = calls.filter((c) => c.method === 'POST' && c.url === deployments);
    expect(made.map((c) => c.body)).toEqual([
      { environment: 'gl-staging', sha: COMMIT, ref: 'release', tag: false, status: 'running' },
    ]);
    // Made running: never set running again.
    expect(calls.some((c) => c.method === 'PUT' && c.body.status === 'running')).toBe(false);
    // Its build is a commit status.
    expect(
      calls.some(
        (c) =>
          c.url === `/api/v4/projects/acme%2Fweb%2Fshop/statuses/${COMMIT}` && c.body.state === 'success',
      ),
    ).toBe(true);
    const b = await waitFor('the deployment on status.reported', async () => {
      const got = await clients(kc).slipway.get<BundleObject>('Bundle', ns.name, 'gl-deploy-1');
      return got.status?.reported?.some((r) => r.deploymentId && r.state === 'success') ? got : undefined;
    });
    expect(b.status?.reported).toContainEqual({
      context: 'slipway/deploy/gl-staging',
      state: 'success',
      deploymentId: '1',
    });
  });
});
