import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import tarStream from 'tar-stream';
import { renderUploadScript } from '../../../webhook-gateway/upload-script.ts';
import { TEST_SECRET } from './support/fixtures.ts';
import { send, startGateway, type Harness } from './support/gateway.ts';
import { NAMESPACE, PROJECT } from '../../support/builders.ts';

let gateway: Harness;
let work: string;
let script: string;
let baseDir: string;

beforeAll(async () => {
  gateway = await startGateway();
  work = await mkdtemp(join(tmpdir(), 'slipway-upload-sh-'));
  const reply = await send(gateway.baseUrl, '/upload.sh', { method: 'GET' });
  expect(reply.status).toBe(200);
  script = join(work, 'upload.sh');
  await writeFile(script, reply.body);
});
afterAll(async () => {
  await gateway.close();
  await rm(work, { recursive: true, force: true });
});

beforeEach(async () => {
  gateway.bundles.clear();
  baseDir = await mkdtemp(join(work, 'project-'));
  const files: Record<string, string> = {
    'config/general.php': '<?php return [];\n',
    'web/index.php': '<?php echo "hi";\n',
    'web/vendor/keep.js': '// not the top-level vendor\n',
    'templates/index.twig': '{{ hello }}\n',
    '.git/HEAD': 'ref: refs/heads/main\n',
    'node_modules/left-pad/index.js': 'module.exports = 1;\n',
    'web/node_modules/x/index.js': 'module.exports = 2;\n',
    'vendor/autoload.php': '<?php\n',
  };
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(baseDir, path, '..'), { recursive: true });
    await writeFile(join(baseDir, path), content);
  }
});

function run(args: string[], options: { env?: Record<string, string>; stdin?: string } = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn('sh', [script, ...args], {
      // Waiting for the bundles has tests of its own, below.
      env: { PATH: process.env.PATH ?? '', SLIPWAY_WAIT: '0', ...options.env },
      cwd: work,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // A script that fails early exits before reading its stdin: EPIPE then, and its exit code is the answer.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin ?? '');
  });
}

