// The notification types (Project spec.notifications[].type): one file each, one line here. A
// new type is its file, its line, and its name in crds/project.ts's notificationTypes.
import type { NotificationType } from '../../../crds/index.ts';
import type { OutboundRequest } from '../../../lib/outbound-request.ts';
import { signature } from '../../delivery/signature.ts';
import type { NotificationFacts, Receiver } from '../facts.ts';
import { discord } from './discord.ts';
import type { NotificationFormat } from './format.ts';
import { generic } from './generic.ts';
import { genericHmac } from './generic-hmac.ts';
import { msteams } from './msteams.ts';
import { slack } from './slack.ts';

export const notificationFormats: Record<NotificationType, NotificationFormat> = {
  generic,
  'generic-hmac': genericHmac,
  slack,
  msteams,
  discord,
};

const USER_AGENT = 'slipway-notifier';

export function notificationRequest(receiver: Receiver, facts: NotificationFacts): OutboundRequest {
  const format = notificationFormats[receiver.type];
  const body = JSON.stringify(format.body(facts));
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
  if (format.signed && receiver.hmacKey) headers['x-signature'] = signature(receiver.hmacKey, body);
  return { method: 'POST', url: receiver.url, headers, body };
}
