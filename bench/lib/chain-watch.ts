// Watches a namespace's Bundles, build Jobs and Deployments and notes, per bundle, when this
// process first saw each step of its chain. Both ends of every interval are watch events seen
// by the same process, so the watch delivery delay (mostly) cancels out; the API server's own
// timestamps have one-second precision, too coarse for these intervals.
import type { KubeConfig, V1Deployment, V1Job } from '@kubernetes/client-node';
import { pino } from 'pino';
import type { BundleObject } from '../../crds/index.ts';
import { Informer } from '../../lib/informer.ts';
import { kindPath } from '../../lib/kube.ts';

export interface ChainTimes {
  created?: number;
  jobCreated?: number;
  jobComplete?: number;
  deploymentPatched?: number;
  finished?: number;
  phase?: string;
}

const FINISHED = new Set(['Ready', 'Failed', 'Superseded']);

export class ChainWatch {
  readonly times = new Map<string, ChainTimes>();
  private readonly waiters = new Map<string, () => void>();
  private readonly informers: Array<{ start(): Promise<void>; stop(): Promise<void> }>;

  constructor(kc: KubeConfig, namespace: string) {
    const log = pino({ level: 'silent' });
    const bundles = new Informer<BundleObject>(kc, kindPath('Bundle', namespace), log).onEvent((b, type) => {
      if (type === 'delete') return;
      const t = this.of(b.metadata.name);
      t.created ??= performance.now();
      const phase = b.status?.phase;
      if (phase && (FINISHED.has(phase) || (phase === 'Built' && !b.spec.deploy))) {
        if (t.finished === undefined) {
          t.finished = performance.now();
          t.phase = phase;
        }
        this.waiters.get(b.metadata.name)?.();
      }
    });
    const jobs = new Informer<V1Job>(kc, `/apis/batch/v1/namespaces/${namespace}/jobs`, log).onEvent(
      (j, type) => {
        const bundle = j.metadata?.annotations?.['slipway.dev/bundle'];
        if (type === 'delete' || !bundle || j.metadata?.labels?.['slipway.dev/step'] !== 'build') return;
        const t = this.of(bundle);
        t.jobCreated ??= performance.now();
        if (j.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True'))
          t.jobComplete ??= performance.now();
      },
    );
    const deployments = new Informer<V1Deployment>(
      kc,
      `/apis/apps/v1/namespaces/${namespace}/deployments`,
      log,
    ).onEvent((d, type) => {
      const bundle = d.spec?.template?.metadata?.annotations?.['slipway.dev/bundle'];
      if (type === 'delete' || !bundle) return;
      this.of(bundle).deploymentPatched ??= performance.now();
    });
    this.informers = [bundles, jobs, deployments];
  }

  start(): Promise<void[]> {
    return Promise.all(this.informers.map((i) => i.start()));
  }

  stop(): Promise<void[]> {
    return Promise.all(this.informers.map((i) => i.stop()));
  }

  /** Resolves when the bundle's chain has ended (Ready, Failed, Superseded, or Built without deploy). */
  finished(name: string, timeoutMs: number): Promise<ChainTimes> {
    const t = this.of(name);
    if (t.finished !== undefined) return Promise.resolve(t);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(name);
        reject(new Error(`bundle ${name} did not finish within ${timeoutMs} ms (${JSON.stringify(t)})`));
      }, timeoutMs);
      this.waiters.set(name, () => {
        clearTimeout(timer);
        this.waiters.delete(name);
        resolve(t);
      });
    });
  }

  private of(name: string): ChainTimes {
    let t = this.times.get(name);
    if (!t) this.times.set(name, (t = {}));
    return t;
  }
}