async function archiveEntries(key: string): Promise<string[]> {
  const names: string[] = [];
  const extract = tarStream.extract();
  extract.on('entry', (header, stream, next) => {
    names.push(header.name.replace(/^\.\//, ''));
    stream.on('end', () => next());
    stream.resume();
  });
  await pipeline(createReadStream(join(gateway.storeDir, key)), createGunzip(), extract);
  return names.filter((n) => n !== '' && !n.endsWith('/')).sort();
}

const args = (secret = TEST_SECRET) => [
  PROJECT,
  secret,
  '0123abc',
  baseDir,
  'Add the login form',
  'feature/login',
];

describe('upload.sh, as served by the gateway', () => {
  it('archives the base directory without .git, uploads it, and prints the bundles', async () => {
    const result = await run(args());
    expect(result.stderr).toContain('slipway: uploading');
    expect(result.code).toBe(0);
    const [bundle] = [...gateway.bundles.values()];
    expect(bundle).toBeDefined();
    const name = bundle!.metadata.name;
    expect(result.stdout).toBe(
      `bundle ${name} created (webhook previews, deploys to preview)\n` +
        `follow with: kubectl --namespace ${NAMESPACE} get bundles.slipway.dev ${name} --watch\n`,
    );
    expect(bundle!.spec).toMatchObject({
      source: { archive: { commit: '0123abc', branch: 'feature/login' } },
      comment: 'Add the login form',
      trigger: { type: 'Upload' },
    });
    const key = new URL(bundle!.spec.source.archive!.url).pathname.replace('/archives/', '');
    expect(await archiveEntries(key)).toEqual([
      'config/general.php',
      'node_modules/left-pad/index.js',
      'templates/index.twig',
      'vendor/autoload.php',
      'web/index.php',
      'web/node_modules/x/index.js',
      'web/vendor/keep.js',
    ]);
  });

  it('leaves out what SLIPWAY_EXCLUDE names, taking each pattern literally, and reads the secret from stdin given -', async () => {
    // Were '*.twig' expanded by the shell, it would become this file's name and exclude nothing.
    await writeFile(join(work, 'other.twig'), '');
    const result = await run(args('-'), {
      env: { SLIPWAY_EXCLUDE: 'node_modules ./vendor *.twig' },
      stdin: `${TEST_SECRET}\n`,
    });
    expect(result.code).toBe(0);
    const [bundle] = [...gateway.bundles.values()];
    const key = new URL(bundle!.spec.source.archive!.url).pathname.replace('/archives/', '');
    expect(await archiveEntries(key)).toEqual(['config/general.php', 'web/index.php', 'web/vendor/keep.js']);
  });

  it('takes a secret saved with a Windows line end, and ignores a ~/.curlrc that says --fail', async () => {
    const home = join(work, 'home');
    await mkdir(home);
    // With --fail from a curlrc, curl would exit 22 on any refusal and hide the answer.
    await writeFile(join(home, '.curlrc'), '--fail\n');
    const result = await run(args('-'), { env: { HOME: home }, stdin: `${TEST_SECRET}\r\n` });
    expect(result.code).toBe(0);
    expect(gateway.bundles.size).toBe(1);
    const wrong = await run(args('not-the-secret'), { env: { HOME: home } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('upload refused (HTTP 401)');
  });

  it('says it is a duplicate when the same archive is uploaded again', async () => {
    const first = await run(args());
    expect(first.code).toBe(0);
    const again = await run(args());
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already exists \(same commit and archive\)/);
  });

  it('says a bundle pruned since is not built again, and does not wait for it', async () => {
    const first = await run(['--no-wait', ...args()]);
    expect(first.code).toBe(0);
    const [name] = [...gateway.bundles.keys()];
    gateway.bundles.delete(name!);
    // The gateway is shared by this file's tests: the project is put back as it was.
    const project = gateway.projects.get(PROJECT)!;
    gateway.projects.set(PROJECT, { ...project, prunedBundles: new Set([name!]) });
    try {
      const replay = await run(args());
      expect(replay.code).toBe(0);
      expect(replay.stdout).toContain(`bundle ${name} was built before and pruned since: not built again`);
      expect(replay.stderr).not.toMatch(/cannot (wait|follow)/);
      expect(gateway.bundles.size).toBe(0);
    } finally {
      gateway.projects.set(PROJECT, project);
    }
  });

  it('prints usage and exits non-zero with missing arguments, without uploading', async () => {
    const before = gateway.observations.length;
    const result = await run([PROJECT, TEST_SECRET, '0123abc']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^usage: sh upload.sh \[--no-wait\] <project-slug> <webhook-secret> <commit-sha> <path-to-craft-base-dir> <comment> <branch>/,
    );
    expect(gateway.observations.length).toBe(before);
  });

  it("exits non-zero with the server's message when the upload is refused", async () => {
    const wrong = await run(args('not-the-secret'));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(
      'slipway: upload refused (HTTP 401): the request could not be authenticated',
    );

    await symlink('../../../etc/passwd', join(baseDir, 'web', 'passwd'));
    const hostile = await run(args());
    expect(hostile.code).toBe(1);
    expect(hostile.stderr).toContain(
      "upload refused (HTTP 422): symlink 'web/passwd' points outside the archive",
    );
    expect(gateway.bundles.size).toBe(0);
  });

  it('fails clearly for a base directory that does not exist', async () => {
    const result = await run([PROJECT, TEST_SECRET, '0123abc', join(work, 'missing'), 'x', 'main']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the base directory does not exist');
  });
});

describe('upload.sh waits for the bundles it started', () => {
  /** Runs the script, with its output readable while it runs. */
  function start(scriptPath: string, scriptArgs: string[], env: Record<string, string> = {}) {
    const child = spawn('sh', [scriptPath, ...scriptArgs], {
      env: { PATH: process.env.PATH ?? '', SLIPWAY_WAIT_INTERVAL: '0.1', ...env },
      cwd: work,
    });
    let output = '';
    const listeners: Array<() => void> = [];
    const collect = (c: Buffer) => {
      output += c.toString();
      for (const l of listeners) l();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.stdin.end('');
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    return {
      exited,
      output: () => output,
      /** Resolves once the output matches `pattern`. */
      printed: (pattern: RegExp) =>
        new Promise<void>((resolve) => {
          const check = () => {
            if (pattern.test(output)) resolve();
          };
          listeners.push(check);
          check();
        }),
    };
  }

  /** Sets the status the gateway's cache shows for the one bundle the upload made. */
  function setStatus(
    phase: string,
    ready: { status: 'True' | 'False' | 'Unknown'; reason: string; message: string },
  ) {
    const [bundle] = [...gateway.bundles.values()];
    bundle!.status = {
      phase: phase as never,
      conditions: [{ type: 'Ready', ...ready, lastTransitionTime: '2026-03-01T10:00:00Z' }],
    };
    return bundle!.metadata.name;
  }

  it('prints each phase and exits 0 once the bundle is ready', async () => {
    const upload = start(script, args());
    await upload.printed(/bundle \S+ created/);
    await upload.printed(/bundle \S+: Pending/);
    const name = setStatus('Building', {
      status: 'Unknown',
      reason: 'Building',
      message: 'build Job is running',
    });
    await upload.printed(new RegExp(`bundle ${name}: Building \\(Building\\): build Job is running`));
    // The branch's webhook deploys to preview: built is not the end, deployed is.
    setStatus('Built', { status: 'Unknown', reason: 'BackingUp', message: 'backup Job started' });
    await upload.printed(new RegExp(`bundle ${name}: Built \\(BackingUp\\)`));
    setStatus('Ready', {
      status: 'True',
      reason: 'Succeeded',
      message: 'environment preview runs image r/shop:1',
    });
    expect(await upload.exited).toBe(0);
    expect(upload.output()).toContain(
      `bundle ${name}: Ready (Succeeded): environment preview runs image r/shop:1`,
    );
  });

  it('exits 3 with the reason when a bundle fails', async () => {
    const upload = start(script, args());
    await upload.printed(/bundle \S+: Pending/);
    const name = setStatus('Failed', {
      status: 'False',
      reason: 'BuildFailed',
      message: 'build Job failed: Container build exited with code 1: "composer install" failed',
    });
    expect(await upload.exited).toBe(3);
    expect(upload.output()).toContain(
      `bundle ${name}: Failed (BuildFailed): build Job failed: Container build exited with code 1: "composer install" failed`,
    );
    expect(upload.output()).toContain('slipway: a bundle failed');
  });

  // curl tries an unreachable gateway 4 times, 5 s apart, before giving up.
  it('exits 4 when the gateway cannot be reached or cannot take the upload', async () => {
    const unreachable = join(work, 'unreachable.sh');
    await writeFile(unreachable, renderUploadScript('http://127.0.0.1:9'));
    const offline = start(unreachable, args(), { SLIPWAY_WAIT: '0' });
    expect(await offline.exited).toBe(4);
    expect(offline.output()).toContain('slipway: the upload to http://127.0.0.1:9 failed');
    gateway.state.failCreate = true;
    try {
      const broken = start(script, args());
      expect(await broken.exited).toBe(4);
      expect(broken.output()).toMatch(/the gateway could not take the upload \(HTTP 503\)/);
    } finally {
      gateway.state.failCreate = false;
    }
  }, 60_000);

  it('does not wait with --no-wait', async () => {
    const upload = start(script, ['--no-wait', ...args()]);
    expect(await upload.exited).toBe(0);
    expect(upload.output()).toMatch(
      new RegExp(`follow with: kubectl --namespace ${NAMESPACE} get bundles.slipway.dev \\S+ --watch`),
    );
  });
});

describe('renderUploadScript', () => {
  it('fills the base URL in as one shell word, whatever it contains', () => {
    const rendered = renderUploadScript("https://example.com/it's");
    expect(rendered).toContain(`base_url='https://example.com/it'\\''s'`);
    expect(() => renderUploadScript('ftp://example.com')).toThrow();
  });
});
