// A notification receiver that answers every delivery with 400 MB, against the operator as a
// real process (`node operator/main.ts`): the deliveries are taken, the receiver gets to write
// only what the sockets buffer before Slipway lets the answer go, and the operator's resident
// memory stays where it was (it read whole answers before: 182 → 1,417 MiB for one receiver).
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import type { BundleObject } from '../../../crds/index.ts';
import { bundle, inNamespace, spec } from '../../support/builders.ts';
import { testKubeConfig, waitFor } from '../../support/cluster.ts';
import { startFloodReceiver, type FloodReceiver } from '../../support/flood-receiver.ts';
import {
  clients,
  finishBuildPod,
  projectNamespace,
  spawnOperator,
  waitForBuildJob,
  type TestNamespace,
} from './support.ts';

const MiB = 1024 * 1024;
const ANSWER = 400 * MiB;

let kc: KubeConfig;
let ns: TestNamespace;
let flood: FloodReceiver;
let operator: ChildProcess | undefined;
let output = '';

/** The resident memory of a process, from /proc (Linux). */
function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB$/m);
  if (!line) throw new Error(`no VmRSS for process ${pid}`);
  return Number(line[1]) / 1024;
}

beforeAll(async () => {
  kc = testKubeConfig();
  flood = await startFloodReceiver(ANSWER);
  ns = await projectNamespace(kc, 'op-flood', {
    notifications: [{ name: 'flood', type: 'generic-hmac', secretRef: { name: 'flood' }, events: ['Built'] }],
  });
  await clients(kc).core.createNamespacedSecret({
    namespace: ns.name,
    body: { metadata: { name: 'flood' }, stringData: { url: `${flood.base}/hook`, hmacKey: 'k' } },
  });
  operator = spawnOperator(ns.name, 'operator-flood', (d) => (output = (output + d).slice(-20_000)));
});

afterAll(async () => {
  if (operator && operator.exitCode === null) {
    const exited = new Promise((resolve) => operator!.once('exit', resolve));
    operator.kill('SIGKILL');
    await exited;
  }
  await flood?.close();
  await ns?.remove();
});

/** Builds bundle `name` and waits until its Built notification was taken. */
async function builtAndNotified(name: string): Promise<void> {
  await clients(kc).slipway.create('Bundle', bundle(name, inNamespace(ns.name), spec({})));
  await waitForBuildJob(kc, ns.name, name);
  await finishBuildPod(kc, ns.name, name, 'Succeeded');
  await waitFor(`bundle ${name}'s Built notification taken`, async () => {
    const b = await clients(kc).slipway.get<BundleObject>('Bundle', ns.name, name);
    return b.status?.notified?.some((n) => n.name === 'flood' && n.event === 'Built') ? b : undefined;
  });
}

describe('operator: answers read with a limit', () => {
  it('takes notifications from a receiver answering 400 MB each, its memory unchanged', async () => {
    try {
      const pid = operator!.pid!;
      await builtAndNotified('flood-1');
      const before = rssMiB(pid);
      for (const name of ['flood-2', 'flood-3', 'flood-4']) await builtAndNotified(name);
      const after = rssMiB(pid);
      process.stderr.write(
        `operator RSS ${before.toFixed(1)} → ${after.toFixed(1)} MiB after 3 × 400 MB answers\n`,
      );
      expect(flood.requests).toBe(4);
      // What the sockets took before the answers were let go: a few MiB of 1,600.
      expect(flood.bytesSent).toBeLessThan(4 * 32 * MiB);
      expect(after - before).toBeLessThan(16);
    } catch (err) {
      process.stderr.write(`\n--- operator output ---\n${output}\n`);
      throw err;
    }
  });
});
