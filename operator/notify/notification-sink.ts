// Tells a Project's notification receivers (spec.notifications) how each of its bundles ended.
// A lane is one bundle and one receiver (`namespace/bundle/receiver`): the bundle controller's
// life-cycle events owe it when a bundle ends, and the event its status shows now
// (bundle-ending.ts) is posted in the receiver's format (types/). What each receiver took is
// kept on the bundle (status.notified), so nothing is sent twice for one bundle, after a restart
// either; what could not be sent shows on the Project (condition Notified). Receiver URLs and
// HMAC keys are read from their Secret when needed and never appear in objects, Events, logs or
// metric labels.
import type { BundleObject, NotifyReason, ProjectObject } from '../../crds/index.ts';
import { timeMs } from '../../rules/timestamps.ts';
import {
  bundleBranch,
  bundleCommit,
  finishedLongAgo,
  laneBundle,
  newestBundle,
  projectOf,
  publicBundleUrl,
  RETRY_WINDOW_MS,
  type BundleSinkDeps,
} from '../subjects/bundles.ts';
import { writeProjectCondition } from '../delivery/project-condition.ts';
import { receiverSecrets } from '../delivery/receiver.ts';
import { readReceiver, wants } from './receivers.ts';
import type { EngineHandle, Problem, Sink } from '../delivery/sink.ts';
import { notificationsTotal } from '../metrics.ts';
import { bundleEnding, severityOf, type BundleEnding } from './bundle-ending.ts';
import { NOTIFIED, notifiedBook } from './notified-book.ts';
import type { NotificationFacts, Receiver } from './facts.ts';
import { notificationRequest } from './types/index.ts';

/** After a restart, bundles that finished longer ago than this are not notified. */
const RESUME_WINDOW_MS = 3600_000;
/** The life-cycle events that end a bundle (the only ones with something to tell). */
const ENDINGS = new Set(['Built', 'Deployed', 'RolledBack', 'Failed']);

const problem = (reason: NotifyReason, message: string): Problem => ({ reason, message });

export function notificationSink({ ctx, secrets, lifecycle }: BundleSinkDeps): Sink {
  let engine: EngineHandle;
  /** Owes each receiver of the bundle's project that wants how it ended and has not taken it. */
  const oweReceivers = (bundle: BundleObject, now = false) => {
    const ended = bundleEnding(bundle);
    if (!ended) return;
    const { namespace, name } = bundle.metadata;
    const taken = engine.receipts(NOTIFIED, `${namespace}/${name}`);
    for (const n of projectOf(ctx, bundle)?.spec.notifications ?? [])
      if (wants(n, ended.event) && !taken.has(n.name)) engine.owe(`${namespace}/${name}/${n.name}`, { now });
  };

  const facts = (bundle: BundleObject, project: ProjectObject, ended: BundleEnding): NotificationFacts => {
    const { namespace, name } = bundle.metadata;
    // A rollback bundle builds nothing: its commit is the one of the bundle it runs again.
    const reused = bundle.spec.source.bundleRef?.name;
    const source = reused ? ctx.informers.bundles.get(namespace, reused) : bundle;
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
      url: publicBundleUrl(ctx, bundle) ?? null,
    };
  };

  return {
    name: 'notification',
    failedReason: 'NotificationFailed' satisfies NotifyReason,
    books: [notifiedBook(ctx)],
    attach(handle) {
      engine = handle;
      lifecycle.subscribe((event) => {
        if (ENDINGS.has(event.type)) oweReceivers(event.bundle, true);
      });
    },
    resume() {
      const now = ctx.now().getTime();
      for (const bundle of ctx.informers.bundles.list()) {
        const finished = timeMs(bundle.status?.finishedAt);
        if (finished !== undefined && now - finished <= RESUME_WINDOW_MS) oweReceivers(bundle);
      }
    },
    async next(lane) {
      const { namespace, name, rest } = laneBundle(lane);
      const newest = newestBundle(ctx, namespace, name);
      const ended = newest && bundleEnding(newest.bundle);
      const notification = newest?.project.spec.notifications?.find((n) => n.name === rest[0]);
      if (!ended || !notification || !wants(notification, ended.event)) return undefined;
      if (engine.receipts(NOTIFIED, `${namespace}/${name}`).has(notification.name)) return undefined;
      let receiver: Receiver | string;
      try {
        receiver = await readReceiver(secrets, namespace, notification);
      } catch (err) {
        // The API server cannot be reached now: try again later.
        return problem('NotificationFailed', `notification ${notification.name}: ${(err as Error).message}`);
      }
      if (typeof receiver === 'string') return problem('NotificationSecretIncomplete', receiver);
      return {
        request: notificationRequest(receiver, facts(newest.bundle, newest.project, ended)),
        secrets: receiverSecrets(receiver),
        receipt: {
          book: NOTIFIED,
          subject: `${namespace}/${name}`,
          id: notification.name,
          value: ended.event,
        },
        refusal: `receiver ${notification.name} (${notification.type}) did not take ${ended.event} of bundle ${name}`,
        labels: { type: notification.type },
      };
    },
    async settled(lane) {
      const { namespace, name } = laneBundle(lane);
      const newest = newestBundle(ctx, namespace, name);
      const ended = newest && bundleEnding(newest.bundle);
      if (!newest || !ended) return;
      // The bundle's receivers together, the failing first: one that took it hides none that did not.
      const receivers = newest.project.spec.notifications ?? [];
      const failing = receivers
        .map((n) => engine.health(`${namespace}/${name}/${n.name}`)?.problem)
        .find((problem) => problem !== undefined);
      if (failing)
        return writeProjectCondition(
          ctx,
          newest.project,
          { type: 'Notified', reason: failing.reason },
          'False',
          failing.message,
        );
      const took = [...engine.receipts(NOTIFIED, `${namespace}/${name}`).keys()].sort();
      if (took.length === 0) return;
      await writeProjectCondition(
        ctx,
        newest.project,
        { type: 'Notified', reason: 'Notified' satisfies NotifyReason },
        'True',
        `${ended.event} of bundle ${name} was sent to ${took.join(', ')}`,
      );
    },
    expired(lane) {
      const { namespace, name } = laneBundle(lane);
      return finishedLongAgo(ctx, namespace, name, RETRY_WINDOW_MS);
    },
    count(labels, result) {
      notificationsTotal.inc({ ...labels, result });
    },
  };
}
