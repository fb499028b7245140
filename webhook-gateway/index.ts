// What the rest of Slipway uses from the webhook gateway. Folder map:
//   (providers: ../providers/, one module per git provider, shared with the CLI)
//   plan.ts     which Bundles a push or upload creates (pure); matching.ts: branch match modes
//   archive/    streaming validation and storage of uploads, signed download URLs
//   http/       the public HTTP interface; token.ts: the webhook URL token the operator shares
export { createGateway, createGatewayServer, type Gateway } from './http/app.ts';
export type { GatewayDependencies } from './http/context.ts';
export type {
  BundleCreation,
  CreateBundles,
  GatewayLogger,
  ProjectBySlug,
  ProjectLookup,
  RequestObservation,
} from './http/ports.ts';
export { PartialCreationError, SecretUnavailableError } from './http/ports.ts';
export { isWebhookToken } from './token.ts';
export { matchesBranch } from './matching.ts';
export { LABEL_PROJECT, LABEL_TRIGGER, LABEL_WEBHOOK, bundleName, planBundles, type Plan } from './plan.ts';
export {
  ArchiveError,
  FilesystemArchiveStore,
  S3ArchiveStore,
  archiveLimits,
  verifyArchiveSignature,
  type ArchiveLimits,
  type ArchiveStore,
  type StoredArchive,
} from './archive/index.ts';
export { renderUploadScript } from './upload-script.ts';
