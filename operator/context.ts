// What every controller of the operator shares.
import type { KubeClients, SlipwayApi } from '../lib/kube.ts';
import type { EventRecorder } from '../lib/events.ts';
import type { Logger } from '../lib/log.ts';
import type { OperatorConfig } from './config.ts';
import type { OperatorInformers } from './informers.ts';

export interface OperatorContext {
  config: OperatorConfig;
  clients: KubeClients;
  slipway: SlipwayApi;
  informers: OperatorInformers;
  events: EventRecorder;
  log: Logger;
  now: () => Date;
}
