/** An error response: `{"error":{"code","message"}}` with this status. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;
  override name = 'HttpError';

  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

// One message for an unknown project and a wrong token, so a caller cannot tell them apart.
export const NO_SUCH_HOOK = 'no webhook at this address';
export const NOT_AUTHENTICATED = 'the request could not be authenticated';
export const UNSIGNED_WITHOUT_TOKEN =
  'an unsigned delivery needs the webhook URL with its token (kubectl slipway hook prints it), or set the webhook secret so the provider signs it';
