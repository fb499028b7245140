// One HTTP request that leaves the cluster: a git provider's API (commit statuses, deployments),
// a notification receiver, a status page subscriber. Providers and notification types build it
// (pure); the operator's delivery engine (operator/delivery/) sends it.
export interface OutboundRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  url: string;
  headers: Record<string, string>;
  /** A string is sent as it is; anything else as JSON; none for a GET. */
  body?: unknown;
}
