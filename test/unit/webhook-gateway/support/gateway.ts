// Runs the gateway on a real port (127.0.0.1:0) with in-memory fakes of its two ports
// (projectBySlug, createBundles) and an archive store: a filesystem store in a temporary
// directory, or an S3 store on the given test server, staging in that directory.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BundleObject } from '../../../../crds/index.ts';
import { FilesystemArchiveStore } from '../../../../webhook-gateway/archive/index.ts';
import {
  createGateway,
  PartialCreationError,
  SecretUnavailableError,
  type GatewayDependencies,
  type ProjectLookup,
  type RequestObservation,
} from '../../../../webhook-gateway/index.ts';
import { deriveWebhookToken } from '../../../../rules/webhook-url.ts';
import { TEST_SECRET } from './fixtures.ts';
import { NAMESPACE, PROJECT, bundle, spec, webhook } from '../../../support/builders.ts';
import type { S3Fixture } from './s3.ts';

export const SIGNING_KEY = 'archive-signing-key-for-tests';

export interface Harness {
  baseUrl: string;
  /** The filesystem store's directory, or where the S3 store stages uploads. */
  storeDir: string;
  projects: Map<string, ProjectLookup>;
  /** Bundles the fake writer holds, by name, in creation order. */
  bundles: Map<string, BundleObject>;
  observations: RequestObservation[];
  /** Every log call, serialised. */
  logs: string[];
  /** failCreateAfter: create that many bundles, then fail (PartialCreationError), once. */
  state: {
    ready: boolean;
    failLookup: boolean;
    failCreate: boolean;
    failCreateAfter: number | undefined;
    now: Date;
  };
  /** Resolves with the first observation (past or future) that satisfies `predicate`. */
  observed(predicate: (o: RequestObservation) => boolean): Promise<RequestObservation>;
  /** Files in storeDir (relative paths) and, with S3, the harness's objects (keys without its prefix). */
  storedFiles(): Promise<string[]>;
  close(): Promise<void>;
}

export function shopProject(): ProjectLookup {
  return {
    namespace: NAMESPACE,
    name: PROJECT,
    secret: TEST_SECRET,
    webhooks: [
      webhook(
        'production',
        spec({
          branch: 'master',
          matchMode: 'Exact',
          environmentRef: { name: 'prod' },
          backupBeforeDeploy: true,
        }),
      ),
      webhook(
        'previews',
        spec({ branch: 'feature/', matchMode: 'StartsWith', environmentRef: { name: 'preview' } }),
      ),
      webhook('bitbucket-branch', spec({ branch: 'name-of-branch', matchMode: 'Exact' })),
    ],
    latestManualBundle: bundle(),
  };
}

export function hookPath(slug = PROJECT, secret = TEST_SECRET): string {
  return `/hooks/${slug}/${deriveWebhookToken(secret, slug)}`;
}

