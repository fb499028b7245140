// An answer's body read through a byte cap: a receiver that streams hundreds of MB within a
// call's timeout must not grow the operator's memory by as much (several at once would get the
// leading operator OOM-killed and stall every tenant). Past the cap the stream is cancelled, so
// the rest is never read, and the caller is told the answer was too big.

/** The body of `res` as text when it is at most `limit` bytes; undefined (and cancelled) past it. */
export async function cappedText(res: Response, limit: number): Promise<string | undefined> {
  if (!res.body) return '';
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await discard(res);
    return undefined;
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/** Lets go of an answer's body unread (the connection is closed rather than drained). */
export async function discard(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => undefined);
}
