// What every command starts from: the user's kubeconfig and namespace conventions, as kubectl
// reads them (--kubeconfig, then KUBECONFIG, then ~/.kube/config; --context; -n, else the
// context's namespace, else "default"), and how the answer is printed (-o).
import { impersonating, kubeClients, shareConnections, slipwayApi, type KubeConfig } from '../lib/kube.ts';
import { KubeConfig as Config } from '@kubernetes/client-node';
import { UsageError } from './errors.ts';

export type Output = 'table' | 'wide' | 'json' | 'yaml';

export interface GlobalOptions {
  kubeconfig?: string;
  context?: string;
  /** Impersonate this user (kubectl's --as). */
  as?: string;
  namespace?: string;
  allNamespaces: boolean;
  output: Output;
}

export interface CliContext {
  kc: KubeConfig;
  clients: ReturnType<typeof kubeClients>;
  slipway: ReturnType<typeof slipwayApi>;
  /** -n, or the context's namespace, or "default". */
  namespace: string;
  /** -A: every namespace (listing commands only). */
  allNamespaces: boolean;
  output: Output;
  out: (text: string) => void;
  err: (text: string) => void;
}

export function cliContext(options: GlobalOptions, io: Pick<CliContext, 'out' | 'err'>): CliContext {
  const loaded = new Config();
  if (options.kubeconfig) loaded.loadFromFile(options.kubeconfig);
  else loaded.loadFromDefault();
  if (options.context) {
    if (!loaded.getContextObject(options.context))
      throw new UsageError(`context "${options.context}" is not in the kubeconfig`);
    loaded.setCurrentContext(options.context);
  }
  const namespace =
    options.namespace ?? loaded.getContextObject(loaded.getCurrentContext())?.namespace ?? 'default';
  const kc = options.as ? impersonating(loaded, options.as) : loaded;
  shareConnections(kc);
  const clients = kubeClients(kc);
  return {
    kc,
    clients,
    slipway: slipwayApi(kc),
    namespace,
    allNamespaces: options.allNamespaces,
    output: options.output,
    ...io,
  };
}
