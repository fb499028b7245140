export { createGateway, createGatewayServer, type Gateway } from './app.ts';
export type { GatewayDependencies } from './context.ts';
export type {
  BundleCreation,
  CreateBundles,
  GatewayLogger,
  ProjectBySlug,
  ProjectLookup,
  RequestObservation,
} from './ports.ts';
