// A real Gitea for tests (scripts/gitea/build.sh builds it once): its own folder, SQLite, on a
// free loopback port, one admin user, webhooks allowed to any host. It hosts repositories over
// HTTP, sends real push deliveries and answers the commit status API.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { waitFor } from '../../lib/wait.ts';
import { freePort, freeServicePort } from '../../scripts/processes.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Gitea {
  /** Where this machine reaches it (loopback): its API, and pushes. */
  url: string;
  /** Where others reach it: pods on the real node clone from here, and its payloads name it. */
  publicUrl: string;
  user: string;
  password: string;
  /** A call of Gitea's REST API (/api/v1…) as the admin user; throws unless it answers 2xx. */
  api: GiteaApi;
  /** The admin's repository's clone URL, with the admin's credentials in it (for git push). */
  pushUrl(repo: string): string;
  /** With options.tls: Gitea's API behind a TLS front on the public address, and its CA (PEM). */
  tls?: { apiUrl: string; ca: string };
  /** A new user who is no admin: their API calls, and their repositories' push URLs. */
  addUser(name: string): Promise<{ api: GiteaApi; pushUrl(repo: string): string }>;
  stop(): Promise<void>;
}

export type GiteaApi = <T = unknown>(method: string, path: string, body?: unknown) => Promise<T>;

export interface GiteaOptions {
  /**
   * An address of this machine that pods reach (the real node's host address): Gitea then
   * listens on every address, and names this one in its clone URLs. Loopback only by default.
   */
  publicAddress?: string;
  /** Called with Gitea's process once it runs (the e2e tier records it, to stop it after a crash). */
  started?: (child: ChildProcess, program: string) => void;
  /**
   * Also serve the API over HTTPS on the public address, as a TLS-terminating proxy in front of
   * Gitea would (a certificate made by `gitea cert` for that address): what a Slipway operator
   * in a pod calls, since it sends tokens over HTTPS only.
   */
  tls?: boolean;
}

