// Pull-request previews end to end on a real API server, with kwok playing the node: the real
// GitHub and Gitea pull_request payloads (re-signed for the project's secret) reach the gateway
// on a real port, and the Preview is made, built, served beside its environment, updated by a
// push and removed when the pull request closes — what a user sees with kubectl, and what a
// GitHub-shaped API on a real port is told: one comment, edited in place, and slipway/preview.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, NetworkingV1Api, type V1Deployment } from '@kubernetes/client-node';
import type { BundleObject, PreviewObject } from '../../../crds/index.ts';
import { LABEL_PREVIEW } from '../../../crds/labels.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import { logger } from '../../../lib/log.ts';
import { argoHealth } from '../../support/argocd-health.ts';
import * as build from '../../support/builders.ts';
import { createNamespace, kubectl, kubectlApply, testKubeConfig, waitFor } from '../../support/cluster.ts';
import { clients, webDeployment } from '../operator/support.ts';
import {
  deliverPullRequest,
  publishedWebhook,
  startGatewayAndOperator,
  type GatewayAndOperator,
} from './support.ts';

const kc = testKubeConfig();
const api = slipwayApi(kc);
const core = kc.makeApiClient(CoreV1Api);
const networking = kc.makeApiClient(NetworkingV1Api);
const log = logger.child({ test: 'previews' }, { level: process.env.SLIPWAY_TEST_LOG_LEVEL ?? 'silent' });
let ns: { name: string; remove: () => Promise<void> };
let slipway: GatewayAndOperator;
const hooks: Record<string, { url: string; secret: string }> = {};
/** What the GitHub-shaped API was sent: method, path and body. */
const calls: Array<{ method: string; path: string; body: Record<string, string> }> = [];
let github: Server;
const REPO = '/api/v3/repos/Codertocat/Hello-World';
const comments = () => calls.filter((c) => c.path.includes('/comments'));
const previewStatuses = () => calls.filter((c) => c.body.context === 'slipway/preview');
const notified = () =>
  calls.filter((c) => c.path === '/notify').map((c) => `${c.body.event}@${c.body.commit}`);

/** A real delivery of `fixture`, its body changed by `edit` (then signed as the provider would). */
const deliver = (project: string, fixture: string, edit?: (body: string) => string) =>
  deliverPullRequest(hooks[project]!, fixture, edit);

const preview = (name: string) => api.get<PreviewObject>('Preview', ns.name, name);
const gone = async (read: () => Promise<unknown>) => {
  try {
    await read();
    return false;
  } catch (err) {
    if ((err as { code?: number }).code === 404) return true;
    throw err;
  }
};

async function previewReady(name: string, commit: string): Promise<PreviewObject> {
  return waitFor(
    `preview ${name} to serve ${commit.slice(0, 8)}`,
    async () => {
      const p = await preview(name);
      return p.status?.phase === 'Ready' && p.status.deployedCommit === commit ? p : undefined;
    },
    90_000,
  );
}

/** Deployment `name` and a Service of its name that selects its pods (port http). */
async function servedDeployment(name: string): Promise<void> {
  await clients(kc).apps.createNamespacedDeployment({
    namespace: ns.name,
    body: webDeployment(ns.name, name),
  });
  await core.createNamespacedService({
    namespace: ns.name,
    body: {
      metadata: { name },
      spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
    },
  });
}

function previewSettings(extra: object) {
  return { environmentRef: { name: 'staging' }, host: 'pr-{number}.{project}.preview.test', ...extra };
}

