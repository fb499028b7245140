// Error responses: {"error":{"status":400,"code":"…","message":"…"}} (docs/status-api.md).

export interface ApiError {
  status: number;
  code: string;
  message: string;
}

export interface ErrorBody {
  error: ApiError;
}

export function errorBody(error: ApiError): ErrorBody {
  return { error: { status: error.status, code: error.code, message: error.message } };
}

export const notFound = (message: string): ApiError => ({ status: 404, code: 'not_found', message });
