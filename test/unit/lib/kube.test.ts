import { describe, expect, it } from '@jest/globals';
import { HttpMethod, KubeConfig, RequestContext } from '@kubernetes/client-node';
import { shareConnections } from '../../../lib/kube.ts';

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
    await kc.applySecurityAuthentication(a);
    await kc.applySecurityAuthentication(b);
    expect(a.getHeaders().Authorization).toBe('Bearer first-token');
    expect(b.getHeaders()).toMatchObject({
      Authorization: 'Bearer first-token',
      'Content-Type': 'application/json',
    });
    expect(a.getDispatcher()).toBeDefined();
    expect(b.getDispatcher()).toBe(a.getDispatcher());
  });
});
