// A Project's notification receivers (spec.notifications), for the sinks that tell them how a
// bundle ended (notification-sink.ts) or what a preview did (preview-notification-sink.ts).
import type { NotificationEvent, ProjectObject } from '../../crds/index.ts';
import type { SecretReader } from '../../lib/secret-reader.ts';
import { receiverUrlProblem } from '../delivery/receiver.ts';
import type { Receiver } from './facts.ts';
import { notificationFormats } from './types/index.ts';

export type Notification = NonNullable<ProjectObject['spec']['notifications']>[number];

/** Whether the receiver takes this event (all of them when it names none). */
export const wants = (notification: Notification, event: NotificationEvent) =>
  !notification.events || notification.events.includes(event);

/** The receiver's URL and key from its Secret, or why they cannot be used (no value in it). */
export async function readReceiver(
  secrets: SecretReader,
  namespace: string,
  notification: Notification,
): Promise<Receiver | string> {
  const secret = notification.secretRef.name;
  const where = `notification ${notification.name}: Secret ${secret}`;
  const url = await secrets.value(namespace, secret, 'url', true);
  const urlProblem = receiverUrlProblem(url, where, 'put them in the path or use generic-hmac');
  if (urlProblem || !url) return urlProblem!;
  if (!notificationFormats[notification.type].signed) return { type: notification.type, url };
  const hmacKey = await secrets.value(namespace, secret, 'hmacKey');
  if (!hmacKey) return `${where} has no non-empty key hmacKey (type ${notification.type} signs with it)`;
  return { type: notification.type, url, hmacKey };
}
