// Leader election through a coordination.k8s.io/v1 Lease, as client-go does it:
// - a candidate takes the Lease when it is absent, released (no holder), or when its record has
//   not changed for leaseDurationSeconds as measured on the candidate's own clock (so clock skew
//   between machines does not matter);
// - the leader renews every retry period; if it cannot renew within the renew deadline it
//   stops leading (onStoppedLeading) before any other candidate can take over;
// - writes are replaces carrying the read resourceVersion, so two candidates never both win;
//   resourceVersion is opaque and only compared for equality;
// - stop() releases the Lease so a successor takes over at once.
import { V1MicroTime, type CoordinationV1Api, type V1Lease } from '@kubernetes/client-node';
import { apiMessage, isAlreadyExists, isConflict, isNotFound } from './kube.ts';
import type { Logger } from './log.ts';
import { realTimers, type QueueTimers } from './queue.ts';

/** What the Lease says, reduced to what the decision needs. */
export interface LeaseRecord {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  leaseTransitions?: number;
  acquireTime?: string;
  resourceVersion?: string;
}

/** The last distinct record this candidate saw, and when (on its own clock) it first saw it. */
export interface Observation {
  resourceVersion: string;
  observedAtMs: number;
}

export type LeaseAction =
  | { action: 'create' }
  | { action: 'renew' }
  | { action: 'take'; leaseTransitions: number }
  | { action: 'wait'; holder: string; expiresInMs: number };

/** The pure part: given the current record, what may `identity` do at `nowMs`? */
export function leaseAction(
  record: LeaseRecord | undefined,
  observation: Observation | undefined,
  identity: string,
  nowMs: number,
): LeaseAction {
  if (!record) return { action: 'create' };
  const holder = record.holderIdentity ?? '';
  if (holder === identity) return { action: 'renew' };
  const transitions = (record.leaseTransitions ?? 0) + 1;
  if (holder === '') return { action: 'take', leaseTransitions: transitions };
  // Expiry counts from when we saw this exact record appear, not from its renewTime.
  const since =
    observation && observation.resourceVersion === record.resourceVersion ? observation.observedAtMs : nowMs;
  const expiresInMs = since + (record.leaseDurationSeconds ?? 0) * 1000 - nowMs;
  if (expiresInMs <= 0) return { action: 'take', leaseTransitions: transitions };
  return { action: 'wait', holder, expiresInMs };
}

export interface LeaderElectorOptions {
  api: CoordinationV1Api;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
  log: Logger;
  timers?: QueueTimers;
}

export class LeaderElector {
  private readonly opts: Required<Omit<LeaderElectorOptions, 'timers'>> & { timers: QueueTimers };
  private leading = false;
  private lastRenewMs = 0;
  private observation: Observation | undefined;
  private timer: unknown;
  private stopped = true;
  private inFlight: Promise<void> = Promise.resolve();

  constructor(options: LeaderElectorOptions) {
    this.opts = {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      timers: realTimers,
      ...options,
    };
    if (this.opts.renewDeadlineMs >= this.opts.leaseDurationMs)
      throw new Error('renewDeadlineMs must be shorter than leaseDurationMs');
  }

  isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stop campaigning; a leader releases the Lease so a successor need not wait for it to expire. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.opts.timers.clearTimeout(this.timer);
    await this.inFlight;
    if (!this.leading) return;
    this.leading = false;
    try {
      await this.release();
    } catch (err) {
      this.opts.log.warn({ err: String(err), lease: this.opts.name }, 'could not release the lease');
    }
  }

  private schedule(ms: number) {
    if (this.stopped) return;
    this.timer = this.opts.timers.setTimeout(() => {
      this.inFlight = this.tick();
    }, ms);
  }

  private async tick(): Promise<void> {
    const { timers, retryPeriodMs, renewDeadlineMs, log } = this.opts;
    let holding = false;
    try {
      holding = await withTimeout(this.tryAcquireOrRenew(), renewDeadlineMs);
    } catch (err) {
      log.warn({ err: apiMessage(err), lease: this.opts.name }, 'lease update failed');
    }
    if (this.stopped) return;
    const now = timers.now();
    if (holding) {
      this.lastRenewMs = now;
      if (!this.leading) {
        this.leading = true;
        log.info({ lease: this.opts.name, identity: this.opts.identity }, 'started leading');
        this.opts.onStartedLeading();
      }
    } else if (this.leading && now - this.lastRenewMs >= renewDeadlineMs) {
      this.leading = false;
      log.warn({ lease: this.opts.name }, 'stopped leading: lease not renewed within the deadline');
      this.opts.onStoppedLeading();
    }
    // Candidates spread their attempts a little so they do not hit the API server in step.
    this.schedule(this.leading ? retryPeriodMs : retryPeriodMs * (1 + Math.random() * 0.2));
  }

  /** True when this candidate holds the Lease after the attempt. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const { api, namespace, name, identity, timers, leaseDurationMs } = this.opts;
    let lease: V1Lease | undefined;
    try {
      lease = await api.readNamespacedLease({ name, namespace });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const record = lease ? toRecord(lease) : undefined;
    const now = timers.now();
    if (record?.resourceVersion && record.resourceVersion !== this.observation?.resourceVersion)
      this.observation = { resourceVersion: record.resourceVersion, observedAtMs: now };
    const decision = leaseAction(record, this.observation, identity, now);
    const nowTime = new V1MicroTime(Date.now());
    const durationSeconds = Math.ceil(leaseDurationMs / 1000);
    try {
      if (decision.action === 'create') {
        await api.createNamespacedLease({
          namespace,
          body: {
            metadata: { name, namespace },
            spec: {
              holderIdentity: identity,
              leaseDurationSeconds: durationSeconds,
              acquireTime: nowTime,
              renewTime: nowTime,
              leaseTransitions: 0,
            },
          },
        });
        return true;
      }
      if (decision.action === 'wait') return false;
      const spec = lease!.spec ?? {};
      await api.replaceNamespacedLease({
        name,
        namespace,
        body: {
          metadata: { ...lease!.metadata, name, namespace },
          spec: {
            ...spec,
            holderIdentity: identity,
            leaseDurationSeconds: durationSeconds,
            renewTime: nowTime,
            ...(decision.action === 'take'
              ? { acquireTime: nowTime, leaseTransitions: decision.leaseTransitions }
              : {}),
          },
        },
      });
      return true;
    } catch (err) {
      // Someone else wrote first: we lost this round.
      if (isConflict(err) || isAlreadyExists(err)) return false;
      throw err;
    }
  }

  private async release(): Promise<void> {
    const { api, namespace, name, identity } = this.opts;
    const lease = await api.readNamespacedLease({ name, namespace });
    if ((lease.spec?.holderIdentity ?? '') !== identity) return;
    const now = new V1MicroTime(Date.now());
    await api.replaceNamespacedLease({
      name,
      namespace,
      body: {
        metadata: lease.metadata,
        spec: {
          ...lease.spec,
          holderIdentity: '',
          leaseDurationSeconds: 1,
          renewTime: now,
          acquireTime: now,
        },
      },
    });
    this.opts.log.info({ lease: name }, 'released the lease');
  }
}

function toRecord(lease: V1Lease): LeaseRecord {
  return {
    holderIdentity: lease.spec?.holderIdentity ?? undefined,
    leaseDurationSeconds: lease.spec?.leaseDurationSeconds ?? undefined,
    leaseTransitions: lease.spec?.leaseTransitions ?? undefined,
    resourceVersion: lease.metadata?.resourceVersion,
  };
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
        timer.unref();
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
