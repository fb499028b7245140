// Pull requests on a real Gitea previewed by the installed release: served at their own host
// through the Ingress with the chart's rights, told on the pull request, removed on merge; a
// fork's is not built. One step of test/e2e/installed.test.ts.
import { expect } from '@jest/globals';
import type { BundleObject, PreviewObject } from '../../../crds/index.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import { kubectl, kubectlApply, kubectlPatch, testKubeConfig, waitFor } from '../../support/cluster.ts';
import { servedPage } from '../support/chain.ts';
import { giteaRepo } from '../support/gitea-repo.ts';
import { previewGone, servedThroughIngress } from '../support/ingress.ts';
import { webService } from '../support/site-objects.ts';
import type { InstalledScene } from './scene.ts';

const kc = testKubeConfig();
const api = slipwayApi(kc);

export async function previewsOnGitea({
  ns,
  node,
  git,
  gitea,
  hookUrl,
  secret,
}: InstalledScene): Promise<void> {
  const web = node.baseImages['static-web']!;
  const apply = (...objects: unknown[]) => kubectlApply(objects, '-n', ns.name);
  // The repository moves to Gitea with its history; the project follows, and reports there
  // through Gitea's API over HTTPS (the operator sends a token over HTTPS only).
  const repo = await giteaRepo(gitea, 'site', git.url);
  const token = await gitea.api<{ sha1: string }>('POST', `/users/${gitea.user}/tokens`, {
    name: 'slipway',
    scopes: ['write:repository', 'write:issue'],
  });
  await apply(webService('site-staging', web.port), {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'site-gitea-token' },
    stringData: { token: token.sha1 },
  });
  await kubectlPatch('project', 'site', ns.name, {
    spec: {
      provider: 'gitea',
      repository: { url: `${gitea.publicUrl}/${repo.path}.git` },
      report: { tokenSecretRef: { name: 'site-gitea-token', key: 'token' }, apiUrl: gitea.tls!.apiUrl },
      previews: { environmentRef: { name: 'staging' }, host: 'pr-{number}.site.installed.test' },
    },
  });
  await gitea.api('POST', `/repos/${repo.path}/hooks`, {
    type: 'gitea',
    active: true,
    events: ['pull_request', 'pull_request_label', 'pull_request_sync'],
    config: { url: hookUrl, content_type: 'json', secret },
  });
  const label = await gitea.api<{ id: number }>('POST', `/repos/${repo.path}/labels`, {
    name: 'preview',
    color: '#00aabb',
  });
  const head = await repo.push('feature', { 'web/index.html': '<h1>Installed preview</h1>\n' }, 'A preview');
  const opened = Date.now();
  const number = await repo.openPullRequest('feature', 'A preview', { labels: [label.id] });
  const host = `pr-${number}.site.installed.test`;
  await servedThroughIngress(node.ingress.port, host, '<h1>Installed preview</h1>\n');
  console.log(
    `installed: pull request opened to preview served: ${((Date.now() - opened) / 1000).toFixed(1)} s`,
  );
  // Staging is untouched.
  expect(await servedPage(kc, ns.name, 'site-staging', web.port)).not.toContain('Installed preview');
  // One comment with the URL, and slipway/preview linking to it.
  const [comment, ...more] = await repo.commentsSaying(number, 'ready', head);
  expect(more).toEqual([]);
  expect(comment!.body).toContain(`| URL | http://${host} |`);
  const { all } = await repo.statusesOf(head, (s) => s['slipway/preview']?.at(-1) === 'success');
  expect(all.find((s) => s.context === 'slipway/preview')!.target_url).toBe(`http://${host}`);
  // A push: the new page, and the same comment edited.
  const pushed = await repo.push('feature', { 'web/index.html': '<h1>Installed, pushed</h1>\n' }, 'Again');
  await servedThroughIngress(node.ingress.port, host, '<h1>Installed, pushed</h1>\n');
  const edited = await repo.commentsSaying(number, 'ready', pushed);
  expect(edited.map((c) => c.id)).toEqual([comment!.id]);
  await repo.statusesOf(pushed, (s) => s['slipway/preview']?.at(-1) === 'success');

  // A fork's pull request, labelled by a maintainer: forks are Deny, so nothing builds and
  // the pull request is told why.
  const bob = await gitea.addUser('bob');
  await bob.api('POST', `/repos/${repo.path}/forks`, {});
  const forkHead = await repo.push(
    'fix',
    { 'web/index.html': '<h1>Forked</h1>\n' },
    'Fork',
    bob.pushUrl('site'),
  );
  const forked = await repo.openPullRequest('bob/site:fix', 'From a fork', { api: bob.api });
  await gitea.api('POST', `/repos/${repo.path}/issues/${forked}/labels`, { labels: [label.id] });
  const [told] = await repo.commentsSaying(forked, 'forks is Deny', forkHead);
  expect(told!.body).toContain('waiting');
  expect((await api.get<PreviewObject>('Preview', ns.name, `site-pr-${forked}`)).spec.fork).toBe(true);
  const bundles = await api.list<BundleObject>('Bundle', ns.name);
  expect(bundles.filter((b) => b.spec.trigger.previewRef?.name === `site-pr-${forked}`)).toEqual([]);
  const copies = await kubectl(['get', 'deployments,services,ingresses', '-n', ns.name, '-o', 'name']);
  expect(copies.stdout).not.toMatch(new RegExp(`pr-${forked}\\b`));

  // Merged: the preview goes within a minute, and its comment says so.
  const merged = Date.now();
  await gitea.api('POST', `/repos/${repo.path}/pulls/${number}/merge`, { Do: 'merge' });
  await previewGone(ns.name, number, node.ingress.port, host);
  console.log(
    `installed: pull request merged to preview gone: ${((Date.now() - merged) / 1000).toFixed(1)} s`,
  );
  expect((await repo.commentsSaying(number, 'removed', pushed)).map((c) => c.id)).toEqual([comment!.id]);
  // Closed: the fork's Preview goes too.
  await gitea.api('PATCH', `/repos/${repo.path}/pulls/${forked}`, { state: 'closed' });
  await waitFor(
    "the fork's Preview to go",
    async () => (await api.list<PreviewObject>('Preview', ns.name)).length === 0 || undefined,
  );
  repo.remove();
}
