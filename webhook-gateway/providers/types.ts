import type { Provider } from '../../crds/index.ts';

/**
 * Where a delivery came from. `bitbucket-server` (Bitbucket Server / Data Center) is recognised
 * only to tell its users clearly that it is not supported: its payload differs from Bitbucket
 * Cloud's and carries no commit message.
 */
export type DeliverySource = Provider | 'bitbucket-server';

/** Request headers as node:http gives them: lower-case names. */
export type RequestHeaders = Record<string, string | string[] | undefined>;

/** One branch that now points at a new commit. */
export interface BranchChange {
  branch: string;
  commit: string;
  /** First line of the head commit's message; empty when the provider sent none. */
  comment: string;
}

/** A verified delivery, reduced to what builds bundles. */
export type ParsedDelivery =
  | { kind: 'push'; provider: Provider; deliveryId: string | undefined; changes: BranchChange[] }
  | { kind: 'ignored'; provider: Provider; deliveryId: string | undefined; reason: string };

/** The body is not what the provider's documented payload looks like: HTTP 400. */
export class MalformedPayloadError extends Error {
  readonly code = 'malformed_payload';
  override name = 'MalformedPayloadError';
}

/** A delivery from a provider Slipway recognises but does not support: HTTP 400. */
export class UnsupportedProviderError extends Error {
  readonly code = 'unsupported_provider';
  override name = 'UnsupportedProviderError';
}

/** First value of a header, or undefined. */
export function headerValue(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