beforeAll(async () => {
  github = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls.push({
        method: req.method!,
        path: req.url!,
        body: req.method === 'GET' ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8')),
      });
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
      // The operator's look at open pull requests finds none: these tests deliver every one.
      res.end(req.method === 'GET' ? '[]' : '{"id":4242}');
    });
  }).listen(0, '127.0.0.1');
  await new Promise((r) => github.once('listening', r));
  const apiUrl = `http://127.0.0.1:${(github.address() as AddressInfo).port}/api/v3`;
  ns = await createNamespace(kc, 'previews');
  slipway = await startGatewayAndOperator(kc, ns.name, log);
  const inNs = build.inNamespace(ns.name);
  const suffix = ns.name.slice(-6);
  await servedDeployment('shop-web');
  await kubectlApply([
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'github-token', namespace: ns.name },
      stringData: { token: 'ghp_preview' },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'team-hook', namespace: ns.name },
      stringData: { url: `${apiUrl.replace('/api/v3', '')}/notify` },
    },
    build.project(
      'gh',
      inNs,
      build.spec({
        slug: `gh-${suffix}`,
        provider: 'github',
        repository: { url: 'https://github.com/Codertocat/Hello-World.git' },
        report: { tokenSecretRef: { name: 'github-token', key: 'token' }, apiUrl },
        notifications: [
          {
            name: 'team',
            type: 'generic',
            secretRef: { name: 'team-hook' },
            events: ['PreviewReady', 'PreviewFailed', 'PreviewRemoved'],
          },
        ],
        previews: previewSettings({ trigger: 'Label', label: 'bug' }),
      }),
    ),
    build.project(
      'gt',
      inNs,
      build.spec({
        slug: `gt-${suffix}`,
        provider: 'gitea',
        repository: { url: 'https://gitea.example.com/jcitizen/my-repo.git' },
        previews: previewSettings({ trigger: 'Always' }),
      }),
    ),
    build.environment('staging', inNs, build.spec({ projectRef: { name: 'gh' } })),
    build.bundle('gh-manual', inNs, build.spec({ projectRef: { name: 'gh' } })),
    build.bundle('gt-manual', inNs, build.spec({ projectRef: { name: 'gt' } })),
  ]);
  for (const project of ['gh', 'gt']) hooks[project] = await publishedWebhook(kc, ns.name, project);
});

afterAll(async () => {
  github?.close();
  await slipway?.stop();
  await ns?.remove();
});