export async function startGateway(
  overrides: Partial<GatewayDependencies> = {},
  options: { s3?: S3Fixture } = {},
): Promise<Harness> {
  const storeDir = await mkdtemp(join(tmpdir(), 'slipway-gateway-'));
  // Each harness its own key prefix, so one server serves a whole test file.
  const s3Prefix = `gateway-${randomUUID()}/`;
  const { s3 } = options;
  const projects = new Map<string, ProjectLookup>([[PROJECT, shopProject()]]);
  const bundles = new Map<string, BundleObject>();
  const observations: RequestObservation[] = [];
  const waiters: Array<{
    predicate: (o: RequestObservation) => boolean;
    resolve: (o: RequestObservation) => void;
  }> = [];
  const logs: string[] = [];
  const state = {
    ready: true,
    failLookup: false,
    failCreate: false,
    failCreateAfter: undefined as number | undefined,
    now: new Date('2026-03-01T10:00:00Z'),
  };
  const record = (level: string) => (fields: object, message?: string) =>
    logs.push(
      JSON.stringify({ level, message, ...fields }, (_k, v: unknown) => (v instanceof Error ? v.message : v)),
    );

  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const gateway = createGateway({
    publicBaseUrl: baseUrl,
    projectBySlug: async (slug) => {
      if (state.failLookup)
        throw new SecretUnavailableError(
          `${NAMESPACE}/shop-webhook`,
          Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' }),
        );
      return projects.get(slug);
    },
    createBundles: async (list) => {
      if (state.failCreate) throw new Error('the API server is unavailable');
      if (state.failCreateAfter !== undefined && list.length > state.failCreateAfter) {
        const made = list.slice(0, state.failCreateAfter);
        for (const bundle of made)
          bundles.set(bundle.metadata.name, {
            ...bundle,
            metadata: { ...bundle.metadata, uid: `uid-${bundle.metadata.name}` },
          });
        state.failCreateAfter = undefined;
        throw new PartialCreationError(
          made.map((b) => b.metadata.name),
          new Error('the API server is unavailable'),
        );
      }
      return list.map((bundle) => {
        const name = bundle.metadata.name;
        const found = bundles.get(name);
        if (found) return { name, uid: found.metadata.uid ?? '', result: 'duplicate' as const };
        // As the API server would: a uid of its own (uid-<name> here).
        const made = { ...bundle, metadata: { ...bundle.metadata, uid: `uid-${name}` } };
        bundles.set(name, made);
        return { name, uid: `uid-${name}`, result: 'created' as const };
      });
    },
    archiveStore: s3
      ? s3.store({ stagingDir: storeDir, prefix: s3Prefix })
      : new FilesystemArchiveStore(storeDir),
    archiveSigningKey: SIGNING_KEY,
    bundleByName: (namespace, name) => {
      const bundle = bundles.get(name);
      return bundle?.metadata.namespace === namespace ? bundle : undefined;
    },
    isReady: () => state.ready,
    now: () => state.now,
    clientAddress: (req) => String(req.headers['x-test-client'] ?? 'default-client'),
    logger: { info: record('info'), warn: record('warn'), error: record('error') },
    observe: (o) => {
      observations.push(o);
      for (const waiter of waiters.filter((w) => w.predicate(o))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(o);
      }
    },
    ...overrides,
  });
  server.on('request', gateway.handleRequest);
  server.on('checkContinue', gateway.handleCheckContinue);

  return {
    baseUrl,
    storeDir,
    projects,
    bundles,
    observations,
    logs,
    state,
    observed: (predicate) => {
      const seen = observations.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
    storedFiles: async () => {
      const entries = await readdir(storeDir, { recursive: true, withFileTypes: true });
      const files = entries
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name).slice(storeDir.length + 1));
      const objects = s3 ? [...(await s3.objects(s3Prefix)).keys()].map((k) => k.slice(s3Prefix.length)) : [];
      return [...files, ...objects];
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json: unknown;
  /** Whether the server sent 100 Continue. */
  continued: boolean;
}

export interface Send {
  method?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Wait for 100 Continue before sending the body (sets Expect). */
  expectContinue?: boolean;
}

export function send(baseUrl: string, path: string, options: Send = {}): Promise<Reply> {
  const body = options.body === undefined ? undefined : Buffer.from(options.body);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (body) headers['content-length'] = String(body.length);
    if (options.expectContinue) headers.expect = '100-continue';
    let continued = false;
    const req = httpRequest(
      `${baseUrl}${path}`,
      { method: options.method ?? 'POST', headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          let json: unknown;
          try {
            json = JSON.parse(raw.toString());
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: raw, json, continued });
        });
      },
    );
    req.on('error', reject);
    if (options.expectContinue) {
      req.on('continue', () => {
        continued = true;
        req.end(body);
      });
    } else {
      req.end(body);
    }
  });
}

/** A multipart/form-data body: text fields, then the file. */
export function multipart(
  fields: Record<string, string>,
  file?: { field?: string; content: Buffer },
): { body: Buffer; contentType: string } {
  const boundary = '----slipway-test-boundary-7d1f';
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'archive'}"; filename="base.tar.gz"\r\n` +
          'Content-Type: application/gzip\r\n\r\n',
      ),
      file.content,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}
