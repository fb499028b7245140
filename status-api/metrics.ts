// The status API's own metrics (besides lib/metrics.ts's process ones): each request's duration
// by method, route template and status, fed by the server's one observation per request.
import { histogram } from '../lib/metrics.ts';
import type { RequestObservation } from './http/observe.ts';

const requestDuration = histogram(
  'slipway_status_api_request_duration_seconds',
  'Status API requests by route template',
  ['method', 'route', 'status'],
);

export function observeRequest({ method, route, status, durationSeconds }: RequestObservation): void {
  requestDuration.observe({ method, route, status: String(status) }, durationSeconds);
}
