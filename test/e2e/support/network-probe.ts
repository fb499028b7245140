// What a build step runs to show the NetworkPolicy around build pods (docs/adr/0004) from the
// inside: connections to what must stay out of reach, and to what a build needs.
import { connect } from 'node:net';

/** Whether this process (on the host) connects to `target` (host:port) within 4 s: a probe's control. */
export function reachableFromHost(target: string): Promise<string> {
  const i = target.lastIndexOf(':');
  return new Promise((resolve) => {
    const socket = connect({ host: target.slice(0, i), port: Number(target.slice(i + 1)), timeout: 4000 });
    const end = (what: string) => {
      socket.destroy();
      resolve(what);
    };
    socket.on('connect', () => end('connected'));
    socket.on('timeout', () => end('timed out'));
    socket.on('error', (e: NodeJS.ErrnoException) => end(e.code ?? e.message));
  });
}

/**
 * A build step (node -e) that connects to each of $BLOCKED and $OPEN (host:port) with a 4 s
 * limit, prints what happened, and fails when a blocked one connected or an open one did not.
 */
export const PROBE_SCRIPT = [
  "const net = require('node:net');",
  'let wrong = 0;',
  'const probe = (t, want) => new Promise((done) => {',
  "  const i = t.lastIndexOf(':');",
  '  const s = net.connect({ host: t.slice(0, i), port: Number(t.slice(i + 1)), timeout: 4000 });',
  "  const end = (what, ok) => { console.log('probe ' + t + ': ' + what); if (ok !== want) wrong++; s.destroy(); done(); };",
  "  s.on('connect', () => end('connected', true));",
  "  s.on('timeout', () => end('blocked (timed out)', false));",
  "  s.on('error', (e) => end('blocked (' + e.code + ')', false));",
  '});',
  '(async () => {',
  "  for (const t of process.env.BLOCKED.split(' ')) await probe(t, false);",
  "  for (const t of process.env.OPEN.split(' ')) await probe(t, true);",
  '  process.exit(wrong ? 1 : 0);',
  '})();',
].join(' ');
