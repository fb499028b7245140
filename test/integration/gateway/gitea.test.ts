// Gitea as a provider, with a real Gitea (scripts/gitea/build.sh; the first run builds it, about
// 3 minutes): a repository on it, a webhook of type Gitea pointing at the gateway with the
// project's secret, and a real `git push`. Gitea signs with X-Gitea-Signature and also sends
// GitHub's headers: the delivery must be taken for Gitea's, verified, and become a Bundle.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import type { BundleObject } from '../../../crds/index.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import { logger } from '../../../lib/log.ts';
import * as build from '../../support/builders.ts';
import { createNamespace, kubectl, testKubeConfig, waitFor } from '../../support/cluster.ts';
import { startGitea, type Gitea } from '../../support/gitea.ts';
import { publishedWebhook, startGatewayAndOperator, type GatewayAndOperator } from './support.ts';

const run = promisify(execFile);
const kc = testKubeConfig();
const api = slipwayApi(kc);
const log = logger.child({ test: 'gitea' });
let ns: { name: string; remove: () => Promise<void> };
let slipway: GatewayAndOperator;
let gitea: Gitea;
const work = mkdtempSync(join(tmpdir(), 'slipway-gitea-push-'));

async function git(...args: string[]): Promise<string> {
  const { stdout } = await run('git', ['-C', work, ...args], {
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Dev',
      GIT_AUTHOR_EMAIL: 'dev@example.com',
      GIT_COMMITTER_NAME: 'Dev',
      GIT_COMMITTER_EMAIL: 'dev@example.com',
    },
  });
  return stdout.trim();
}

beforeAll(async () => {
  gitea = await startGitea();
  ns = await createNamespace(kc, 'gitea');
  slipway = await startGatewayAndOperator(kc, ns.name, log);
  const inNs = build.inNamespace(ns.name);
  await kubectl(
    ['apply', '-f', '-'],
    [
      build.project(
        'site',
        inNs,
        build.spec({
          slug: `site-${ns.name.slice(-6)}`,
          provider: 'gitea',
          repository: { url: `${gitea.url}/${gitea.user}/site.git` },
        }),
      ),
      build.webhook('main', inNs, build.spec({ projectRef: { name: 'site' }, branch: 'main' })),
      build.bundle('site-manual-1', inNs, build.spec({ projectRef: { name: 'site' } })),
    ]
      .map((o) => stringify(o))
      .join('---\n'),
  );
}, 600_000);

afterAll(async () => {
  await slipway?.stop();
  await gitea?.stop();
  await ns?.remove();
  rmSync(work, { recursive: true, force: true });
});

describe('Gitea, a real server', () => {
  it('a git push to a repository whose webhook has the project secret becomes a Bundle from Gitea', async () => {
    const { url, secret } = await publishedWebhook(kc, ns.name, 'site');
    await gitea.api('POST', '/user/repos', { name: 'site', default_branch: 'main' });
    await gitea.api('POST', `/repos/${gitea.user}/site/hooks`, {
      type: 'gitea',
      active: true,
      events: ['push'],
      config: { url, content_type: 'json', secret },
    });
    await git('init', '-q', '-b', 'main');
    writeFileSync(join(work, 'index.html'), '<h1>From Gitea</h1>\n');
    await git('add', '.');
    await git('commit', '-q', '-m', 'First page\n\nWith a body that is not the comment.');
    const commit = await git('rev-parse', 'HEAD');
    await git('push', '-q', gitea.pushUrl('site'), 'main');

    const bundle = await waitFor('the bundle of the push', async () =>
      (await api.list<BundleObject>('Bundle', ns.name)).find((b) => b.spec.source.git?.commit === commit),
    );
    expect(bundle.spec).toMatchObject({
      source: { git: { commit, branch: 'main' } },
      comment: 'First page',
      trigger: { type: 'Webhook', provider: 'gitea', webhookRef: { name: 'main' } },
    });
    // Gitea's delivery id, for its delivery log.
    expect(bundle.spec.trigger.deliveryId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
