// What a notification type is: the body it posts for one event, and whether it signs it.
import type { NotificationFacts } from '../facts.ts';

export interface NotificationFormat {
  /** The JSON body posted to the receiver. */
  body(facts: NotificationFacts): unknown;
  /** Signs the body with the Secret's hmacKey, which it then needs (X-Signature). */
  readonly signed?: boolean;
}
