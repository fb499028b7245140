// What every controller of the operator shares.
import type { KubeClients, SlipwayApi } from '../lib/kube.ts';
import type { EventRecorder } from '../lib/events.ts';
import type { Logger } from '../lib/log.ts';
import type { OperatorConfig } from './config.ts';
import type { OperatorInformers } from './informers.ts';
import type { StatusWriter } from './reconcile/status-writer.ts';
import type { RegistryGuard } from './outbound/registry-guard.ts';

export interface OperatorContext {
  config: OperatorConfig;
  clients: KubeClients;
  slipway: SlipwayApi;
  informers: OperatorInformers;
  events: EventRecorder;
  /** The one path by which controllers write status. */
  status: StatusWriter;
  log: Logger;
  now: () => Date;
  /** Whether the registry asks for tokens (SLIPWAY_REGISTRY_AUTH=tokens only). */
  registryGuard?: RegistryGuard;
}
