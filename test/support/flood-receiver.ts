// A receiver on a real port that answers every request with `size` bytes of body, written as
// the reader takes them (backpressure, so the receiver itself holds little), and counts what it
// got out: what a hostile receiver streams at Slipway within a call's timeout.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FloodReceiver {
  /** http://127.0.0.1:<port> */
  base: string;
  /** Requests answered so far. */
  requests: number;
  /** Bytes of body written to the sockets so far. */
  bytesSent: number;
  close(): Promise<void>;
}

export async function startFloodReceiver(
  size: number,
  options: { status?: number; declareLength?: boolean } = {},
): Promise<FloodReceiver> {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const flood: FloodReceiver = { base: '', requests: 0, bytesSent: 0, close: async () => undefined };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      flood.requests += 1;
      res.writeHead(options.status ?? 200, {
        'content-type': 'application/json',
        ...(options.declareLength ? { 'content-length': String(size) } : {}),
      });
      let left = size;
      const pump = (): void => {
        while (left > 0) {
          const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
          left -= part.length;
          flood.bytesSent += part.length;
          if (!res.write(part)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      res.on('close', () => (left = 0));
      pump();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  flood.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  flood.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return flood;
}
