// One outbound call (operator/delivery/attempt.ts) against receivers on a real port that answer
// far more than anyone should read: a receiver's 2xx or refusal is let go unread, a provider's
// answer that Slipway uses is read up to its cap and refused past it, naming the cap.
import { afterEach, describe, expect, it } from '@jest/globals';
import { ANSWER_LIMIT_BYTES, attempt } from '../../../../operator/delivery/attempt.ts';
import { startFloodReceiver, type FloodReceiver } from '../../../support/flood-receiver.ts';

const MiB = 1024 * 1024;
let flood: FloodReceiver | undefined;

afterEach(async () => {
  await flood?.close();
  flood = undefined;
});

const post = (url: string, options: Partial<Parameters<typeof attempt>[1]> = {}) =>
  attempt(
    { method: 'POST', url, headers: { 'content-type': 'application/json' }, body: { hello: 1 } },
    { fetch, secrets: [], attempt: 1, now: Date.now(), ...options },
  );

describe('an answer read with a limit', () => {
  it("takes a receiver's 2xx without reading its 400 MB body", async () => {
    flood = await startFloodReceiver(400 * MiB);
    const result = await post(`${flood.base}/hook`);
    expect(result).toEqual({ ok: true });
    // What the sockets buffered before the body was let go, not the 400 MB.
    await new Promise((resolve) => setImmediate(resolve));
    expect(flood.bytesSent).toBeLessThan(32 * MiB);
  });

  it('lets a refusal go unread and keeps only its status', async () => {
    flood = await startFloodReceiver(400 * MiB, { status: 400 });
    const result = await post(`${flood.base}/hook`);
    expect(result).toEqual({ ok: false, refused: true, problem: 'HTTP 400 Bad Request' });
    expect(flood.bytesSent).toBeLessThan(32 * MiB);
  });

  it("refuses a provider's answer over the cap, naming it, streamed or declared", async () => {
    for (const declareLength of [false, true]) {
      flood = await startFloodReceiver(ANSWER_LIMIT_BYTES + 1, { declareLength });
      const result = await post(`${flood.base}/api`, { readsAnswer: true });
      expect(result).toEqual({ ok: false, refused: true, problem: 'its answer is over 16 MiB' });
      await flood.close();
      flood = undefined;
    }
  });

  it("reads a provider's answer up to the cap", async () => {
    const { createServer } = await import('node:http');
    const list = JSON.stringify(
      Array.from({ length: 100 }, (_, i) => ({ number: i, pad: 'p'.repeat(30_000) })),
    );
    const server = createServer((req, res) => res.end(list)).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const result = await post(`http://127.0.0.1:${port}/api`, { readsAnswer: true });
      expect(result.ok && (result.answer as unknown[]).length).toBe(100);
    } finally {
      server.close();
    }
  });

  it('reads a refusal, up to a small cap, only to tell whether it counts as done', async () => {
    flood = await startFloodReceiver(10, { status: 400 });
    const seen: string[] = [];
    const done = await post(`${flood.base}/api`, { alreadyDone: (_s, text) => (seen.push(text), true) });
    expect(done).toEqual({ ok: true });
    expect(seen).toEqual(['xxxxxxxxxx']);
    await flood.close();
    flood = await startFloodReceiver(400 * MiB, { status: 400 });
    const big = await post(`${flood.base}/api`, { alreadyDone: () => true });
    expect(big).toEqual({ ok: false, refused: true, problem: 'HTTP 400 Bad Request' });
  });
});
