export { recogniseProvider } from './recognise.ts';
export { verifyDelivery } from './verify.ts';
export { parseDelivery } from './parse.ts';
export {
  MalformedPayloadError,
  UnsupportedProviderError,
  type BranchChange,
  type DeliverySource,
  type ParsedDelivery,
  type RequestHeaders,
} from './types.ts';
