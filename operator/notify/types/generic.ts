// generic: POST application/json, the event's facts as one object.
import type { NotificationFormat } from './format.ts';

export const generic: NotificationFormat = { body: (facts) => facts };
