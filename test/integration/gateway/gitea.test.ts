// Gitea as a provider, with a real Gitea (scripts/gitea/build.sh; the first run builds it, about
// 3 minutes): a repository on it, a webhook of type Gitea pointing at the gateway with the
// project's secret, and a real `git push`. Gitea signs with X-Gitea-Signature and also sends
// GitHub's headers: the delivery must be taken for Gitea's, verified, and become a Bundle. With
// spec.report and a Gitea token, the operator reports the bundle back as a commit status.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BundleObject, ProjectObject } from '../../../crds/index.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import { logger } from '../../../lib/log.ts';
import * as build from '../../support/builders.ts';
import { createNamespace, testKubeConfig, waitFor, kubectlApply } from '../../support/cluster.ts';
import { gitIn, startGitea, type Gitea } from '../../support/gitea.ts';
import { publishedWebhook, startGatewayAndOperator, type GatewayAndOperator } from './support.ts';

const kc = testKubeConfig();
const api = slipwayApi(kc);
const log = logger.child({ test: 'gitea' });
let ns: { name: string; remove: () => Promise<void> };
let slipway: GatewayAndOperator;
let gitea: Gitea;
const work = mkdtempSync(join(tmpdir(), 'slipway-gitea-push-'));

const git = gitIn(work);

beforeAll(async () => {
  gitea = await startGitea();
  ns = await createNamespace(kc, 'gitea');
  slipway = await startGatewayAndOperator(kc, ns.name, log);
  // A token that may write commit statuses, as a user makes one in Gitea's settings.
  const token = await gitea.api<{ sha1: string }>('POST', `/users/${gitea.user}/tokens`, {
    name: 'slipway',
    scopes: ['write:repository'],
  });
  await kubectlApply([
    secret('site-gitea-token', token.sha1),
    secret('wrong-gitea-token', 'not-a-token-0123456789'),
    project('site', 'site-gitea-token'),
    // The same repository, reported with a token Gitea refuses.
    project('site-wrong-token', 'wrong-gitea-token'),
    build.webhook(
      'main',
      build.inNamespace(ns.name),
      build.spec({ projectRef: { name: 'site' }, branch: 'main' }),
    ),
  ]);
}, 600_000);

const secret = (name: string, token: string) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: ns.name },
  stringData: { token },
});

const project = (name: string, tokenSecret: string) =>
  build.project(
    name,
    build.inNamespace(ns.name),
    build.spec({
      slug: `${name}-${ns.name.slice(-6)}`,
      provider: 'gitea',
      repository: { url: `${gitea.url}/${gitea.user}/site.git` },
      report: { tokenSecretRef: { name: tokenSecret, key: 'token' } },
    }),
  );

/** A manual bundle of the project at `commit` (a push needs one to copy the build settings from). */
const manualBundle = (name: string, projectName: string, commit: string) =>
  build.bundle(
    name,
    build.inNamespace(ns.name),
    build.spec({ projectRef: { name: projectName }, source: { git: { commit, branch: 'main' } } }),
  );

afterAll(async () => {
  await slipway?.stop();
  await gitea?.stop();
  await ns?.remove();
  rmSync(work, { recursive: true, force: true });
});

describe('Gitea, a real server', () => {
  let commit: string;

  it('a git push to a repository whose webhook has the project secret becomes a Bundle from Gitea', async () => {
    const { url, secret: hookSecret } = await publishedWebhook(kc, ns.name, 'site');
    await gitea.api('POST', '/user/repos', { name: 'site', default_branch: 'main' });
    await gitea.api('POST', `/repos/${gitea.user}/site/hooks`, {
      type: 'gitea',
      active: true,
      events: ['push'],
      config: { url, content_type: 'json', secret: hookSecret },
    });
    await git('init', '-q', '-b', 'main');
    writeFileSync(join(work, 'index.html'), '<h1>From Gitea</h1>\n');
    await git('add', '.');
    await git('commit', '-q', '-m', 'First page\n\nWith a body that is not the comment.');
    commit = await git('rev-parse', 'HEAD');
    await kubectlApply([manualBundle('site-manual-1', 'site', commit)]);
    await waitFor('the gateway to see the manual bundle', () =>
      slipway.cluster.bundleByName(ns.name, 'site-manual-1'),
    );
    await git('push', '-q', gitea.pushUrl('site'), 'main');

    const bundle = await waitFor('the bundle of the push', async () =>
      (await api.list<BundleObject>('Bundle', ns.name)).find(
        (b) => b.spec.trigger.type === 'Webhook' && b.spec.source.git?.commit === commit,
      ),
    );
    expect(bundle.spec).toMatchObject({
      source: { git: { commit, branch: 'main' } },
      comment: 'First page',
      trigger: { type: 'Webhook', provider: 'gitea', webhookRef: { name: 'main' } },
    });
    // Gitea's delivery id, for its delivery log.
    expect(bundle.spec.trigger.deliveryId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports the built bundle to Gitea as a commit status linking to the bundle, and remembers it was taken', async () => {
    type GiteaStatus = { context: string; status: string; target_url: string; description: string };
    const statuses = await waitFor('a successful slipway/build status on the commit in Gitea', async () => {
      const all = await gitea.api<GiteaStatus[]>(
        'GET',
        `/repos/${gitea.user}/site/commits/${commit}/statuses`,
      );
      return all.some((s) => s.context === 'slipway/build' && s.status === 'success') ? all : undefined;
    });
    const build = statuses.find((s) => s.context === 'slipway/build' && s.status === 'success')!;
    expect(build.target_url).toMatch(new RegExp(`^${slipway.baseUrl}/bundles/${ns.name}/`));
    expect(build.description).toMatch(/^Built bundle /);
    // The link opens the bundle's status.
    expect((await fetch(build.target_url)).status).toBe(200);
    // Taken once: kept on the bundle, and the Project says reporting works.
    const reported = await waitFor('status.reported on the push bundle', async () =>
      (await api.list<BundleObject>('Bundle', ns.name)).find(
        (b) => b.spec.trigger.type === 'Webhook' && b.status?.reported?.length,
      ),
    );
    expect(reported.status?.reported).toEqual([{ context: 'slipway/build', state: 'success' }]);
    const site = await api.get<ProjectObject>('Project', ns.name, 'site');
    expect(site.status?.conditions?.find((c) => c.type === 'Reported')).toMatchObject({
      status: 'True',
      reason: 'Reported',
    });
  });

  it("shows Gitea's refusal of a wrong token on the Project, without the token, and builds all the same", async () => {
    await kubectlApply([manualBundle('wrong-token-1', 'site-wrong-token', commit)]);
    const condition = await waitFor("the Project's Reported condition", async () =>
      (await api.get<ProjectObject>('Project', ns.name, 'site-wrong-token')).status?.conditions?.find(
        (c) => c.type === 'Reported',
      ),
    );
    expect(condition).toMatchObject({ status: 'False', reason: 'ReportFailed' });
    expect(condition.message).toMatch(
      /^Gitea did not take slipway\/build \w+ for commit [0-9a-f]{12} \(bundle wrong-token-1\): HTTP 401/,
    );
    expect(condition.message).not.toContain('not-a-token-0123456789');
    const built = await waitFor('the bundle to finish', async () => {
      const b = await api.get<BundleObject>('Bundle', ns.name, 'wrong-token-1');
      return b.status?.phase === 'Built' ? b : undefined;
    });
    expect(built.status?.reported ?? []).toEqual([]);
  });
});
