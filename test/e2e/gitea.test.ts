// A real git server end to end on the real node, with no simulated step: Gitea (built from the Go
// module proxy by scripts/gitea/build.sh) hosts the project's repository; a real `git push` makes
// Gitea send its own signed webhook to the gateway; the build Job clones from Gitea, BuildKit
// builds, the rollout serves the pushed page; and Gitea's API then shows the commit's statuses
// going pending → success, linking to the bundle, and a signed notification says it was deployed.
// A push that cannot build shows failure there, is notified as BuildFailed, and leaves the last
// good page serving. A pull request with the preview label is built and served at its own host
// through the node's ingress controller, follows a push, and is removed when it is merged.
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applicationNamespace } from './support/restricted.ts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BundleObject, PreviewObject } from '../../crds/index.ts';
import { slipwayApi } from '../../lib/kube.ts';
import { realNode } from '../../scripts/cluster/real-node.ts';
import { kubectlPatch, testKubeConfig, testState, waitFor, kubectlApply } from '../support/cluster.ts';
import { startGitea, type Gitea } from '../support/gitea.ts';
import { giteaRepo, type GiteaRepo } from './support/gitea-repo.ts';
import { finalBundle, readyCondition, servedPage, step } from './support/chain.ts';
import { track } from './support/leftovers.ts';
import { startSlipway, type Slipway } from './support/slipway.ts';
import { previewGone, servedThroughIngress } from './support/ingress.ts';
import {
  siteWebhook,
  webDeployment,
  webService,
  siteManualBundle,
  mainToStagingWebhook,
} from './support/site-objects.ts';

const kc = testKubeConfig();
const api = slipwayApi(kc);
const node = realNode();
const web = node.baseImages['static-web']!;
let ns: { name: string; remove: () => Promise<void> };
let gitea: Gitea;
let repo: GiteaRepo;
let slipway: Slipway;
let receiver: Server;
const HMAC_KEY = 'e2e-notification-key';
/** What the notification receiver got: each body, and whether its signature was right. */
const notified: Array<{ body: { event: string; bundle: string; commit: string }; signed: boolean }> = [];

const it$ = (name: string, fn: () => Promise<void>) =>
  it(
    name,
    step(() => ns.name, fn),
  );

const apply = (...objects: unknown[]) => kubectlApply(objects, '-n', ns.name);

/** The bundle the push of `commit` made (from Gitea's delivery). */
const bundleOf = (commit: string) =>
  waitFor(`the bundle of Gitea's delivery for ${commit.slice(0, 7)}`, async () =>
    (await api.list<BundleObject>('Bundle', ns.name)).find(
      (b) => b.spec.trigger.type === 'Webhook' && b.spec.source.git?.commit === commit,
    ),
  );

const staging = (bundle?: string) => servedPage(kc, ns.name, 'site-staging', web.port, bundle);

