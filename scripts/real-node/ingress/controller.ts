// The real node's ingress controller: watches Ingresses, Services and EndpointSlices with the
// rights of its ServiceAccount, and loads what caddy-config.ts makes of them into Caddy (Debian's
// package, run by node.sh) through Caddy's admin API, within a tenth of a second of a change
// (endpoints leaving a rollout included). Writes each Ingress's address to its status, and the
// file `ready` once the first configuration is loaded. Started by scripts/real-node/node.sh:
//   node controller.ts <kubeconfig> <caddy admin address> <listen address> <node address> <state folder>
import { writeFileSync } from 'node:fs';
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

const [kubeconfig, admin, listen, nodeAddress, stateDir] = process.argv.slice(2);
if (!kubeconfig || !admin || !listen || !nodeAddress || !stateDir) {
  process.stderr.write(
    'usage: controller.ts <kubeconfig> <caddy admin address> <listen address> <node address> <state folder>\n',
  );
  process.exit(2);
}
const CLASS = 'caddy';
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

async function sync() {
  const ingressClass = classes.get('', CLASS);
  const config = caddyConfig(
    {
      className: CLASS,
      isDefaultClass:
        ingressClass?.metadata?.annotations?.['ingressclass.kubernetes.io/is-default-class'] === 'true',
      ingresses: ingresses.list(),
      services: services.list(),
      endpointSlices: slices.list(),
    },
    listen!,
    admin!,
  );
  const body = JSON.stringify(config);
  if (body !== loaded) {
    const res = await fetch(`http://${admin}/load`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
    });
    if (!res.ok) throw new Error(`Caddy refused the configuration: ${res.status} ${await res.text()}`);
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
await Promise.all([ingresses.start(), classes.start(), services.start(), slices.start()]);
schedule();
process.on('SIGTERM', () => process.exit(0));
