// The real node's ingress controller: watches Ingresses, Services and EndpointSlices with the
// rights of its ServiceAccount, and loads what caddy-config.ts makes of them into Caddy (Debian's
// package, run by node.sh) through Caddy's admin API (a unix socket), within a tenth of a second
// of a change (endpoints leaving a rollout included), and again whenever Caddy has lost it (a
// restarted Caddy starts empty). Writes each Ingress's address to its status, and the file
// `ready` once the first configuration is loaded. Started by scripts/real-node/node.sh:
//   node controller.ts <kubeconfig> <caddy admin socket> <listen addresses, comma-separated>
//                      <node address> <state folder> <IngressClass>
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import {
  NetworkingV1Api,
  type V1EndpointSlice,
  type V1Ingress,
  type V1IngressClass,
  type V1Service,
} from '@kubernetes/client-node';
import { Informer } from '../../../lib/informer.ts';
import { kubeConfigFromFile } from '../../../lib/kube.ts';
import { childLogger } from '../../../lib/log.ts';
import { caddyConfig } from './caddy-config.ts';

const [kubeconfig, admin, listen, nodeAddress, stateDir, CLASS] = process.argv.slice(2);
if (!kubeconfig || !admin || !listen || !nodeAddress || !stateDir || !CLASS) {
  process.stderr.write(
    'usage: controller.ts <kubeconfig> <caddy admin socket> <listen addresses> <node address> <state folder> <IngressClass>\n',
  );
  process.exit(2);
}
const log = childLogger({ component: 'ingress-controller' });
const kc = kubeConfigFromFile(kubeconfig);
const networking = kc.makeApiClient(NetworkingV1Api);
const ingresses = new Informer<V1Ingress>(kc, '/apis/networking.k8s.io/v1/ingresses', log);
const classes = new Informer<V1IngressClass>(kc, '/apis/networking.k8s.io/v1/ingressclasses', log);
const services = new Informer<V1Service>(kc, '/api/v1/services', log);
const slices = new Informer<V1EndpointSlice>(kc, '/apis/discovery.k8s.io/v1/endpointslices', log);

let loaded = '';
let timer: NodeJS.Timeout | undefined;
let running = Promise.resolve();

/** One request to Caddy's admin API over its unix socket: the status and the body. */
function caddyAdmin(method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      // (an empty Host: Caddy's admin API on a unix socket accepts only that)
      {
        socketPath: admin,
        setHost: false,
        method,
        path,
        headers: { Host: '', ...(body ? { 'Content-Type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function sync() {
  const ingressClass = classes.get('', CLASS!);
  const config = caddyConfig(
    {
      className: CLASS!,
      isDefaultClass:
        ingressClass?.metadata?.annotations?.['ingressclass.kubernetes.io/is-default-class'] === 'true',
      ingresses: ingresses.list(),
      services: services.list(),
      endpointSlices: slices.list(),
    },
    listen!.split(','),
    `unix/${admin}`,
  );
  const body = JSON.stringify(config);
  if (body !== loaded) {
    const res = await caddyAdmin('POST', '/load', body);
    if (res.status !== 200) throw new Error(`Caddy refused the configuration: ${res.status} ${res.body}`);
    loaded = body;
    log.info({ ingresses: ingresses.list().length }, 'configuration loaded');
    writeFileSync(join(stateDir!, 'ready'), new Date().toISOString());
  }
  for (const ingress of ingresses.list()) {
    const ips = ingress.status?.loadBalancer?.ingress?.map((i) => i.ip) ?? [];
    const cls = ingress.spec?.ingressClassName;
    if ((cls && cls !== CLASS) || (ips.length === 1 && ips[0] === nodeAddress)) continue;
    await networking
      .patchNamespacedIngressStatus({
        name: ingress.metadata!.name!,
        namespace: ingress.metadata!.namespace!,
        body: [
          { op: 'replace', path: '/status', value: { loadBalancer: { ingress: [{ ip: nodeAddress }] } } },
        ],
      })
      .catch((err: unknown) => log.warn({ err: String(err) }, 'could not write the Ingress address'));
  }
}

/** Changes come in bursts (a rollout): one load for each tenth of a second. */
function schedule() {
  clearTimeout(timer);
  timer = setTimeout(() => {
    running = running.then(sync).catch((err: unknown) => {
      log.error({ err: String(err) }, 'sync failed; trying again');
      setTimeout(schedule, 1000);
    });
  }, 100);
}

for (const informer of [ingresses, classes, services, slices]) informer.onEvent(schedule);
// A Caddy started again has no routes: load them again when it answers without them.
setInterval(() => {
  caddyAdmin('GET', '/config/apps/http/servers/ingress/listen').then(
    (res) => {
      if (loaded && res.body.trim() === 'null') {
        loaded = '';
        schedule();
      }
    },
    (err: unknown) => log.warn({ err: String(err) }, 'Caddy does not answer'),
  );
}, 10_000).unref();
await Promise.all([ingresses.start(), classes.start(), services.start(), slices.start()]);
schedule();
process.on('SIGTERM', () => process.exit(0));
