// Tells a Project's notification receivers (spec.notifications) how each of its bundles ended,
// outside the reconcile path, as the reporter does for commit statuses: the bundle controller's
// life-cycle events only queue a bundle here (outbound/bundle-queue.ts), and a few workers send
// the event its status shows now (happened.ts), in each receiver's format (messages.ts), with
// retries (outbound/call.ts). What each receiver took is kept on the bundle (status.notified), so
// nothing is sent twice for one bundle, after a restart either; what could not be sent shows on
// the Project (condition Notified). Receiver URLs and HMAC keys are read from their Secret when
// needed (lib/secret-reader.ts) and never appear in objects, Events, logs or metric labels.
import type { BundleObject, NotificationEvent, ProjectObject } from '../../crds/index.ts';
import { isNotFound } from '../../lib/kube.ts';
import { objectKey } from '../../lib/informer.ts';
import type { SecretReader } from '../../lib/secret-reader.ts';
import { timeMs } from '../../rules/timestamps.ts';
import type { BundleLifecycleEvent } from '../bundle/lifecycle.ts';
import type { OperatorContext } from '../context.ts';
import { notificationsTotal } from '../metrics.ts';
import { BundleQueue, newestBundle, projectOf, publicBundleUrl } from '../outbound/bundle-queue.ts';
import { call, type CallResult } from '../outbound/call.ts';
import { receiverSecrets, receiverUrlProblem } from '../outbound/receiver.ts';
import { writeProjectCondition, type OutboundCondition } from '../outbound/project-condition.ts';
import { bundleBranch, bundleCommit } from '../report/desired.ts';
import { happened, severityOf, type Happened } from './happened.ts';
import { notificationRequest, type NotificationFacts, type Receiver } from './messages.ts';

type Notification = NonNullable<ProjectObject['spec']['notifications']>[number];

/** After a restart, bundles that finished longer ago than this are not notified. */
const RESUME_WINDOW_MS = 3600_000;
/** Tries of one POST in a round (1 s and 2 s apart, or as Retry-After asks). */
const ATTEMPTS_PER_ROUND = 3;
/** A notification that could not be sent is tried again after 1 min, then twice as late each time. */
const RETRY_FIRST_DELAY_MS = 60_000;
/** The life-cycle events that end a bundle (the only ones with something to tell). */
const ENDINGS = new Set(['Built', 'Deployed', 'RolledBack', 'Failed']);

const wants = (notification: Notification, event: NotificationEvent) =>
  !notification.events || notification.events.includes(event);

export class Notifier {
  readonly #ctx: OperatorContext;
  readonly #secrets: SecretReader;
  readonly #fetch: typeof fetch;
  readonly #queue: BundleQueue;
  /** The receivers that took each bundle's event (also in status.notified once written). */
  readonly #taken = new Map<string, Set<string>>();

