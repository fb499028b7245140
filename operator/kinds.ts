// Every kind the operator reconciles, in one list: a new kind is its folder's registration
// (registration.ts) and a line here.
import { bundleRegistration } from './bundle/registration.ts';
import { environmentRegistration } from './environment/registration.ts';
import { previewRegistration } from './preview/registration.ts';
import { projectRegistration } from './project/registration.ts';
import { promotionRegistration } from './promotion/registration.ts';
import type { Registration } from './registration.ts';
import { statusPageRegistration } from './status-page/registration.ts';
import { webhookRegistration } from './webhook/registration.ts';

export const kinds: Registration[] = [
  projectRegistration,
  environmentRegistration,
  webhookRegistration,
  bundleRegistration,
  previewRegistration,
  promotionRegistration,
  statusPageRegistration,
];