export async function startGitea(options: GiteaOptions = {}): Promise<Gitea> {
  const dir = execFileSync('sh', [join(ROOT, 'scripts', 'gitea', 'build.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  const work = mkdtempSync(join(tmpdir(), 'slipway-gitea-'));
  // Build Jobs clone from it: a port the build namespace's policy opens on the host.
  const port = await freeServicePort(options.publicAddress ? '0.0.0.0' : '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  const publicUrl = options.publicAddress ? `http://${options.publicAddress}:${port}` : url;
  const config = join(work, 'app.ini');
  writeFileSync(
    config,
    [
      'RUN_MODE = prod',
      `WORK_PATH = ${work}`,
      '[server]',
      `HTTP_ADDR = ${options.publicAddress ? '0.0.0.0' : '127.0.0.1'}`,
      `HTTP_PORT = ${port}`,
      `ROOT_URL = ${publicUrl}/`,
      'DISABLE_SSH = true',
      'OFFLINE_MODE = true',
      `STATIC_ROOT_PATH = ${dir}`,
      `APP_DATA_PATH = ${join(work, 'data')}`,
      '[database]',
      'DB_TYPE = sqlite3',
      `PATH = ${join(work, 'gitea.db')}`,
      '[security]',
      'INSTALL_LOCK = true',
      `SECRET_KEY = ${randomBytes(24).toString('hex')}`,
      '[webhook]',
      // By default Gitea delivers to no private or loopback address: the gateway is on one.
      'ALLOWED_HOST_LIST = *',
      'DELIVER_TIMEOUT = 10',
      '[repository]',
      `ROOT = ${join(work, 'repositories')}`,
      '[log]',
      'MODE = file',
      'LEVEL = Warn',
      `ROOT_PATH = ${join(work, 'log')}`,
      '[service]',
      'DISABLE_REGISTRATION = true',
      '[mailer]',
      'ENABLED = false',
      '',
    ].join('\n'),
  );
  const env = {
    ...process.env,
    GITEA_I_AM_BEING_UNSAFE_RUNNING_AS_ROOT: 'true',
    GITEA_WORK_DIR: work,
    HOME: work,
  };
  const gitea = join(dir, 'gitea');
  await run(gitea, ['migrate', '-c', config], { env });
  const user = 'slipway';
  const password = randomBytes(12).toString('hex');
  await run(
    gitea,
    [
      'admin',
      'user',
      'create',
      '--username',
      user,
      '--password',
      password,
      '--email',
      'slipway@example.com',
    ].concat(['--admin', '--must-change-password=false', '-c', config]),
    { env },
  );
  const child: ChildProcess = spawn(gitea, ['web', '-c', config], { env, stdio: 'ignore' });
  options.started?.(child, gitea);
  let exited = false;
  child.on('exit', () => (exited = true));
  await waitFor(
    `Gitea to answer on ${url} (its log: ${join(work, 'log')})`,
    async () => {
      if (exited) throw new Error(`Gitea exited at start (its log: ${join(work, 'log')})`);
      return (await fetch(`${url}/api/v1/version`).catch(() => undefined))?.ok;
    },
    60_000,
    200,
  );

  const caller =
    (name: string, secret: string): GiteaApi =>
    async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${url}/api/v1${path}`, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${name}:${secret}`).toString('base64')}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`Gitea ${method} ${path}: ${res.status} ${text}`);
      return (text ? JSON.parse(text) : undefined) as T;
    };
  const pushUrlOf = (name: string, secret: string) => (repo: string) =>
    `http://${name}:${secret}@127.0.0.1:${port}/${name}/${repo}.git`;
  const api = caller(user, password);
  const front =
    options.tls && options.publicAddress
      ? await startTlsFront(gitea, work, options.publicAddress, port, env)
      : undefined;

  return {
    url,
    publicUrl,
    user,
    password,
    api,
    pushUrl: pushUrlOf(user, password),
    ...(front ? { tls: { apiUrl: `${front.url}/api/v1`, ca: front.ca } } : {}),
    async addUser(name) {
      const secret = randomBytes(12).toString('hex');
      await api('POST', '/admin/users', {
        username: name,
        email: `${name}@example.com`,
        password: secret,
        must_change_password: false,
      });
      return { api: caller(name, secret), pushUrl: pushUrlOf(name, secret) };
    },
    async stop() {
      front?.server.close();
      if (!exited) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await gone;
      }
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/** `git -C dir …` as a developer "Dev" commits; resolves with its trimmed output. */
export function gitIn(dir: string): (...args: string[]) => Promise<string> {
  return async (...args) => {
    const { stdout } = await run('git', ['-C', dir, ...args], {
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'Dev',
        GIT_AUTHOR_EMAIL: 'dev@example.com',
        GIT_COMMITTER_NAME: 'Dev',
        GIT_COMMITTER_EMAIL: 'dev@example.com',
      },
    });
    return stdout.trim();
  };
}

/**
 * An HTTPS server on `address` that passes every request on to Gitea's HTTP port, with a
 * certificate for that address made by `gitea cert` (its own CA).
 */
async function startTlsFront(
  gitea: string,
  work: string,
  address: string,
  port: number,
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; ca: string; server: HttpsServer }> {
  await run(gitea, ['cert', '--host', address, '--ca', '--duration', '48h'], { cwd: work, env });
  const cert = readFileSync(join(work, 'cert.pem'), 'utf8');
  const server = createHttpsServer({ cert, key: readFileSync(join(work, 'key.pem')) }, (req, res) => {
    const upstream = request(
      { host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => (res.headersSent ? res.destroy() : res.writeHead(502).end(err.message)));
    req.pipe(upstream);
  });
  const tlsPort = await freePort(address);
  await new Promise<void>((resolve) => server.listen(tlsPort, address, resolve));
  return { url: `https://${address}:${tlsPort}`, ca: cert, server };
}
