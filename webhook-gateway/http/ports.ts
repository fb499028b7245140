// What the gateway needs from the rest of Slipway. The lead backs these with informer caches and
// the Kubernetes API; tests back them with in-memory fakes.
import type { BundleObject, PreviewsSettings, Provider, WebhookObject } from '../../crds/index.ts';
import type { PodLogs } from '../../lib/pod-logs.ts';

/** A project as the gateway sees it, found by its slug. */
export interface ProjectLookup {
  namespace: string;
  /** metadata.name of the Project. */
  name: string;
  /** metadata.uid; when given, created Bundles are owned by the Project. */
  uid?: string;
  /** The Project's shard label (slipway.dev/shard), carried to the Bundles it makes. */
  shard?: string;
  /** The webhook secret; undefined while it is not known yet (answered as an unknown project). */
  secret: string | undefined;
  /** The provider deliveries must come from (projectProvider); undefined: any signed scheme. */
  provider?: Provider;
  /** spec.requireSignature: an unsigned Bitbucket delivery is refused even with the right URL. */
  requireSignature?: boolean;
  /** The project's Webhook objects (any order). */
  webhooks: readonly WebhookObject[];
  /** The project's most recent Bundle with trigger type Manual, if any. */
  latestManualBundle: BundleObject | undefined;
  /** Bundles the project pruned lately (rules/pruned-bundles.ts): a delivery making one again is a duplicate. */
  prunedBundles?: ReadonlySet<string>;
  /** spec.suspend: deliveries still make bundles, which build once it is resumed; answers say so. */
  suspended?: boolean;
  /** spec.previews: pull requests are previewed only when set. */
  previews?: Partial<PreviewsSettings>;
}

/** Rejects with SecretUnavailableError when the project's webhook secret cannot be read now. */
export type ProjectBySlug = (slug: string) => ProjectLookup | undefined | Promise<ProjectLookup | undefined>;

/**
 * `created`; `duplicate` when a Bundle of that name already exists for the same build (HTTP 409
 * from the API server: a redelivery); `conflict` when the one under that name is another build
 * (`conflict` says how it differs: plan.ts otherBuild).
 */
export interface BundleCreation {
  name: string;
  /** The uid of the bundle made or found (its public status URL is bound to it). */
  uid: string;
  result: 'created' | 'duplicate' | 'conflict';
  conflict?: string;
}

/**
 * Creates the Bundles in order; one result per bundle, same order. Rejects when the API is
 * unavailable: with a PartialCreationError when some of them were created before that.
 */
export type CreateBundles = (bundles: readonly BundleObject[]) => Promise<BundleCreation[]>;

export type { PreviewChange, PreviewWriteResult, WritePreview } from '../../lib/preview-writer.ts';

/** The logs of the pods of build Job `job` in `namespace` (the build namespace) labelled with the bundle's uid. */
export type BuildLogs = (namespace: string, job: string, bundleUid: string) => Promise<PodLogs[]>;
export type { PodLogs };

/** The project's webhook secret could not be read now (the API server unreachable or refusing): try again. */
export { SecretUnavailableError } from '../../lib/secret-reader.ts';

/** Some bundles of a delivery or upload exist, a later one could not be created. */
export class PartialCreationError extends Error {
  override name = 'PartialCreationError';
  readonly created: readonly string[];
  constructor(created: readonly string[], cause: unknown) {
    super(`${created.length} bundle(s) created before one failed: ${String(cause)}`, { cause });
    this.created = created;
  }
}

/** Called once per request when its response is done (or the client went away: status 499). */
export interface RequestObservation {
  /** Route template, safe as a metric label: never contains a slug or token. */
  route:
    | '/hooks/:slug/:token'
    | '/hooks/:slug'
    | '/uploads/:slug'
    | '/upload.sh'
    | '/archives/:key'
    | '/bundles/:namespace/:name/:token'
    | '/bundles/:namespace/:name/logs/:token'
    | '/registry/token'
    | '/registry/jwks.json'
    | 'unmatched';
  method: string;
  status: number;
  durationSeconds: number;
  /** For hooks: the recognised provider. */
  provider?: string;
  /** created | duplicate | ignored | rejected (an error response); for pull requests also updated | unchanged | removed. */
  result?: string;
}

/** The logging methods the gateway uses; a pino logger fits. */
export interface GatewayLogger {
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
}
