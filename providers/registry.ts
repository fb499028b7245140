// Every provider Slipway supports, in one list. The type below makes the compiler check that
// each name of the API's provider list (crds/common.ts) has its module, and each module its name.
// The order is the order deliveries are recognised in: providers known by a header first (Gitea
// before GitHub, whose headers Gitea sends too), Azure DevOps (known by its body) last.
import type { Provider } from '../crds/index.ts';
import { azureDevOps } from './azure-devops.ts';
import { bitbucket } from './bitbucket.ts';
import { gitea } from './gitea.ts';
import { github } from './github.ts';
import { gitlab } from './gitlab.ts';
import {
  lookAlikes,
  type DeliverySource,
  type ParsedDelivery,
  type ProviderModule,
  type RequestHeaders,
} from './provider.ts';

export const registry: { readonly [P in Provider]: ProviderModule<P> } = {
  gitea,
  github,
  gitlab,
  bitbucket,
  'azure-devops': azureDevOps,
};

export const providerModules: readonly ProviderModule[] = Object.values(registry);

/** The module of a provider or of the look-alike it recognises. */
export function providerModule(source: DeliverySource): ProviderModule {
  return registry[
    source in lookAlikes ? lookAlikes[source as keyof typeof lookAlikes] : (source as Provider)
  ];
}

export function isProvider(name: string): name is Provider {
  return Object.hasOwn(registry, name);
}

/** Which provider sent a delivery, asking each module in order. */
export function recogniseProvider(headers: RequestHeaders, body: Buffer): DeliverySource | undefined {
  for (const module of providerModules) {
    const source = module.recognise(headers, body);
    if (source !== undefined) return source;
  }
  return undefined;
}

/** The 400 answer's message for a delivery no module recognises. */
export function unrecognisedDeliveryMessage(): string {
  const titles = providerModules.map((m) => m.title);
  const marks = providerModules.map((m) => m.recognisedBy);
  return `not a ${titles.slice(0, -1).join(', ')} or ${titles.at(-1)} delivery (none of: ${marks.join(', ')})`;
}

/**
 * Whether the delivery is authentic. `expected` is the project's provider (spec.provider, or its
 * repository's host): a delivery dressed as any other provider fails. The caller has checked the
 * URL's token; that alone authenticates only an unsigned delivery of a provider whose form may
 * leave the secret out (Bitbucket), to a project of that provider that does not require
 * signatures (spec.requireSignature). A signature that is present is always checked.
 */
export function verifyDelivery(
  source: DeliverySource,
  headers: RequestHeaders,
  body: Buffer,
  secret: string,
  expected: Provider | undefined,
  options: { requireSignature?: boolean } = {},
): boolean {
  const module = providerModule(source);
  if (expected !== undefined && module.name !== expected) return false;
  if (expected !== undefined && !options.requireSignature && module.unsigned?.(headers)) return true;
  return module.verify(headers, body, secret);
}

/** Whether a delivery carries no signature of a provider that may send unsigned ones (Bitbucket). */
export function isUnsigned(source: DeliverySource, headers: RequestHeaders): boolean {
  return providerModule(source).unsigned?.(headers) === true;
}

/** Throws MalformedPayloadError (400) or UnsupportedProviderError (400). */
export function parseDelivery(source: DeliverySource, headers: RequestHeaders, body: Buffer): ParsedDelivery {
  return (providerModule(source) as ProviderModule<Provider>).parse(headers, body, source as never);
}

/** The provider a repository URL (https://, ssh://, git@host:path) belongs to, when its host is well known. */
export function repositoryProvider(url: string | undefined): Provider | undefined {
  if (!url) return undefined;
  let host: string | undefined;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    try {
      host = new URL(url).hostname;
    } catch {
      return undefined;
    }
  } else {
    // scp-like: [user@]host:path
    host = /^(?:[^@/:?#\\]+@)?([a-z0-9.-]+):/i.exec(url)?.[1];
  }
  const name = host?.toLowerCase().replace(/\.$/, '');
  return name ? providerModules.find((m) => m.publicHosts.test(name))?.name : undefined;
}

/** The provider a project's deliveries must come from: spec.provider, else its repository's. */
export function projectProvider(spec: {
  provider?: Provider | undefined;
  repository?: { url: string } | undefined;
}): Provider | undefined {
  return spec.provider ?? repositoryProvider(spec.repository?.url);
}
