// What Slipway knows about a git provider, as one module per provider (github.ts, gitlab.ts, …)
// registered in registry.ts: how its deliveries are recognised, verified and parsed, what its
// webhook form asks for (`kubectl slipway hook --provider`), and the hosts of its public service.
// The gateway, the CLI and (next) the operator's reporting read providers only through it.
import type { Provider } from '../crds/index.ts';
import type { ReportApi } from './report.ts';
import type { PullRequestState } from '../rules/preview-plan.ts';

export type { PullRequestState } from '../rules/preview-plan.ts';

export type { Provider } from '../crds/index.ts';

/**
 * Deliveries recognised only to be refused clearly, and the provider whose module recognises
 * them: Bitbucket Server / Data Center sends Bitbucket's event header, but its payload differs
 * from Bitbucket Cloud's and carries no commit message.
 */
export const lookAlikes = { 'bitbucket-server': 'bitbucket' } as const satisfies Record<string, Provider>;
export type LookAlike = keyof typeof lookAlikes;

/** Where a delivery came from: a provider, or a look-alike that is refused. */
export type DeliverySource = Provider | LookAlike;

export interface ProviderModule<P extends Provider = Provider> {
  readonly name: P;
  /** The provider's name as people know it. */
  readonly title: string;
  /** Hosts of the provider's public service: a repository URL on one needs no spec.provider. */
  readonly publicHosts: RegExp;
  /** What marks its deliveries, for the 400 answer to a delivery no module recognises. */
  readonly recognisedBy: string;
  /** This provider's delivery (or a look-alike's); undefined when it is not. Modules are asked in registry order. */
  recognise(headers: RequestHeaders, body: Buffer): P | LookAlike | undefined;
  /** Whether the delivery's signature or secret is right: constant-time. */
  verify(headers: RequestHeaders, body: Buffer, secret: string): boolean;
  /**
   * Providers whose form may leave the secret out (Bitbucket): whether this delivery carries no
   * signature at all, so that the URL's token is its only authentication (registry.ts decides).
   */
  readonly unsigned?: (headers: RequestHeaders) => boolean;
  /** Branch changes or a reason to ignore it. Throws MalformedPayloadError or UnsupportedProviderError (400). */
  parse(headers: RequestHeaders, body: Buffer, source: P | LookAlike): ParsedDelivery;
  /** Commit statuses on the provider (providers/report.ts). */
  readonly report: ReportApi;
  /** What to fill into the provider's webhook form (docs/providers.md, section 2). */
  readonly form: {
    where: string;
    fields(url: string, secret: string): Array<[string, string]>;
  };
}

/** Request headers as node:http gives them: lower-case names. */
export type RequestHeaders = Record<string, string | string[] | undefined>;

/** One branch that now points at a new commit. */
export interface BranchChange {
  branch: string;
  commit: string;
  /** First line of the head commit's message; empty when the provider sent none. */
  comment: string;
  /** The head commit's time as the provider reports it (UTC ISO 8601), when it does. */
  committedAt?: string;
}

/** A verified delivery, reduced to what builds bundles. */
export type ParsedDelivery =
  | { kind: 'push'; provider: Provider; deliveryId: string | undefined; changes: BranchChange[] }
  | {
      kind: 'pull-request';
      provider: Provider;
      deliveryId: string | undefined;
      pullRequest: PullRequestState;
    }
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
