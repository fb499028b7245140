// How a body is signed for a receiver that holds a key (notifications of type generic-hmac,
// status page subscribers with hmacKey): X-Signature: sha256=<hex HMAC-SHA256 of the body>, as
// Flux's notification-controller signs.
import { createHmac } from 'node:crypto';

export const signature = (key: string, body: string) =>
  `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;