beforeAll(
  step(
    () => ns?.name ?? 'e2e-gitea',
    async () => {
      // A notification receiver on this machine, where the operator runs.
      receiver = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const raw = Buffer.concat(chunks);
          const expected = `sha256=${createHmac('sha256', HMAC_KEY).update(raw).digest('hex')}`;
          notified.push({
            body: JSON.parse(raw.toString('utf8')),
            signed: req.headers['x-signature'] === expected,
          });
          res.end();
        });
      }).listen(0, '127.0.0.1');
      await new Promise((resolve) => receiver.once('listening', resolve));
      const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/slipway`;
      gitea = await startGitea({
        publicAddress: node.hostAddress,
        started: (child, program) => track(child, program),
      });
      ns = await applicationNamespace(kc, 'e2e-gitea');
      slipway = await startSlipway(testState().controllerKubeconfig, ns.name, node);
      // A token that may write commit statuses, made as a user makes one in Gitea's settings.
      const token = await gitea.api<{ sha1: string }>('POST', `/users/${gitea.user}/tokens`, {
        name: 'slipway',
        // Commit statuses; and comments on pull requests (issues), for previews.
        scopes: ['write:repository', 'write:issue'],
      });
      repo = await giteaRepo(gitea, 'site');
      await apply(
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'site-gitea-token' },
          stringData: { token: token.sha1 },
        },
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'ops-hook' },
          stringData: { url: receiverUrl, hmacKey: HMAC_KEY },
        },
        webDeployment('site-staging', web),
        {
          apiVersion: 'slipway.dev/v1alpha1',
          kind: 'Project',
          metadata: { name: 'site' },
          spec: {
            slug: `site-${ns.name}`,
            provider: 'gitea',
            // Pods clone from Gitea at the host address; the operator, on this machine, calls its
            // API over loopback (a token goes in cleartext only there).
            repository: { url: `${gitea.publicUrl}/${repo.path}.git` },
            report: {
              tokenSecretRef: { name: 'site-gitea-token', key: 'token' },
              apiUrl: `${gitea.url}/api/v1`,
            },
            notifications: [{ name: 'ops', type: 'generic-hmac', secretRef: { name: 'ops-hook' } }],
          },
        },
        {
          apiVersion: 'slipway.dev/v1alpha1',
          kind: 'Environment',
          metadata: { name: 'staging' },
          spec: { projectRef: { name: 'site' }, deploymentRef: { name: 'site-staging', container: 'web' } },
        },
        mainToStagingWebhook(false),
      );
    },
  ),
  600_000,
);

afterAll(async () => {
  await slipway?.stop();
  await gitea?.stop();
  receiver?.close();
  await ns?.remove();
  repo?.remove();
});

describe('Gitea hosting the repository, on a real node', () => {
  let v2: string;

  it$(
    'a first commit built by hand gives pushes their build settings, and shows on the commit in Gitea',
    async () => {
      const v1 = await repo.push('main', { 'web/index.html': '<h1>Gitea v1</h1>\n' }, 'First version');
      await apply(siteManualBundle('site-manual-1', { commit: v1 }, web.image));
      // It deploys nothing: it ends Built (or Failed).
      const built = await waitFor(
        'bundle site-manual-1 to be built',
        async () => {
          const b = await api.get<BundleObject>('Bundle', ns.name, 'site-manual-1');
          return b.status?.phase === 'Built' || b.status?.phase === 'Failed' ? b : undefined;
        },
        300_000,
        500,
      );
      expect(built.status?.phase).toBe('Built');
      const { states } = await repo.statusesOf(v1, (s) => s['slipway/build']?.at(-1) === 'success');
      expect(states['slipway/build']![0]).toBe('pending');
    },
  );

  it$(
    "a git push makes Gitea's own webhook build and deploy it: the page is served and Gitea shows success",
    async () => {
      const { url, secret } = await siteWebhook(ns.name);
      await gitea.api('POST', `/repos/${repo.path}/hooks`, {
        type: 'gitea',
        active: true,
        events: ['push'],
        config: { url, content_type: 'json', secret },
      });
      v2 = await repo.push('main', { 'web/index.html': '<h1>Gitea v2</h1>\n' }, 'Second version');
      const bundle = await bundleOf(v2);
      expect(bundle.spec.trigger).toMatchObject({ type: 'Webhook', provider: 'gitea' });
      const done = await finalBundle(kc, ns.name, bundle.metadata.name);
      expect(done.status?.phase).toBe('Ready');
      expect(await staging(bundle.metadata.name)).toBe('200 <h1>Gitea v2</h1>\n');

      const { states, all } = await repo.statusesOf(
        v2,
        (s) =>
          s['slipway/build/staging']?.at(-1) === 'success' &&
          s['slipway/deploy/staging']?.at(-1) === 'success',
      );
      expect(states['slipway/build/staging']![0]).toBe('pending');
      expect(states['slipway/deploy/staging']![0]).toBe('pending');
      // Each links to the bundle's status, which opens without credentials.
      const deployed = all.find((s) => s.context === 'slipway/deploy/staging' && s.status === 'success')!;
      expect(deployed.description).toBe('Deployed to staging');
      expect(deployed.target_url).toMatch(new RegExp(`/bundles/${ns.name}/${bundle.metadata.name}/`));
      const page = await fetch(deployed.target_url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(bundle.metadata.name);
      const news = await waitFor('the Deployed notification', () =>
        notified.find((n) => n.body.event === 'Deployed' && n.body.bundle === bundle.metadata.name),
      );
      expect(news).toMatchObject({ signed: true, body: { commit: v2, environment: 'staging' } });
    },
  );

  it$('a push that cannot build shows failure in Gitea and leaves the page serving', async () => {
    const v3 = await repo.push(
      'main',
      { web: null, 'README.md': 'No web directory any more\n' },
      'Remove the site',
    );
    const bundle = await bundleOf(v3);
    const done = await finalBundle(kc, ns.name, bundle.metadata.name);
    expect(done.status?.phase).toBe('Failed');
    expect(readyCondition(done)?.reason).toBe('BuildFailed');
    const { states, all } = await repo.statusesOf(
      v3,
      (s) => s['slipway/build/staging']?.at(-1) === 'failure',
    );
    expect(states['slipway/build/staging']![0]).toBe('pending');
    expect(states['slipway/deploy/staging']).toBeUndefined();
    expect(all.find((s) => s.status === 'failure')!.description).not.toBe('');
    expect(await staging()).toBe('200 <h1>Gitea v2</h1>\n');
    const news = await waitFor('the BuildFailed notification', () =>
      notified.find((n) => n.body.bundle === bundle.metadata.name),
    );
    expect(news).toMatchObject({ signed: true, body: { event: 'BuildFailed', commit: v3 } });
  });
});

describe('a preview of a Gitea pull request, on a real node', () => {
  const host = 'pr-1.site.preview.test';
  const preview = () => api.get<PreviewObject>('Preview', ns.name, 'site-pr-1');
  const served = (page: string) => servedThroughIngress(node.ingress.port, host, page);

  it$(
    'a pull request with the label is built from refs/pull/1/head and served at its host through the Ingress',
    async () => {
      await apply(webService('site-staging', web.port));
      // Previews on, as a user turns them on (kubectl patch keeps the rest of the spec).
      await kubectlPatch('project', 'site', ns.name, {
        spec: {
          previews: { environmentRef: { name: 'staging' }, host: 'pr-{number}.{project}.preview.test' },
        },
      });
      // The webhook now also sends pull-request events, as docs/previews.md says to tick them.
      const [hook] = await gitea.api<Array<{ id: number }>>('GET', `/repos/${repo.path}/hooks`);
      await gitea.api('PATCH', `/repos/${repo.path}/hooks/${hook!.id}`, {
        events: ['push', 'pull_request', 'pull_request_label', 'pull_request_sync'],
      });
      const label = await gitea.api<{ id: number }>('POST', `/repos/${repo.path}/labels`, {
        name: 'preview',
        color: '#00aabb',
      });
      const head = await repo.push(
        'feature',
        { 'web/index.html': '<h1>Preview one</h1>\n' },
        'Try a new page',
      );
      const opened = Date.now();
      await repo.openPullRequest('feature', 'A new page', { labels: [label.id] });
      await served('<h1>Preview one</h1>\n');
      console.log(`pull request opened to preview served: ${((Date.now() - opened) / 1000).toFixed(1)} s`);
      const ready = await preview();
      expect(ready.spec).toMatchObject({
        number: 1,
        headCommit: head,
        fetchRef: 'refs/pull/1/head',
        fork: false,
      });
      expect(ready.status).toMatchObject({ phase: 'Ready', url: `http://${host}`, deployedCommit: head });
      // Staging still serves main.
      expect(await staging()).toBe('200 <h1>Gitea v2</h1>\n');
      // Told on the pull request, in Gitea: one comment with the URL, and slipway/preview.
      const [comment, ...more] = await repo.commentsSaying(1, 'ready', head);
      expect(more).toEqual([]);
      expect(comment!.body).toContain(`| URL | http://${host} |`);
      const { all } = await repo.statusesOf(head, (s) => s['slipway/preview']?.at(-1) === 'success');
      expect(all.find((s) => s.context === 'slipway/preview' && s.status === 'success')!.target_url).toBe(
        `http://${host}`,
      );
    },
  );

  it$('a push to the pull request replaces the preview; merging it removes everything', async () => {
    const head = await repo.push('feature', { 'web/index.html': '<h1>Preview two</h1>\n' }, 'Better page');
    await served('<h1>Preview two</h1>\n');
    expect((await preview()).status?.deployedCommit).toBe(head);
    // The same comment, edited in place.
    expect(await repo.commentsSaying(1, 'ready', head)).toHaveLength(1);
    await gitea.api('POST', `/repos/${repo.path}/pulls/1/merge`, { Do: 'merge' });
    await previewGone(ns.name, 1, node.ingress.port, host);
    // The comment said so before the preview went.
    expect(await repo.commentsSaying(1, 'removed', head)).toHaveLength(1);
  });
});
