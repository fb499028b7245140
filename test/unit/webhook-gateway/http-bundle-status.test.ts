// GET /bundles/{namespace}/{name}/{token}: the status URL a delivery or upload answer carries.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { bundleStatusUrl } from '../../../rules/bundle-status-url.ts';
import { withOutput } from '../../../rules/container-output.ts';
import { TEST_SECRET, signedFixture } from './support/fixtures.ts';
import { SIGNING_KEY, hookPath, multipart, send, startGateway, type Harness } from './support/gateway.ts';
import { NAMESPACE, PROJECT } from '../../support/builders.ts';
import { baseDirectory, tarGz } from './support/tarballs.ts';

let gateway: Harness;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(async () => {
  await gateway.close();
});
beforeEach(() => gateway.bundles.clear());

async function deliverPush() {
  const { headers, body } = signedFixture('github-push');
  const reply = await send(gateway.baseUrl, hookPath(), { headers, body });
  expect(reply.status).toBe(201);
  return JSON.parse(reply.body.toString()) as { bundles: Array<{ name: string; statusUrl: string }> };
}

async function deliverUpload() {
  const form = multipart(
    { commit: 'c0ffee1234', branch: 'master', comment: 'from CI' },
    { content: await tarGz(baseDirectory()) },
  );
  const reply = await send(gateway.baseUrl, `/uploads/${PROJECT}`, {
    headers: { 'content-type': form.contentType, authorization: `Bearer ${TEST_SECRET}` },
    body: form.body,
  });
  expect(reply.status).toBe(201);
  return JSON.parse(reply.body.toString()) as { bundles: Array<{ name: string; statusUrl: string }> };
}

const get = (url: string) => send(gateway.baseUrl, new URL(url).pathname, { method: 'GET' });

describe('bundle status URLs', () => {
  it('come with every bundle of a delivery, and show what its status shows', async () => {
    const { bundles } = await deliverPush();
    const [created] = bundles;
    expect(created!.statusUrl).toBe(
      bundleStatusUrl(gateway.baseUrl, SIGNING_KEY, {
        namespace: NAMESPACE,
        name: created!.name,
        uid: `uid-${created!.name}`,
      }),
    );
    const pending = await get(created!.statusUrl);
    expect(pending.status).toBe(200);
    expect(pending.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(pending.body.toString())).toMatchObject({
      name: created!.name,
      phase: 'Pending',
      finished: false,
      ready: null,
    });

    gateway.bundles.get(created!.name)!.status = {
      phase: 'Failed',
      conditions: [
        { type: 'Built', status: 'False', reason: 'BuildFailed', message: 'exit 1', lastTransitionTime: 't' },
        { type: 'Ready', status: 'False', reason: 'BuildFailed', message: 'exit 1', lastTransitionTime: 't' },
        {
          type: 'Stalled',
          status: 'True',
          reason: 'BuildFailed',
          message: 'exit 1',
          lastTransitionTime: 't',
        },
      ],
    };
    expect(JSON.parse((await get(created!.statusUrl)).body.toString())).toEqual({
      name: created!.name,
      namespace: NAMESPACE,
      project: 'shop',
      phase: 'Failed',
      finished: true,
      succeeded: false,
      ready: { status: 'False', reason: 'BuildFailed', message: 'exit 1' },
      steps: [{ type: 'Built', status: 'False', reason: 'BuildFailed', message: 'exit 1' }],
      environment: 'prod',
      image: null,
      finishedAt: null,
    });
  });

  it('answer a wrong token and an unknown bundle alike, and only to GET', async () => {
    const { bundles } = await deliverPush();
    const url = bundles[0]!.statusUrl;
    const forged = `${url.slice(0, -4)}AAAA`;
    const unknown = bundleStatusUrl(gateway.baseUrl, SIGNING_KEY, {
      namespace: NAMESPACE,
      name: 'no-such-bundle',
      uid: 'uid-no-such-bundle',
    });
    const [a, b] = [await get(forged), await get(unknown)];
    expect(a.status).toBe(404);
    expect(b.status).toBe(404);
    expect(a.body.toString()).toBe(b.body.toString());
    // One bundle's token does not open another's status.
    const { bundles: more } = await deliverUpload();
    const swapped = `${new URL(more[0]!.statusUrl).pathname.split('/').slice(0, -1).join('/')}/${url.split('/').pop()}`;
    expect(more[0]!.name).not.toBe(bundles[0]!.name);
    expect((await send(gateway.baseUrl, swapped, { method: 'GET' })).status).toBe(404);
    expect((await send(gateway.baseUrl, '/bundles/%zz/a/b', { method: 'GET' })).status).toBe(404);
    expect((await send(gateway.baseUrl, new URL(url).pathname, { method: 'POST' })).status).toBe(405);
  });

  it('do not open for a bundle made later under the same name (a namespace deleted and made again)', async () => {
    const { bundles } = await deliverPush();
    const url = bundles[0]!.statusUrl;
    expect((await get(url)).status).toBe(200);
    const again = gateway.bundles.get(bundles[0]!.name)!;
    gateway.bundles.set(again.metadata.name, {
      ...again,
      metadata: { ...again.metadata, uid: 'uid-of-a-newer-one' },
    });
    expect((await get(url)).status).toBe(404);
  });

  it("show a failed step's summary but not its output, which only the logs URL serves", async () => {
    const { bundles } = await deliverPush();
    const stored = gateway.bundles.get(bundles[0]!.name)!;
    const failed = {
      type: 'Built',
      status: 'False',
      reason: 'BuildFailed',
      message: withOutput(
        'build Job failed: Container build exited with code 1: build step 1 exited with code 2',
        'DATABASE_PASSWORD=hunter2 | done',
      ),
      lastTransitionTime: '2026-11-29T08:00:00Z',
    };
    gateway.bundles.set(stored.metadata.name, {
      ...stored,
      status: {
        phase: 'Failed',
        conditions: [failed, { ...failed, type: 'Ready' }],
      },
    } as typeof stored);
    const shown = JSON.parse((await get(bundles[0]!.statusUrl)).body.toString());
    const summary =
      "build Job failed: Container build exited with code 1: build step 1 exited with code 2 (its output is in the build's logs)";
    expect(shown.ready).toEqual({ status: 'False', reason: 'BuildFailed', message: summary });
    expect(shown.steps).toEqual([
      { type: 'Built', status: 'False', reason: 'BuildFailed', message: summary },
    ]);
    expect(JSON.stringify(shown)).not.toContain('hunter2');
  });
});
