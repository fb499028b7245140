// The gateway's configuration and collaborators, resolved once per process.
import type { IncomingMessage } from 'node:http';
import type { BundleObject } from '../../crds/index.ts';
import { archiveLimits, type ArchiveLimits } from '../archive/archive-limits.ts';
import type { ArchiveStore } from '../archive/store.ts';
import { AUTH_FAILURE_LIMIT_PER_CLIENT } from '../limits.ts';
import { renderUploadScript } from '../upload-script.ts';
import { AuthFailureLimiter, type AuthFailureOptions } from './auth-failures.ts';
import type {
  BuildLogs,
  CreateBundles,
  GatewayLogger,
  ProjectBySlug,
  RequestObservation,
  WritePreview,
} from './ports.ts';
import { DEFAULT_BUILD_NAMESPACE } from '../../rules/build-namespace.ts';
import type { RegistryTokens } from './registry-token.ts';

export interface GatewayDependencies {
  /** `{base_url}`: the public address of the gateway, filled into the upload script. */
  publicBaseUrl: string;
  /** Where build Jobs download archives (`{archiveBaseUrl}/archives/{key}`); defaults to publicBaseUrl. */
  archiveBaseUrl?: string;
  projectBySlug: ProjectBySlug;
  createBundles: CreateBundles;
  /** Pull-request deliveries: makes, updates or removes Previews. Without it they are answered 503. */
  writePreview?: WritePreview;
  archiveStore: ArchiveStore;
  archiveLimits?: Partial<ArchiveLimits>;
  /** Enables GET /archives/{key}?expires=…&signature=… (see signArchiveUrl). */
  archiveSigningKey?: string | Buffer;
  /** A bundle from the gateway's cache, for GET /bundles/{namespace}/{name}/{token}. */
  bundleByName?: (namespace: string, name: string) => BundleObject | undefined;
  /** The logs of a build Job's pods, for GET /bundles/{namespace}/{name}/logs/{token}. */
  buildLogs?: BuildLogs;
  /** The only namespace build logs are read in (the operator's SLIPWAY_BUILD_NAMESPACE). */
  buildNamespace?: string;
  /** Enables GET|POST /registry/token and GET /registry/jwks.json (credentials: archiveSigningKey). */
  registryTokens?: RegistryTokens;
  /** False until the caches behind projectBySlug are synced: every request gets 503. */
  isReady?: () => boolean;
  /** The address failed authentications are counted against; defaults to the socket's peer. */
  clientAddress?: (req: IncomingMessage) => string;
  /** Failed authentications per client and project. */
  authFailures?: AuthFailureOptions;
  /** Failed authentications per client across projects (a higher limit). */
  clientAuthFailures?: AuthFailureOptions;
  maxConcurrentUploads?: number;
  logger?: GatewayLogger;
  observe?: (observation: RequestObservation) => void;
  now?: () => Date;
}

export interface GatewayContext {
  archiveBaseUrl: string;
  projectBySlug: ProjectBySlug;
  createBundles: CreateBundles;
  writePreview: WritePreview | undefined;
  store: ArchiveStore;
  limits: ArchiveLimits;
  archiveSigningKey: string | Buffer | undefined;
  /** Where status URLs point (the public base URL). */
  publicBaseUrl: string;
  bundleByName: (namespace: string, name: string) => BundleObject | undefined;
  buildLogs: BuildLogs;
  buildNamespace: string;
  registryTokens: RegistryTokens | undefined;
  activeLogReads: number;
  /** Log reads under way per bundle namespace: one namespace cannot take every slot. */
  logReadsOf: Map<string, number>;
  uploadScript: string;
  isReady: () => boolean;
  clientAddress: (req: IncomingMessage) => string;
  authFailures: AuthFailureLimiter;
  clientAuthFailures: AuthFailureLimiter;
  maxConcurrentUploads: number;
  activeUploads: number;
  logger: GatewayLogger;
  observe: (observation: RequestObservation) => void;
  now: () => Date;
}

const silent: GatewayLogger = { info() {}, warn() {}, error() {} };

export function gatewayContext(deps: GatewayDependencies, maxConcurrentUploads: number): GatewayContext {
  return {
    archiveBaseUrl: (deps.archiveBaseUrl ?? deps.publicBaseUrl).replace(/\/+$/, ''),
    projectBySlug: deps.projectBySlug,
    createBundles: deps.createBundles,
    writePreview: deps.writePreview,
    store: deps.archiveStore,
    limits: archiveLimits(deps.archiveLimits),
    archiveSigningKey: deps.archiveSigningKey,
    publicBaseUrl: deps.publicBaseUrl.replace(/\/+$/, ''),
    bundleByName: deps.bundleByName ?? (() => undefined),
    buildLogs: deps.buildLogs ?? (() => Promise.resolve([])),
    buildNamespace: deps.buildNamespace ?? DEFAULT_BUILD_NAMESPACE,
    registryTokens: deps.registryTokens,
    activeLogReads: 0,
    logReadsOf: new Map(),
    uploadScript: renderUploadScript(deps.publicBaseUrl),
    isReady: deps.isReady ?? (() => true),
    clientAddress: deps.clientAddress ?? ((req) => req.socket.remoteAddress ?? 'unknown'),
    authFailures: new AuthFailureLimiter(deps.authFailures),
    clientAuthFailures: new AuthFailureLimiter({
      limit: AUTH_FAILURE_LIMIT_PER_CLIENT,
      ...deps.clientAuthFailures,
    }),
    maxConcurrentUploads: deps.maxConcurrentUploads ?? maxConcurrentUploads,
    activeUploads: 0,
    logger: deps.logger ?? silent,
    observe: deps.observe ?? (() => {}),
    now: deps.now ?? (() => new Date()),
  };
}
