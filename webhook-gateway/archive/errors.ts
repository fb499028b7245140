// Why an uploaded archive was refused. Each error carries the HTTP status and a code the client
// can act on; the message names the offending entry so the user can fix the base directory.

export type ArchiveErrorCode =
  | 'archive_too_large'
  | 'invalid_gzip'
  | 'invalid_tar'
  | 'empty_archive'
  | 'unsafe_path'
  | 'unsafe_link'
  | 'path_conflict'
  | 'unsupported_entry'
  | 'too_many_entries'
  | 'uncompressed_too_large'
  | 'compression_ratio';

export class ArchiveError extends Error {
  readonly code: ArchiveErrorCode;
  /** 413 when the upload itself is too big; 422 for everything about its content. */
  readonly status: 413 | 422;
  override name = 'ArchiveError';

  constructor(code: ArchiveErrorCode, message: string) {
    super(message);
    this.code = code;
    this.status = code === 'archive_too_large' ? 413 : 422;
  }
}

/** Shortens an attacker-chosen entry name before it goes into a message. */
export function quoteEntry(name: string): string {
  const shown = name.length > 200 ? `${name.slice(0, 200)}…` : name;
  return `'${shown.replace(/\p{Cc}/gu, '?')}'`;
}
