import { once } from 'node:events';
import { createSecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { HttpMethod, KubeConfig, RequestContext } from '@kubernetes/client-node';
import { Agent, request } from 'undici';
import { jsonRequest, shareConnections } from '../../../lib/kube.ts';
import { LOCALHOST_CERT, LOCALHOST_KEY } from '../../support/localhost-tls.ts';

function tokenConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', skipTLSVerify: true }],
    users: [{ name: 'u', token: 'first-token' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

describe('shareConnections', () => {
  it('gives every request the credentials and one shared dispatcher', async () => {
    const kc = shareConnections(tokenConfig());
    const a = new RequestContext('https://127.0.0.1:6443/api/v1/pods', HttpMethod.GET);
    const b = new RequestContext('https://127.0.0.1:6443/apis/batch/v1/jobs', HttpMethod.POST);
    b.setHeaderParam('Content-Type', 'application/json');
    // Started together, as a process's informers start.
    await Promise.all([kc.applySecurityAuthentication(a), kc.applySecurityAuthentication(b)]);
    expect(a.getHeaders().Authorization).toBe('Bearer first-token');
    expect(b.getHeaders()).toMatchObject({
      Authorization: 'Bearer first-token',
      'Content-Type': 'application/json',
    });
    expect(a.getDispatcher()).toBeDefined();
    expect(b.getDispatcher()).toBe(a.getDispatcher());
  });

  it('speaks HTTP/1.1 to an API server that offers HTTP/2 as well', async () => {
    // What the API server does: ALPN offers h2 and http/1.1.
    const server = createSecureServer(
      { cert: LOCALHOST_CERT, key: LOCALHOST_KEY, allowHTTP1: true },
      (req, res) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ httpVersion: req.httpVersion }));
      },
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: origin, caData: Buffer.from(LOCALHOST_CERT).toString('base64') }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const plain = new Agent({ connect: { ca: LOCALHOST_CERT } });
    const shared = shareConnections(kc);
    try {
      // undici on its own negotiates HTTP/2 with this server...
      const direct = await request(`${origin}/version`, { dispatcher: plain });
      expect(await direct.body.json()).toEqual({ httpVersion: '2.0' });
      // ...the shared connections do not.
      expect(await jsonRequest(shared, HttpMethod.GET, '/version')).toEqual({ httpVersion: '1.1' });
      expect(await jsonRequest(shared, HttpMethod.GET, '/version')).toEqual({ httpVersion: '1.1' });
    } finally {
      const probe = new RequestContext(`${origin}/`, HttpMethod.GET);
      await shared.applySecurityAuthentication(probe);
      await Promise.all([plain.close(), (probe.getDispatcher() as Agent | undefined)?.close()]);
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
