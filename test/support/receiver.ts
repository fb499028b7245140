// A webhook receiver on a real port that records every POST and answers what a test queues
// for its path (then 200): the other end of notifications and status page subscribers.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a payload read field by field
  body: Record<string, any>;
}

export interface Receiver {
  /** http://<host>:<port> */
  base: string;
  deliveries: Delivery[];
  /** What a path answers next: a queue of answers, then 200. */
  answers: Map<string, Array<{ status: number; headers?: Record<string, string> }>>;
  /** The deliveries to one path. */
  to(path: string): Delivery[];
  close(): void;
}

/** Listens on `host` (127.0.0.1; the node's host address for pods to reach it). */
export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const answers: Receiver['answers'] = new Map();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '';
      deliveries.push({ at: Date.now(), path, headers: req.headers, raw, body: JSON.parse(raw) });
      const answer = answers.get(path)?.shift() ?? { status: 200 };
      res.writeHead(answer.status, answer.headers);
      res.end(answer.status < 300 ? 'ok' : `no: ${path} is not welcome`);
    });
  });
  server.listen(0, host);
  await new Promise((r) => server.once('listening', r));
  return {
    base: `http://${host}:${(server.address() as AddressInfo).port}`,
    deliveries,
    answers,
    to: (path) => deliveries.filter((d) => d.path === path),
    close: () => server.close(),
  };
}
