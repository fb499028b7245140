// What a project's builds and backups reach outside the cluster, run on this machine at the real
// node's host address: a git server with a real repository, a MariaDB and a PostgreSQL server.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  chownSync,
  closeSync,
  mkdirSync,
  openSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { commitAndPush, createRepository, serveRepositories } from '../../../scripts/git-server.ts';
import { freePort, freeServicePort, stopProcess } from '../../../scripts/processes.ts';
import { waitFor } from '../../support/cluster.ts';
import { track } from './leftovers.ts';

const run = promisify(execFile);

function openLog(file: string): number {
  mkdirSync(dirname(file), { recursive: true });
  return openSync(file, 'a');
}

function daemon(
  command: string,
  args: string[],
  logFile: string,
  options: { uid?: number; gid?: number; cwd?: string } = {},
): ChildProcess {
  const out = openLog(logFile);
  const child = spawn(command, args, { stdio: ['ignore', out, out], ...options });
  closeSync(out);
  return track(child, command);
}

export interface GitServer {
  url: string;
  /** Writes `files` (path → content) into the work tree, commits and pushes `branch`; the commit id. */
  commit(files: Record<string, string>, message: string, branch?: string): Promise<string>;
  stop(): Promise<void>;
}

/** A repository served by `git daemon` at git://<address>:<port>/site.git. */
export async function startGitServer(address: string, logDir: string): Promise<GitServer> {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-e2e-git-'));
  const workTree = await createRepository(dir, 'site');
  const log = openLog(join(logDir, 'git-daemon.log'));
  // Build Jobs clone from it: a port the build namespace's policy opens on the host.
  const { url, server } = await serveRepositories(dir, address, await freeServicePort(address), 'site', log);
  track(server, 'git');
  closeSync(log);
  return {
    url,
    commit: (files, message, branch) => commitAndPush(workTree, files, message, branch),
    async stop() {
      await stopProcess(server);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What both database servers hold: database `appdb`, owned by user `app`, with a table `t` of two rows. */
const APP = { database: 'appdb', username: 'app', password: 'app-password' } as const;

/** A database server with database `appdb`, user `app` and a table `t` with two rows. */
export interface Database {
  engine: 'mysql' | 'postgresql';
  host: string;
  port: number;
  database: string;
  username: string;
  password: string;
  /** Loads a dump into a fresh database and returns the rows of `t` found there. */
  restoreRows(dumpFile: string): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startMariaDb(address: string, logDir: string): Promise<Database> {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-e2e-mariadb-'));
  const socket = join(dir, 'mysqld.sock');
  await run('mariadb-install-db', [
    '--no-defaults',
    `--datadir=${dir}/data`,
    '--user=root',
    '--auth-root-authentication-method=normal',
  ]);
  const port = await freePort(address);
  const child = daemon(
    '/usr/sbin/mariadbd',
    [
      '--no-defaults',
      `--datadir=${dir}/data`,
      '--user=root',
      `--bind-address=${address}`,
      `--port=${port}`,
      `--socket=${socket}`,
      `--pid-file=${dir}/mysqld.pid`,
      '--skip-name-resolve',
      '--skip-log-bin',
    ],
    join(logDir, 'mariadb.log'),
  );
  const sql = (statements: string, database?: string) =>
    run('mariadb', [
      '--no-defaults',
      '-S',
      socket,
      '-uroot',
      '-N',
      '-e',
      statements,
      ...(database ? [database] : []),
    ]);
  await waitFor(
    'MariaDB',
    async () =>
      sql('SELECT 1').then(
        () => true,
        () => false,
      ),
    30_000,
    200,
  );
  await sql(
    "CREATE DATABASE appdb; CREATE USER 'app'@'%' IDENTIFIED BY 'app-password'; GRANT ALL ON appdb.* TO 'app'@'%'; " +
      "CREATE TABLE appdb.t (id INT PRIMARY KEY, v VARCHAR(20)); INSERT INTO appdb.t VALUES (1, 'one'), (2, 'two');",
  );
  return serverOf('mysql', address, port, {
    sql: async (statement, database) => (await sql(statement, database)).stdout,
    load: (database, dumpFile) =>
      run('sh', ['-c', `mariadb --no-defaults -S '${socket}' -uroot ${database} < '${dumpFile}'`]),
    process: child,
    dir,
  });
}

export async function startPostgres(address: string, logDir: string): Promise<Database> {
  const bin = join('/usr/lib/postgresql', readdirSync('/usr/lib/postgresql').sort().pop()!, 'bin');
  const dir = mkdtempSync(join(tmpdir(), 'slipway-e2e-postgres-'));
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout);
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout);
  chownSync(dir, uid, gid);
  // PostgreSQL refuses to run as root: its commands run as the postgres user.
  const asPostgres = (command: string, args: string[]) =>
    run(join(bin, command), args, { uid, gid, cwd: dir, env: { PATH: process.env.PATH } });
  await asPostgres('initdb', ['-D', `${dir}/data`, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  writeFileSync(
    join(dir, 'data', 'pg_hba.conf'),
    'local all all trust\nhost all all 0.0.0.0/0 scram-sha-256\n',
  );
  const port = await freePort(address);
  const child = daemon(
    join(bin, 'postgres'),
    [
      '-D',
      `${dir}/data`,
      '-p',
      String(port),
      '-c',
      `listen_addresses=${address}`,
      '-c',
      `unix_socket_directories=${dir}`,
    ],
    join(logDir, 'postgres.log'),
    { uid, gid, cwd: dir },
  );
  const connection = ['-h', dir, '-p', String(port), '-U', 'postgres'];
  const psql = (statements: string, database = 'postgres') =>
    asPostgres('psql', [...connection, '-d', database, '-At', '-v', 'ON_ERROR_STOP=1', '-c', statements]);
  await waitFor(
    'PostgreSQL',
    async () =>
      psql('SELECT 1').then(
        () => true,
        () => false,
      ),
    30_000,
    200,
  );
  await psql("CREATE USER app PASSWORD 'app-password'");
  await psql('CREATE DATABASE appdb OWNER app');
  await psql(
    "CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t VALUES (1, 'one'), (2, 'two'); ALTER TABLE t OWNER TO app",
    'appdb',
  );
  return serverOf('postgresql', address, port, {
    sql: async (statement, database) => (await psql(statement, database)).stdout,
    load: (database, dumpFile) =>
      run(join(bin, 'pg_restore'), [...connection, '--no-owner', '-d', database, dumpFile]),
    process: child,
    dir,
  });
}

/** The Database of a server started in `dir`: restores into fresh databases; stop removes it all. */
function serverOf(
  engine: Database['engine'],
  host: string,
  port: number,
  server: {
    sql: (statement: string, database?: string) => Promise<string>;
    load: (database: string, dumpFile: string) => Promise<unknown>;
    process: ChildProcess;
    dir: string;
  },
): Database {
  let restores = 0;
  return {
    engine,
    host,
    port,
    ...APP,
    async restoreRows(dumpFile) {
      const database = `restored${++restores}`;
      await server.sql(`CREATE DATABASE ${database}`);
      await server.load(database, dumpFile);
      return (await server.sql('SELECT v FROM t ORDER BY id', database)).trim().split('\n');
    },
    async stop() {
      await stopProcess(server.process);
      rmSync(server.dir, { recursive: true, force: true });
    },
  };
}