describe('pull-request previews', () => {
  const first = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
  const second = '1111111111111111111111111111111111111111';

  it('a GitHub pull request carrying the label gets a Preview, built from refs/pull/2/head and served at its host', async () => {
    const { status, body } = await deliver('gh', 'github-pull-request-opened');
    expect(status).toBe(201);
    expect(body).toEqual({ result: 'created', preview: { name: 'gh-pr-2', namespace: ns.name } });

    const ready = await previewReady('gh-pr-2', first);
    expect(ready.spec).toMatchObject({
      projectRef: { name: 'gh' },
      provider: 'github',
      number: 2,
      branch: 'changes',
      targetBranch: 'master',
      headCommit: first,
      fetchRef: 'refs/pull/2/head',
      author: 'Codertocat',
      fork: false,
      pullRequestUrl: 'https://github.com/Codertocat/Hello-World/pull/2',
    });
    expect(ready.status?.url).toBe('http://pr-2.gh.preview.test');
    // As kubectl shows it.
    const [header, row] = (await kubectl(['get', 'previews', '-n', ns.name])).stdout.trim().split('\n');
    expect(header).toMatch(/NAME\s+PR\s+BRANCH\s+COMMIT\s+URL\s+READY\s+AGE/);
    expect(row).toMatch(
      new RegExp(`gh-pr-2\\s+2\\s+changes\\s+${first}\\s+http://pr-2.gh.preview.test\\s+True`),
    );
    expect(ready.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      reason: 'Served',
    });
    // And as Argo CD shows it, with the health check of deploy/argocd.
    expect(argoHealth(ready).status).toBe('Healthy');

    // The build: a PullRequest bundle of the head commit, fetched from the base repository's ref.
    const bundle = await api.get<BundleObject>('Bundle', ns.name, ready.status!.bundle!);
    expect(bundle.spec).toMatchObject({
      source: { git: { commit: first, branch: 'changes', fetchRef: 'refs/pull/2/head' } },
      trigger: { type: 'PullRequest', provider: 'github', previewRef: { name: 'gh-pr-2' } },
      baseSoftware: { image: 'php:8.3-fpm' },
    });
    expect(bundle.spec.deploy).toBeUndefined();

    // The copies: their own selector, the built image by digest, owned by the Preview.
    const copy = await clients(kc).apps.readNamespacedDeployment({
      name: 'shop-web-pr-2',
      namespace: ns.name,
    });
    expect(copy.spec?.selector?.matchLabels).toEqual({ [LABEL_PREVIEW]: 'gh-pr-2' });
    expect(copy.spec?.template?.metadata?.labels?.app).toBeUndefined();
    expect(copy.spec?.template?.spec?.containers?.[0]?.image).toBe(bundle.status?.image);
    expect(copy.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Preview', name: 'gh-pr-2', controller: true }),
    ]);
    const service = await core.readNamespacedService({ name: 'shop-web-pr-2', namespace: ns.name });
    expect(service.spec?.selector).toEqual({ [LABEL_PREVIEW]: 'gh-pr-2' });
    expect(service.spec?.ports?.[0]).toMatchObject({ name: 'http', port: 80, targetPort: 8080 });
    const ingress = await networking.readNamespacedIngress({ name: 'gh-pr-2', namespace: ns.name });
    expect(ingress.spec?.rules?.[0]).toMatchObject({
      host: 'pr-2.gh.preview.test',
      http: {
        paths: [{ path: '/', backend: { service: { name: 'shop-web-pr-2', port: { name: 'http' } } } }],
      },
    });

    // Told on the pull request: one comment with the URL, and slipway/preview linking to it.
    const told = await waitFor('the comment and slipway/preview success', async () =>
      previewStatuses().some((c) => c.body.state === 'success') ? comments() : undefined,
    );
    // Made once, then edited in place as the preview moved on.
    expect(told.filter((c) => c.method === 'POST')).toEqual([
      expect.objectContaining({ path: `${REPO}/issues/2/comments` }),
    ]);
    const edits = new Set(told.filter((c) => c.method === 'PATCH').map((c) => c.path));
    expect([...edits]).toEqual([`${REPO}/issues/comments/4242`]);
    const last = await waitFor('the comment to say ready', async () =>
      comments().at(-1)!.body.body!.includes('ready') ? comments().at(-1) : undefined,
    );
    expect(last.body.body).toContain('| URL | http://pr-2.gh.preview.test |');
    expect(last.body.body).toContain(`| Commit | \`${first.slice(0, 12)}\` |`);
    expect(previewStatuses().at(-1)).toMatchObject({
      path: `${REPO}/statuses/${first}`,
      body: { state: 'success', target_url: 'http://pr-2.gh.preview.test' },
    });
    // A GitHub deployment to preview/pr-2, its last status success with the preview's URL.
    expect(calls.find((c) => c.path === `${REPO}/deployments`)?.body).toMatchObject({
      ref: first,
      environment: 'preview/pr-2',
      transient_environment: true,
      production_environment: false,
    });
    await waitFor('the deployment to be success', async () =>
      calls.find(
        (c) =>
          c.path === `${REPO}/deployments/4242/statuses` &&
          c.body.state === 'success' &&
          c.body.environment_url === 'http://pr-2.gh.preview.test',
      ),
    );
    expect((await preview('gh-pr-2')).metadata.finalizers).toEqual(['slipway.dev/preview-comment']);

    // The environment's own Deployment and Service are untouched.
    const source: V1Deployment = await clients(kc).apps.readNamespacedDeployment({
      name: 'shop-web',
      namespace: ns.name,
    });
    expect(source.spec?.template?.spec?.containers?.[0]?.image).toBe('registry.slipway.test:5000/base:old');
    expect(
      (await core.readNamespacedService({ name: 'shop-web', namespace: ns.name })).spec?.selector,
    ).toEqual({
      app: 'shop-web',
    });
  });

  it('a redelivery changes nothing; a push to the pull request builds the new head and replaces the image', async () => {
    expect(await deliver('gh', 'github-pull-request-opened')).toMatchObject({
      status: 200,
      body: { result: 'unchanged' },
    });
    const before = (await preview('gh-pr-2')).status!.bundle!;
    const { status, body } = await deliver('gh', 'github-pull-request-synchronize', (b) =>
      b.replaceAll(first, second),
    );
    expect(status).toBe(200);
    expect(body.result).toBe('updated');
    const ready = await previewReady('gh-pr-2', second);
    expect(ready.status?.bundle).not.toBe(before);
    const bundle = await api.get<BundleObject>('Bundle', ns.name, ready.status!.bundle!);
    const copy = await clients(kc).apps.readNamespacedDeployment({
      name: 'shop-web-pr-2',
      namespace: ns.name,
    });
    expect(copy.spec?.template?.spec?.containers?.[0]?.image).toBe(bundle.status?.image);
    // The bundle of the old head goes: a preview keeps only what it builds and serves.
    await waitFor('the old head bundle to be pruned', async () =>
      gone(() => api.get('Bundle', ns.name, before)),
    );
    // The same comment, edited: no second one.
    const edited = await waitFor('the comment edited to the new head', async () =>
      comments().find(
        (c) =>
          c.method === 'PATCH' &&
          c.body.body!.includes(second.slice(0, 12)) &&
          c.body.body!.includes('ready'),
      ),
    );
    expect(edited.path).toBe(`${REPO}/issues/comments/4242`);
    expect(comments().filter((c) => c.method === 'POST')).toHaveLength(1);
  });

  it('closing the pull request removes the Preview and everything that served it', async () => {
    const { status, body } = await deliver('gh', 'github-pull-request-closed-unmerged', (b) =>
      b.replaceAll(first, second),
    );
    expect(status).toBe(200);
    expect(body).toMatchObject({ result: 'removed', reason: 'pull request #2 was closed' });
    await waitFor('the preview and its copies to go', async () => {
      const all = await Promise.all([
        gone(() => preview('gh-pr-2')),
        gone(() => clients(kc).apps.readNamespacedDeployment({ name: 'shop-web-pr-2', namespace: ns.name })),
        gone(() => core.readNamespacedService({ name: 'shop-web-pr-2', namespace: ns.name })),
        gone(() => networking.readNamespacedIngress({ name: 'gh-pr-2', namespace: ns.name })),
      ]);
      return all.every(Boolean) || undefined;
    });
    // The comment said so before the preview went.
    expect(comments().at(-1)).toMatchObject({ method: 'PATCH', path: `${REPO}/issues/comments/4242` });
    expect(comments().at(-1)!.body.body).toContain('removed');
    // The receiver heard each head commit served once, then the removal, before the Preview went.
    expect(notified()).toEqual([
      `PreviewReady@${first}`,
      `PreviewReady@${second}`,
      `PreviewRemoved@${second}`,
    ]);
    expect(calls.find((c) => c.path === '/notify')!.body).toMatchObject({
      project: 'gh',
      environment: 'preview/pr-2',
      url: 'http://pr-2.gh.preview.test',
    });
    // And the environment's own objects stay.
    await clients(kc).apps.readNamespacedDeployment({ name: 'shop-web', namespace: ns.name });
    expect(await deliver('gh', 'github-pull-request-closed-unmerged')).toMatchObject({
      status: 202,
      body: { result: 'ignored' },
    });
  });

  it('a pull request without the label gets no preview, and says why', async () => {
    const { status, body } = await deliver('gh', 'github-pull-request-opened', (b) =>
      b.replaceAll('"name": "bug"', '"name": "docs"'),
    );
    expect(status).toBe(202);
    expect(body).toEqual({
      result: 'ignored',
      preview: { name: 'gh-pr-2', namespace: ns.name },
      reason: 'pull request #2 does not carry the label bug',
    });
  });

  it("never takes over an object of a copy's name that is not the preview's: it says so and waits", async () => {
    await clients(kc).apps.createNamespacedDeployment({
      namespace: ns.name,
      body: webDeployment(ns.name, 'shop-web-pr-4'),
    });
    const opened = await deliver('gh', 'github-pull-request-opened', (b) =>
      b.replaceAll('"number": 2,', '"number": 4,'),
    );
    expect(opened).toMatchObject({ status: 201, body: { preview: { name: 'gh-pr-4' } } });
    const waiting = await waitFor('the preview to say the name is taken', async () => {
      const p = await preview('gh-pr-4');
      return p.status?.conditions?.find((c) => c.reason === 'NameTaken') ? p : undefined;
    });
    expect(waiting.status?.conditions?.find((c) => c.type === 'Ready')?.message).toContain(
      'Deployment shop-web-pr-4 exists and is not this preview',
    );
    const theirs = await clients(kc).apps.readNamespacedDeployment({
      name: 'shop-web-pr-4',
      namespace: ns.name,
    });
    expect(theirs.metadata?.ownerReferences).toBeUndefined();
    expect(theirs.spec?.template?.spec?.containers?.[0]?.image).toBe('registry.slipway.test:5000/base:old');
  });

  it('Gitea: open makes a preview (trigger Always); a fork waits without a build; merge removes it', async () => {
    expect(await deliver('gt', 'gitea-pull-request-opened')).toMatchObject({ status: 201 });
    await previewReady('gt-pr-1', '2eba238e33607c1fa49253182e9fff42baafa1eb');

    expect(await deliver('gt', 'gitea-pull-request-opened-fork')).toMatchObject({ status: 201 });
    const fork = await waitFor('the fork preview to say why it waits', async () => {
      const p = await preview('gt-pr-2');
      return p.status?.phase === 'Waiting' ? p : undefined;
    });
    expect(fork.spec.fork).toBe(true);
    expect(fork.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ForkNotAllowed',
    });
    // Argo CD: it cannot be served until someone changes spec.previews.forks.
    expect(argoHealth(fork)).toMatchObject({ status: 'Degraded', message: expect.stringContaining('fork') });
    const forkBundles = (await api.list<BundleObject>('Bundle', ns.name)).filter(
      (b) => b.spec.trigger.previewRef?.name === 'gt-pr-2',
    );
    expect(forkBundles).toEqual([]);

    expect(await deliver('gt', 'gitea-pull-request-merged')).toMatchObject({
      status: 200,
      body: { result: 'removed', reason: 'pull request #1 was merged' },
    });
    await waitFor('the Gitea preview to go', async () => (await gone(() => preview('gt-pr-1'))) || undefined);
  });

  it("takes down what served a preview once it may not be served, and an old environment's copies when it moves", async () => {
    const copies = async (deployment: string) =>
      (
        await Promise.all([
          gone(() => clients(kc).apps.readNamespacedDeployment({ name: deployment, namespace: ns.name })),
          gone(() => core.readNamespacedService({ name: deployment, namespace: ns.name })),
          gone(() => networking.readNamespacedIngress({ name: 'gt-pr-2', namespace: ns.name })),
        ])
      ).map((isGone) => !isGone);
    const previews = (extra: object) =>
      kubectl([
        'patch',
        'project',
        'gt',
        '-n',
        ns.name,
        '--type=merge',
        '-p',
        JSON.stringify({ spec: { previews: previewSettings({ trigger: 'Always', ...extra }) } }),
      ]);
    // The fork of the last test, approved: served.
    await previews({ forks: 'Approve' });
    const head = (await preview('gt-pr-2')).spec.headCommit;
    await api.patch('Preview', ns.name, 'gt-pr-2', { spec: { approvedCommit: head } });
    await previewReady('gt-pr-2', head);
    expect(await copies('shop-web-pr-2')).toEqual([true, true, true]);
    // Someone's Service with the preview's label, not the Preview's: never touched.
    await core.createNamespacedService({
      namespace: ns.name,
      body: {
        metadata: { name: 'lookalike', labels: { 'slipway.dev/preview': 'gt-pr-2' } },
        spec: { selector: { app: 'x' }, ports: [{ port: 80 }] },
      },
    });
    // Forks switched to Deny: nothing of the fork's code runs any more.
    await previews({ forks: 'Deny' });
    const denied = await waitFor('the fork preview to be taken down', async () => {
      const p = await preview('gt-pr-2');
      const left = await copies('shop-web-pr-2');
      return p.status?.conditions?.some((c) => c.reason === 'ForkNotAllowed') && !left.includes(true)
        ? p
        : undefined;
    });
    expect(denied.status).toMatchObject({ phase: 'Waiting' });
    expect(denied.status?.url).toBeUndefined();
    expect(denied.status?.deployedCommit).toBeUndefined();
    await core.readNamespacedService({ name: 'lookalike', namespace: ns.name });

    // Served again, then moved to another environment: the old copies go, the new ones serve.
    await servedDeployment('shop-review');
    await kubectlApply([
      build.environment(
        'review',
        build.inNamespace(ns.name),
        build.spec({ projectRef: { name: 'gt' }, deploymentRef: { name: 'shop-review', container: 'web' } }),
      ),
    ]);
    await previews({ forks: 'Approve' });
    await previewReady('gt-pr-2', head);
    await previews({ forks: 'Approve', environmentRef: { name: 'review' } });
    await waitFor("the old environment's copies to go and the new one's to serve", async () => {
      const [oldDeployment, oldService] = await copies('shop-web-pr-2');
      const [newDeployment, newService, ingress] = await copies('shop-review-pr-2');
      return !oldDeployment && !oldService && newDeployment && newService && ingress ? true : undefined;
    });
    const ingress = await networking.readNamespacedIngress({ name: 'gt-pr-2', namespace: ns.name });
    expect(ingress.spec?.rules?.[0]?.http?.paths?.[0]?.backend?.service?.name).toBe('shop-review-pr-2');
  });
});
