// Child process: the ceiling for the status API — a bare node:http server on 127.0.0.1:0 that
// answers each path with bytes and headers it was given, doing nothing else per request.
import { keepAliveBehindProxies } from '../../lib/keep-alive.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { failToParent, serveParent } from '../lib/child.ts';

const answers = new Map<string, { body: Buffer; headers: Record<string, string> }>();

const server = createServer((req, res) => {
  const answer = answers.get(req.url ?? '');
  if (!answer) {
    res.statusCode = 404;
    res.end();
    return;
  }
  res.writeHead(200, { ...answer.headers, 'Content-Length': String(answer.body.length) });
  res.end(answer.body);
});
keepAliveBehindProxies(server); // as the servers they stand beside
server.listen(0, '127.0.0.1', () => {
  try {
    serveParent(
      {
        cpu: () => process.cpuUsage(),
        set: (input: unknown) => {
          const { path, body, headers } = input as {
            path: string;
            body: string;
            headers: Record<string, string>;
          };
          answers.set(path, { body: Buffer.from(body, 'base64'), headers });
          return true;
        },
      },
      { port: (server.address() as AddressInfo).port },
    );
  } catch (error) {
    failToParent(error);
  }
});
