// One observation per request once it is answered (method, route template, status, duration),
// for the metrics and the debug log. The route template of each path is found once (bounded),
// not by testing every route's pattern on every request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

export interface RequestObservation {
  method: string;
  /** The route template (`/api/v1/notices/:id`), or `unmatched`; never the raw path. */
  route: string;
  status: number;
  durationSeconds: number;
}

/** The path of a request URL, as routing sees it (no query). */
export const pathOf = (url: string): string => {
  const query = url.indexOf('?');
  return query >= 0 ? url.slice(0, query) : url;
};

/**
 * Per request: `(req, res, id)` starts its observation (`id` is its X-Request-Id) and returns
 * the function that reports it once the request is answered: call it right after a synchronous
 * answer, or register it for the response's 'close' (which follows 'finish' when the answer was
 * sent, and comes alone when it was not).
 */
export function observeRequests(
  observe: ((observation: RequestObservation) => void) | undefined,
  logger: Logger,
  routeTemplate: (path: string) => string,
) {
  const templateOfPath = new Map<string, string>();
  const templateOf = (path: string): string => {
    let template = templateOfPath.get(path);
    if (template === undefined) {
      template = routeTemplate(path);
      if (templateOfPath.size >= 10_000) templateOfPath.clear();
      templateOfPath.set(path, template);
    }
    return template;
  };
  const nothing = (): void => {};
  return (req: IncomingMessage, res: ServerResponse, id: string): (() => void) => {
    // Nobody to tell (no metrics, no debug log): nothing measured.
    if (observe === undefined && !logger.isLevelEnabled('debug')) return nothing;
    const started = process.hrtime.bigint();
    return (): void => {
      const observation = {
        method: req.method ?? 'GET',
        route: templateOf(pathOf(req.url ?? '/')),
        status: res.statusCode,
        durationSeconds: Number(process.hrtime.bigint() - started) / 1e9,
      };
      if (logger.isLevelEnabled('debug')) logger.debug({ requestId: id, ...observation }, 'request answered');
      try {
        observe?.(observation);
      } catch (error) {
        logger.warn({ err: error }, 'request observer failed');
      }
    };
  };
}
