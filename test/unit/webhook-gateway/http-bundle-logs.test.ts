// GET /bundles/{namespace}/{name}/logs/{token}: a build's logs at the URL the bundle's
// status.logsUrl holds, read in the build namespace alone (docs/adr/0004).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { BundleObject } from '../../../crds/index.ts';
import type { PodLogs } from '../../../lib/pod-logs.ts';
import { bundleLogsUrl, bundleStatusUrl } from '../../../rules/bundle-status-url.ts';
import { bundle, NAMESPACE, stored } from '../../support/builders.ts';
import { buildJobName } from '../../../rules/build-namespace.ts';
import { SIGNING_KEY, send, startGateway, type Harness } from './support/gateway.ts';

const BUILD_NAMESPACE = 'slipway-builds';
const LOGS: PodLogs[] = [
  {
    pod: 'abcd1234-b1-build-x7k2p',
    namespace: BUILD_NAMESPACE,
    containers: [
      { name: 'fetch', started: true, ended: true, log: 'fetching commit a1b2c3\n' },
      { name: 'build', started: true, ended: false, log: '#1 [internal] load build definition\n' },
      { name: 'push', started: false, ended: false },
    ],
  },
];

let gateway: Harness;
/** What the gateway asked its cluster for, by build namespace and Job. */
const reads: string[] = [];
let slow: Promise<void> | undefined;
beforeAll(async () => {
  gateway = await startGateway({
    buildNamespace: BUILD_NAMESPACE,
    buildLogs: async (namespace, job, uid) => {
      reads.push(`${namespace}/${job} ${uid}`);
      await slow;
      return LOGS;
    },
  });
});
afterAll(async () => {
  await gateway.close();
});
beforeEach(() => {
  gateway.bundles.clear();
  reads.length = 0;
});

/** A cached bundle (uid `uid-<name>`), with the status.build the operator wrote, if any. */
function building(name: string, build?: { namespace: string; job: string }): BundleObject {
  const b = bundle(name, stored());
  b.status = { phase: 'Building', ...(build ? { build } : {}) };
  gateway.bundles.set(name, b);
  return b;
}

const get = (url: string) => send(gateway.baseUrl, new URL(url).pathname, { method: 'GET' });
const logsUrl = (name: string) =>
  bundleLogsUrl(gateway.baseUrl, SIGNING_KEY, { namespace: NAMESPACE, name, uid: `uid-${name}` });

describe('bundle logs URLs', () => {
  it("serve the build's pods and their containers' logs, in order, read in the build namespace", async () => {
    const job = buildJobName(NAMESPACE, 'b1');
    building('b1', { namespace: BUILD_NAMESPACE, job });
    const reply = await get(logsUrl('b1'));
    expect(reply.status).toBe(200);
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(reply.body.toString())).toEqual({
      namespace: NAMESPACE,
      name: 'b1',
      build: { namespace: BUILD_NAMESPACE, job },
      pods: LOGS,
    });
    // Only the pods of this bundle's build: its Job's, labelled with its uid.
    expect(reads).toEqual([`${BUILD_NAMESPACE}/${job} uid-b1`]);
  });

  it('show no pods before the build starts, and read only the Job it works out itself, whatever a status names', async () => {
    building('b2');
    expect(JSON.parse((await get(logsUrl('b2'))).body.toString())).toMatchObject({ build: null, pods: [] });
    expect(reads).toEqual([]);
    building('b3', { namespace: 'kube-system', job: 'coredns' });
    expect(JSON.parse((await get(logsUrl('b3'))).body.toString())).toMatchObject({
      build: { namespace: BUILD_NAMESPACE, job: buildJobName(NAMESPACE, 'b3') },
    });
    expect(reads).toEqual([`${BUILD_NAMESPACE}/${buildJobName(NAMESPACE, 'b3')} uid-b3`]);
  });

  it('do not open for a bundle of the same name made again (another uid)', async () => {
    const old = logsUrl('b4');
    const again = building('b4', { namespace: BUILD_NAMESPACE, job: buildJobName(NAMESPACE, 'b4') });
    again.metadata.uid = 'uid-of-a-newer-b4';
    expect((await get(old)).status).toBe(404);
    expect(reads).toEqual([]);
  });

  it('answer a wrong token, the status token and an unknown bundle alike', async () => {
    building('b1', { namespace: BUILD_NAMESPACE, job: buildJobName(NAMESPACE, 'b1') });
    const forged = `${logsUrl('b1').slice(0, -4)}AAAA`;
    // The status URL's token (given to CI) does not open the logs.
    const statusToken = bundleStatusUrl(gateway.baseUrl, SIGNING_KEY, {
      namespace: NAMESPACE,
      name: 'b1',
      uid: 'uid-b1',
    })
      .split('/')
      .pop();
    const withStatusToken = `${logsUrl('b1').split('/').slice(0, -1).join('/')}/${statusToken}`;
    const answers = await Promise.all([forged, withStatusToken, logsUrl('nope')].map(get));
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404]);
    expect(new Set(answers.map((a) => a.body.toString())).size).toBe(1);
    expect(reads).toEqual([]);
    expect((await send(gateway.baseUrl, new URL(logsUrl('b1')).pathname, { method: 'POST' })).status).toBe(
      405,
    );
  });

  it('read a few at a time, at most two of one namespace: more are asked to come back in a second', async () => {
    building('b1', { namespace: BUILD_NAMESPACE, job: buildJobName(NAMESPACE, 'b1') });
    // Bundles of two other namespaces, as the cache holds them.
    const elsewhere = (name: string, namespace: string) => {
      const b = building(name, { namespace: BUILD_NAMESPACE, job: buildJobName(namespace, name) });
      b.metadata = { ...b.metadata, namespace };
      return bundleLogsUrl(gateway.baseUrl, SIGNING_KEY, { namespace, name, uid: `uid-${name}` });
    };
    const [other, third] = [elsewhere('b2', 'other-team'), elsewhere('b3', 'third-team')];
    let release!: () => void;
    slow = new Promise((resolve) => (release = resolve));
    const held = [logsUrl('b1'), logsUrl('b1')].map(get);
    while (reads.length < 2) await new Promise((resolve) => setImmediate(resolve));
    // One namespace has had its two: the next of it waits, another namespace's goes ahead.
    const sameNamespace = await get(logsUrl('b1'));
    expect(sameNamespace.status).toBe(503);
    expect(sameNamespace.headers['retry-after']).toBe('1');
    expect(JSON.parse(sameNamespace.body.toString()).error.message).toBe(
      `too many log reads of namespace ${NAMESPACE} at once; try again in a second`,
    );
    held.push(get(other), get(other));
    while (reads.length < 4) await new Promise((resolve) => setImmediate(resolve));
    // All four under way: a third namespace waits too.
    const full = await get(third);
    expect(full.status).toBe(503);
    expect(JSON.parse(full.body.toString()).error.message).toBe(
      'too many log reads at once; try again in a second',
    );
    release();
    slow = undefined;
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await get(third)).status).toBe(200);
  });
});
