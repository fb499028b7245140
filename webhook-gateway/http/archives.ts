// GET /archives/{namespace}/{project}/{sha256}.tar.gz?expires=…&signature=…: a build Job downloads
// an uploaded archive through a URL signed by the operator.
import { pipeline } from 'node:stream/promises';
import { archiveKeyFromPath } from '../../rules/archive-url.ts';
import { verifyArchiveSignature } from '../archive/signed-url.ts';
import type { GatewayContext } from './context.ts';
import type { Exchange } from './exchange.ts';
import { HttpError } from './http-error.ts';

export async function handleArchiveDownload(
  ctx: GatewayContext,
  exchange: Exchange,
  url: URL,
): Promise<void> {
  const signingKey = ctx.archiveSigningKey;
  const key = archiveKeyFromPath(url.pathname);
  if (signingKey === undefined || key === undefined) throw new HttpError(404, 'not_found', 'no such archive');
  const valid = verifyArchiveSignature(
    key,
    url.searchParams.get('expires'),
    url.searchParams.get('signature'),
    signingKey,
    ctx.now(),
  );
  if (!valid) throw new HttpError(403, 'invalid_signature', 'the download link is invalid or has expired');
  exchange.log.archive = { key };

  const found = await ctx.store.open(key);
  if (!found) throw new HttpError(404, 'not_found', 'no such archive');
  const { res } = exchange;
  res.writeHead(200, {
    'Content-Type': 'application/gzip',
    'Content-Length': String(found.sizeBytes),
    'Cache-Control': 'private, no-store',
  });
  if (exchange.req.method === 'HEAD') {
    found.stream.destroy();
    res.end();
    return;
  }
  await pipeline(found.stream, res);
}