  constructor(ctx: OperatorContext, secrets: SecretReader, fetchImpl: typeof fetch) {
    this.#ctx = ctx;
    this.#secrets = secrets;
    this.#fetch = fetchImpl;
    this.#queue = new BundleQueue(
      ctx.log,
      (key) => this.#notify(key),
      () => ctx.now().getTime(),
    );
  }

  /** A bundle life-cycle observer: queues a bundle that ended, never waits. */
  readonly observe = (event: BundleLifecycleEvent): void => {
    if (ENDINGS.has(event.type) && projectOf(this.#ctx, event.bundle)?.spec.notifications?.length)
      this.#queue.observe(event);
  };

  /** After a (re)start: bundles that ended in the last hour and whose receivers may not know it. */
  resume(): void {
    const now = this.#ctx.now().getTime();
    this.#queue.resume(
      this.#ctx.informers.bundles.list().filter((bundle) => {
        const finished = timeMs(bundle.status?.finishedAt);
        if (finished === undefined || now - finished > RESUME_WINDOW_MS) return false;
        const ended = happened(bundle);
        const notified = new Set((bundle.status?.notified ?? []).map((n) => n.name));
        return (
          !!ended &&
          (projectOf(this.#ctx, bundle)?.spec.notifications ?? []).some(
            (n) => wants(n, ended.event) && !notified.has(n.name),
          )
        );
      }),
    );
  }

  /** On losing leadership: nothing queued or remembered survives (the next leader reads status.notified). */
  stop(): void {
    this.#queue.stop();
    this.#taken.clear();
  }

  /** Resolves when nothing is queued or being sent (tests). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  async #notify(key: string): Promise<void> {
    const newest = newestBundle(this.#ctx, key);
    if (!newest) return;
    const { bundle, project } = newest;
    const { name } = bundle.metadata;
    const ended = happened(bundle);
    if (!project.spec.notifications?.length || !ended) return;
    const taken = this.#takenBy(key, bundle);
    const facts = this.#facts(bundle, project, ended);
    type Failure = { condition: OutboundCondition; message: string };
    const sentTo: string[] = [];
    // The receivers at once: a slow or dead one does not hold up the others.
    const results = await Promise.all(
      project.spec.notifications
        .filter((n) => wants(n, ended.event) && !taken.has(n.name))
        .map(async (notification): Promise<Failure | undefined> => {
          let receiver: Receiver | string;
          try {
            receiver = await this.#receiver(project, notification);
          } catch (err) {
            // The API server cannot be reached now: try again later.
            return {
              condition: { type: 'Notified', reason: 'NotificationFailed' },
              message: `notification ${notification.name}: ${(err as Error).message}`,
            };
          }
          if (typeof receiver === 'string')
            return {
              condition: { type: 'Notified', reason: 'NotificationSecretIncomplete' },
              message: receiver,
            };
          const answer = await this.#send(notificationRequest(receiver, facts), notification, receiver);
          if (answer.ok) {
            // Taken, even if this replica is stopping now: kept, so it is never sent again.
            taken.add(notification.name);
            sentTo.push(notification.name);
            return undefined;
          }
          return {
            condition: { type: 'Notified', reason: 'NotificationFailed' },
            message: `receiver ${notification.name} (${notification.type}) did not take ${ended.event} of bundle ${name}: ${answer.problem}`,
          };
        }),
    );
    const failure = results.find((r) => r !== undefined);
    if (this.#queue.stopped) {
      await this.#persist(bundle, ended.event, taken, false);
      return;
    }
    // After a failure the round is tried again anyway: no second retry for a lost status write.
    await this.#persist(bundle, ended.event, taken, !failure);
    if (failure) {
      this.#queue.retryLater(bundle, RETRY_FIRST_DELAY_MS);
      return writeProjectCondition(this.#ctx, project, failure.condition, 'False', failure.message);
    }
    this.#queue.done(bundle);
    if (sentTo.length > 0)
      await writeProjectCondition(
        this.#ctx,
        project,
        { type: 'Notified', reason: 'Notified' },
        'True',
        `${ended.event} of bundle ${name} was sent to ${sentTo.sort().join(', ')}`,
      );
  }

  #facts(bundle: BundleObject, project: ProjectObject, ended: Happened): NotificationFacts {
    const { namespace, name } = bundle.metadata;
    // A rollback bundle builds nothing: its commit is the one of the bundle it runs again.
    const reused = bundle.spec.source.bundleRef?.name;
    const source = reused ? this.#ctx.informers.bundles.get(namespace, reused) : bundle;
    return {
      event: ended.event,
      severity: severityOf(ended.event),
      project: project.metadata.name,
      namespace,
      bundle: name,
      commit: (source && bundleCommit(source)) ?? null,
      branch: (source && bundleBranch(source)) ?? null,
      environment: ended.environment ?? null,
      message: ended.message,
      time: ended.at,
      url: publicBundleUrl(this.#ctx, bundle) ?? null,
    };
  }

  /** The receiver's URL and key from its Secret, or why they cannot be used (no value in it). */
  async #receiver(project: ProjectObject, notification: Notification): Promise<Receiver | string> {
    const namespace = project.metadata.namespace;
    const secret = notification.secretRef.name;
    const where = `notification ${notification.name}: Secret ${secret}`;
    const url = await this.#secrets.value(namespace, secret, 'url', true);
    const problem = receiverUrlProblem(url, where, 'put them in the path or use generic-hmac');
    if (problem || !url) return problem!;
    if (notification.type !== 'generic-hmac') return { type: notification.type, url };
    const hmacKey = await this.#secrets.value(namespace, secret, 'hmacKey');
    if (!hmacKey) return `${where} has no non-empty key hmacKey (type generic-hmac signs with it)`;
    return { type: notification.type, url, hmacKey };
  }

  #takenBy(key: string, bundle: BundleObject): Set<string> {
    let taken = this.#taken.get(key);
    if (!taken) {
      taken = new Set((bundle.status?.notified ?? []).map((n) => n.name));
      if (this.#taken.size > 10_000) this.#taken.clear();
      this.#taken.set(key, taken);
    }
    return taken;
  }

  /** The receivers that took the bundle's event, on the bundle: after a restart none is sent again. */
  async #persist(
    bundle: BundleObject,
    event: NotificationEvent,
    taken: Set<string>,
    retry = true,
  ): Promise<void> {
    const notified = [...taken].sort().map((name) => ({ name, event }));
    if (JSON.stringify(bundle.status?.notified ?? []) === JSON.stringify(notified)) return;
    try {
      await this.#ctx.status.write('Bundle', bundle, { fields: { notified }, conditions: [] });
    } catch (err) {
      // The controller wrote first (409), or the bundle is gone: a later round writes it again.
      if (isNotFound(err)) this.#taken.delete(objectKey(bundle.metadata.namespace, bundle.metadata.name));
      else if (retry) this.#queue.retryLater(bundle, 1000);
    }
  }

  /** One POST, retried as the receiver asks; the URL and key never appear in what is returned. */
  async #send(
    request: ReturnType<typeof notificationRequest>,
    notification: Notification,
    receiver: Receiver,
  ): Promise<CallResult> {
    const result = await call(request, {
      fetch: this.#fetch,
      secrets: receiverSecrets(receiver),
      sleep: (ms) => this.#queue.sleep(ms),
      stopped: () => this.#queue.stopped,
      // A few tries now, the rest later (retryLater): a dead receiver holds no worker for long.
      attempts: ATTEMPTS_PER_ROUND,
    });
    if (!this.#queue.stopped)
      notificationsTotal.inc({
        type: notification.type,
        result: result.ok ? 'accepted' : result.refused ? 'refused' : 'failed',
      });
    return result;
  }
}
