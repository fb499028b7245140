// Pull-request previews from GitLab, Bitbucket Cloud and Azure DevOps: each provider's real
// payloads (re-signed for the project's secret) replayed against the gateway on a real port, in
// the order a pull request lives — opened, a new head pushed, closed — and the Preview made,
// updated and removed on a real API server.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PreviewObject } from '../../../crds/index.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import { logger } from '../../../lib/log.ts';
import * as build from '../../support/builders.ts';
import { createNamespace, kubectlApply, testKubeConfig, waitFor } from '../../support/cluster.ts';
import {
  deliverPullRequest,
  publishedWebhook,
  startGatewayAndOperator,
  type GatewayAndOperator,
} from './support.ts';

const kc = testKubeConfig();
const api = slipwayApi(kc);
const log = logger.child({ test: 'previews' }, { level: process.env.SLIPWAY_TEST_LOG_LEVEL ?? 'silent' });
let ns: { name: string; remove: () => Promise<void> };
let slipway: GatewayAndOperator;
const hooks: Record<string, { url: string; secret: string }> = {};

const deliver = (project: string, fixture: string, edit?: (body: string) => string) =>
  deliverPullRequest(hooks[project]!, fixture, edit);

const preview = (name: string) => api.get<PreviewObject>('Preview', ns.name, name);
const removed = (name: string) =>
  waitFor(`preview ${name} to go`, async () =>
    preview(name).then(
      () => undefined,
      (err: { code?: number }) => (err.code === 404 ? true : Promise.reject(err)),
    ),
  );

const PROJECTS = {
  gl: { provider: 'gitlab', url: 'https://gitlab.com/demoaccount2-commits-group/test_ci_tmp.git' },
  bb: { provider: 'bitbucket', url: 'https://bitbucket.org/brydzewski/foo.git' },
  az: { provider: 'azure-devops', url: 'https://dev.azure.com/fabrikam/DefaultCollection/_git/Fabrikam' },
} as const;

beforeAll(async () => {
  ns = await createNamespace(kc, 'previews-providers');
  slipway = await startGatewayAndOperator(kc, ns.name, log);
  const inNs = build.inNamespace(ns.name);
  await kubectlApply([
    build.environment('staging', inNs, build.spec({ projectRef: { name: 'gl' } })),
    ...Object.entries(PROJECTS).flatMap(([name, { provider, url }]) => [
      build.project(
        name,
        inNs,
        build.spec({
          slug: `${name}-${ns.name.slice(-6)}`,
          provider,
          repository: { url },
          previews: {
            environmentRef: { name: 'staging' },
            host: 'pr-{number}.{project}.test',
            trigger: 'Always',
          },
        }),
      ),
      build.bundle(`${name}-manual`, inNs, build.spec({ projectRef: { name } })),
    ]),
  ]);
  for (const name of Object.keys(PROJECTS)) hooks[name] = await publishedWebhook(kc, ns.name, name);
});

afterAll(async () => {
  await slipway?.stop();
  await ns?.remove();
});

describe('previews from GitLab, Bitbucket Cloud and Azure DevOps', () => {
  it('GitLab: open makes gl-pr-3 from refs/merge-requests/3/head; new commits update it; closing removes it', async () => {
    expect(await deliver('gl', 'gitlab-merge-request-open')).toMatchObject({
      status: 201,
      body: { result: 'created' },
    });
    expect((await preview('gl-pr-3')).spec).toMatchObject({
      provider: 'gitlab',
      number: 3,
      headCommit: expect.stringMatching(/^2f7670508b/),
      fetchRef: 'refs/merge-requests/3/head',
      author: 'real6543',
    });
    // A real "update with new commits" delivery, of the same merge request (iid 3).
    expect(await deliver('gl', 'gitlab-merge-request-update-new-commits')).toMatchObject({
      status: 200,
      body: { result: 'updated' },
    });
    const updated = await preview('gl-pr-3');
    expect(updated.spec.headCommit).toMatch(/^c136499ec5/);
    // The author who opened it stays: an update names only who acted.
    expect(updated.spec.author).toBe('real6543');
    // The real close delivery, of this merge request (its iid set to 3).
    const closed = await deliver('gl', 'gitlab-merge-request-close', (b) =>
      b.replace('"iid": 4', '"iid": 3'),
    );
    expect(closed).toMatchObject({
      status: 200,
      body: { result: 'removed', reason: 'pull request #3 was closed' },
    });
    await removed('gl-pr-3');
  });

  it('Bitbucket Cloud: created makes bb-pr-1 with the 12-digit head; updated moves it; fulfilled removes it', async () => {
    expect(await deliver('bb', 'bitbucket-pullrequest-created')).toMatchObject({ status: 201 });
    expect((await preview('bb-pr-1')).spec).toMatchObject({ headCommit: '507a576e59b3', fork: false });
    expect((await preview('bb-pr-1')).spec.fetchRef).toBeUndefined();
    expect(await deliver('bb', 'bitbucket-pullrequest-updated')).toMatchObject({
      status: 200,
      body: { result: 'updated' },
    });
    expect((await preview('bb-pr-1')).spec.headCommit).toBe('0704fc5beccc');
    expect(await deliver('bb', 'bitbucket-pullrequest-fulfilled')).toMatchObject({
      status: 200,
      body: { result: 'removed', reason: 'pull request #1 was merged' },
    });
    await removed('bb-pr-1');
  });

  it('Azure DevOps: created makes az-pr-1 fetched from refs/pull/1/merge; a new head updates it; completed removes it', async () => {
    expect(await deliver('az', 'azure-devops-git-pullrequest-created')).toMatchObject({ status: 201 });
    const made = await preview('az-pr-1');
    expect(made.spec).toMatchObject({
      branch: 'mytopic',
      targetBranch: 'master',
      fetchRef: 'refs/pull/1/merge',
    });
    // No public sample of an update by a push: the created delivery with another head commit.
    const head = made.spec.headCommit;
    const pushed = await deliver('az', 'azure-devops-git-pullrequest-created', (b) =>
      b.replaceAll(head, 'c'.repeat(40)),
    );
    expect(pushed).toMatchObject({ status: 200, body: { result: 'updated' } });
    expect((await preview('az-pr-1')).spec.headCommit).toBe('c'.repeat(40));
    expect(await deliver('az', 'azure-devops-git-pullrequest-merged')).toMatchObject({
      status: 200,
      body: { result: 'removed', reason: 'pull request #1 was merged' },
    });
    await removed('az-pr-1');
  });
});
