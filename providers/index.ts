export {
  isProvider,
  isUnsigned,
  parseDelivery,
  projectProvider,
  providerModule,
  providerModules,
  recogniseProvider,
  registry,
  repositoryProvider,
  unrecognisedDeliveryMessage,
  verifyDelivery,
} from './registry.ts';
export {
  MalformedPayloadError,
  UnsupportedProviderError,
  type BranchChange,
  type DeliverySource,
  type ParsedDelivery,
  type ProviderModule,
  type PullRequestState,
  type RequestHeaders,
} from './provider.ts';
