// generic-hmac: the generic body, with X-Signature: sha256=<hex HMAC-SHA256 of the body under
// hmacKey> (as Flux's notification-controller signs).
import type { NotificationFormat } from './format.ts';

export const genericHmac: NotificationFormat = { body: (facts) => facts, signed: true };
