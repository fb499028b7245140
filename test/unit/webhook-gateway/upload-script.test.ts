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
import { NAMESPACE, PROJECT } from './support/objects.ts';

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
      env: { PATH: process.env.PATH ?? '', ...options.env },
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
  it('archives the base directory without .git, node_modules and vendor, uploads it, and prints the bundles', async () => {
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
      'templates/index.twig',
      'web/index.php',
      'web/vendor/keep.js',
    ]);
  });

  it('includes dependencies when SLIPWAY_INCLUDE_DEPENDENCIES=1, and reads the secret from stdin given -', async () => {
    const result = await run(args('-'), {
      env: { SLIPWAY_INCLUDE_DEPENDENCIES: '1' },
      stdin: `${TEST_SECRET}\n`,
    });
    expect(result.code).toBe(0);
    const [bundle] = [...gateway.bundles.values()];
    const key = new URL(bundle!.spec.source.archive!.url).pathname.replace('/archives/', '');
    expect(await archiveEntries(key)).toEqual(
      expect.arrayContaining([
        'node_modules/left-pad/index.js',
        'vendor/autoload.php',
        'web/node_modules/x/index.js',
      ]),
    );
    expect(await archiveEntries(key)).not.toContain('.git/HEAD');
  });

  it('says it is a duplicate when the same archive is uploaded again', async () => {
    const first = await run(args());
    expect(first.code).toBe(0);
    const again = await run(args());
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already exists \(same commit and archive\)/);
  });

  it('prints usage and exits non-zero with missing arguments, without uploading', async () => {
    const before = gateway.observations.length;
    const result = await run([PROJECT, TEST_SECRET, '0123abc']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^usage: sh upload.sh <project-slug> <webhook-secret> <commit-sha> <path-to-craft-base-dir> <comment> <branch>/,
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

describe('renderUploadScript', () => {
  it('fills the base URL in as one shell word, whatever it contains', () => {
    const rendered = renderUploadScript("https://example.com/it's");
    expect(rendered).toContain(`base_url='https://example.com/it'\\''s'`);
    expect(() => renderUploadScript('ftp://example.com')).toThrow();
  });
});
