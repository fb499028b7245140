// Every limit the webhook gateway enforces, named in one place (as Flux's receiver limits.go).
// Archive limits are defaults: the gateway's configuration may override them.

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/** Largest provider delivery body read into memory. GitHub caps payloads at 25 MB; pushes are far smaller. */
export const MAX_HOOK_BODY_BYTES = 10 * MiB;
/**
 * Most branch updates one push delivery may carry (Bitbucket and Azure DevOps send every ref of
 * a push in one delivery). Each may become a bundle and a build: beyond this the delivery is
 * refused with 422 too_many_changes, and nothing is created.
 */
export const MAX_DELIVERY_BRANCH_CHANGES = 20;
/** A provider delivery body must arrive within this time. */
export const HOOK_BODY_TIMEOUT_MS = 30_000;

/** Largest uploaded archive (compressed bytes on the wire). */
export const DEFAULT_MAX_ARCHIVE_BYTES = 512 * MiB;
/** Largest total size of the archive once gunzipped (tar headers included). */
export const DEFAULT_MAX_UNCOMPRESSED_BYTES = 4 * GiB;
/** Largest ratio of uncompressed to compressed bytes: beyond it the archive is treated as a bomb. */
export const DEFAULT_MAX_COMPRESSION_RATIO = 100;
/** The ratio is only enforced once this many bytes were unpacked; small archives of text compress well. */
export const DEFAULT_COMPRESSION_RATIO_GRACE_BYTES = 64 * MiB;
/** Most entries (files, directories, links) one archive may hold. */
export const DEFAULT_MAX_ARCHIVE_ENTRIES = 100_000;
/** Longest entry path or link target inside an archive. */
export const MAX_ARCHIVE_PATH_BYTES = 4096;
/** Longest component of an entry path (NAME_MAX of Linux file systems). */
export const MAX_ARCHIVE_NAME_BYTES = 255;
/** Most symlink hops followed when checking where a link points; more is treated as a loop. */
export const MAX_SYMLINK_HOPS = 40;

/** Multipart framing and the text fields an upload may add on top of the archive. */
export const MAX_UPLOAD_OVERHEAD_BYTES = 64 * KiB;
/** Largest text field (commit, branch, comment) of an upload. */
export const MAX_UPLOAD_FIELD_BYTES = 8 * KiB;
/** Most text fields an upload may carry. */
export const MAX_UPLOAD_FIELDS = 16;
/** An upload that sends nothing for this long is abandoned. */
export const UPLOAD_IDLE_TIMEOUT_MS = 60_000;
/** Uploads one gateway replica streams at the same time; more get 503 with Retry-After. */
export const MAX_CONCURRENT_UPLOADS = 8;
/** Retry-After sent with 503 when overloaded or not ready. */
export const RETRY_AFTER_SECONDS = 10;

/** Failed authentications (wrong token, secret or signature) one client address may make per project per window. */
export const AUTH_FAILURE_LIMIT = 10;
/** Failed authentications one client address may make per window across all projects (probing many names). */
export const AUTH_FAILURE_LIMIT_PER_CLIENT = 30;
export const AUTH_FAILURE_WINDOW_MS = 10 * 60_000;
/** Client addresses (IPv6: /64 prefixes) the failure counter remembers; the oldest are forgotten first. */
export const AUTH_FAILURE_TRACKED_CLIENTS = 10_000;

/** How long a project's webhook Secret, once read, is used before it is read again (a rotation shows within it). */
export const SECRET_CACHE_TTL_MS = 30_000;
/** How long past its TTL a webhook Secret is still used while the API server cannot be reached. */
export const SECRET_STALE_MS = 5 * 60_000;
/** How long a missing webhook Secret is remembered as missing. */
export const SECRET_MISSING_TTL_MS = 5_000;

/** After an early error response, the rest of a request body is read and dropped for at most this long
 * so that the client sees the response instead of a connection reset. */
export const LINGER_AFTER_ERROR_MS = 5_000;

/** Lifetime of a signed archive download URL the operator hands to a build Job. */
export const DEFAULT_ARCHIVE_URL_TTL_MS = 60 * 60_000;

/** Longest a whole request may take (a 512 MiB upload over a slow CI link); the idle timeout catches stalls. */
export const MAX_REQUEST_DURATION_MS = 60 * 60_000;
/** Headers must arrive within this time. */
export const HEADERS_TIMEOUT_MS = 30_000;

/** Temporary upload files older than this are left over from a crash and removed at start-up. */
export const ARCHIVE_TMP_MAX_AGE_MS = 60 * 60_000;
/** How often stored archives no Bundle refers to are looked for and deleted. */
export const ARCHIVE_GC_INTERVAL_MS = 10 * 60_000;
/** An archive younger than this is kept even unreferenced: its bundle may be on its way. */
export const ARCHIVE_GC_GRACE_MS = 60 * 60_000;

/**
 * Of each build container's log, the gateway serves at most the first this many bytes (the
 * kubelet cuts a log from its start; a bundle's condition has a failed step's last lines).
 */
export const LOG_LIMIT_BYTES = 8 * 1024 * 1024;
