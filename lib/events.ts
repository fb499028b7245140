// Kubernetes Events (events.k8s.io/v1) for `kubectl describe` and `kubectl events`.
// A repeat of the same event for the same object within the series window bumps its series
// count instead of creating another Event, as client-go's recorder does.
import { createHash } from 'node:crypto';
import { V1MicroTime, type EventsV1Api } from '@kubernetes/client-node';
import type { Logger } from './log.ts';
import { apiMessage, mergePatch } from './kube.ts';

const SERIES_WINDOW_MS = 10 * 60_000;
const MAX_TRACKED = 4096;

export interface EventTarget {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; uid?: string };
}

export class EventRecorder {
  private readonly seen = new Map<string, { name: string; count: number; first: number }>();
  private readonly api: EventsV1Api;
  private readonly controller: string;
  private readonly instance: string;
  private readonly log: Logger;

  constructor(api: EventsV1Api, controller: string, instance: string, log: Logger) {
    this.api = api;
    this.controller = controller;
    this.instance = instance;
    this.log = log;
  }

  normal(target: EventTarget, reason: string, note: string, action = reason): Promise<void> {
    return this.record(target, 'Normal', reason, note, action);
  }

  warning(target: EventTarget, reason: string, note: string, action = reason): Promise<void> {
    return this.record(target, 'Warning', reason, note, action);
  }

  /** Never throws: an event that cannot be written is logged and dropped. */
  async record(
    target: EventTarget,
    type: 'Normal' | 'Warning',
    reason: string,
    note: string,
    action: string,
  ) {
    const { namespace, name, uid } = target.metadata;
    const key = `${namespace}/${name}/${uid}/${type}/${reason}/${note}`;
    const now = Date.now();
    const known = this.seen.get(key);
    try {
      if (known && now - known.first < SERIES_WINDOW_MS) {
        known.count += 1;
        await this.api.patchNamespacedEvent(
          {
            name: known.name,
            namespace,
            body: { series: { count: known.count, lastObservedTime: new V1MicroTime(now).toISOString() } },
          },
          mergePatch,
        );
        return;
      }
      const eventName = `${name}.${createHash('sha256').update(`${key}/${now}`).digest('hex').slice(0, 16)}`;
      await this.api.createNamespacedEvent({
        namespace,
        body: {
          metadata: { name: eventName, namespace },
          // MicroTime: the API server wants six fractional digits, which V1MicroTime writes.
          eventTime: new V1MicroTime(now),
          reportingController: this.controller,
          reportingInstance: this.instance,
          action,
          reason,
          note: note.slice(0, 1024),
          type,
          regarding: { apiVersion: target.apiVersion, kind: target.kind, name, namespace, uid },
        },
      });
      if (this.seen.size >= MAX_TRACKED) this.seen.delete(this.seen.keys().next().value!);
      this.seen.set(key, { name: eventName, count: 1, first: now });
    } catch (err) {
      this.seen.delete(key);
      this.log.warn(
        { err: apiMessage(err), reason, object: `${namespace}/${name}` },
        'could not record event',
      );
    }
  }
}
