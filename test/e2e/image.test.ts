// Slipway's image as built here (scripts/image/build.ts, no Docker engine) and as the Dockerfile
// describes it for users with Docker must be the same image: the app files the Dockerfile copies,
// owned by root, the same user, working directory, environment, ports and command, Node of the
// pinned version and no npm. Read from the built image itself (crane config / crane export).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { onHost, realNode } from '../../scripts/cluster/real-node.ts';
import { dockerignoreKeeps, parseDockerfile } from '../../scripts/image/dockerfile.ts';
import { buildSlipwayImage, type SlipwayImage } from '../../scripts/image/build.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const node = realNode();
const recipe = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
let image: SlipwayImage;
/** `tar -tv` lines of the image's flattened file system. */
let listing: { mode: string; owner: string; path: string }[];
let out = '';

interface ImageConfig {
  config: {
    User?: string;
    WorkingDir?: string;
    Env?: string[];
    Cmd?: string[];
    Entrypoint?: string[] | null;
    ExposedPorts?: Record<string, object>;
    Labels?: Record<string, string>;
  };
}

let passwd: string;
let nodeDigest: string;

beforeAll(async () => {
  image = await buildSlipwayImage(node);
  const dir = mkdtempSync(join(tmpdir(), 'slipway-image-'));
  try {
    const fs = join(dir, 'fs.tar');
    await run(node.crane, ['export', '--insecure', onHost(node, image.ref), fs]);
    passwd = (await run('tar', ['-xOf', fs, 'etc/passwd'])).stdout;
    const digest = (await run('sh', ['-c', 'tar -xOf "$0" usr/local/bin/node | sha256sum', fs])).stdout;
    nodeDigest = digest.split(' ')[0]!;
    out = (await run('tar', ['-tvf', fs, '--numeric-owner'], { maxBuffer: 256 * 1024 * 1024 })).stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  listing = out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [mode, owner, , , , ...rest] = line.split(/\s+/);
      return {
        mode: mode!,
        owner: owner!,
        path: rest
          .join(' ')
          .replace(/ -> .*$/, '')
          .replace(/^\.\//, ''),
      };
    });
}, 10 * 60_000);

describe("Slipway's image", () => {
  it('holds exactly the app files the Dockerfile copies, owned by root', async () => {
    const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8');
    const expected = new Set<string>();
    for (const copy of recipe.copies.filter((c) => !c.from)) {
      const { stdout } = await run(
        'git',
        ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...copy.sources],
        {
          cwd: ROOT,
        },
      );
      for (const file of stdout.split('\n').filter(Boolean)) {
        if (dockerignoreKeeps(ignore, file)) expected.add(`app/${file}`);
      }
    }
    const appFiles = listing
      .filter(
        (e) =>
          e.path.startsWith('app/') && !e.path.startsWith('app/node_modules/') && !e.mode.startsWith('d'),
      )
      .map((e) => e.path);
    expect(appFiles.sort()).toEqual([...expected].sort());
    expect(appFiles.some((f) => f.endsWith('.test.ts'))).toBe(false);
    const notRoot = listing.filter((e) => e.path.startsWith('app/') && e.owner !== '0/0');
    expect(notRoot).toEqual([]);
    expect(listing.filter((e) => e.path.startsWith('app/') && /^.{5}w|^.{8}w/.test(e.mode))).toEqual([]);
    // The production dependencies only: a runtime dependency is there, a dev one is not.
    expect(listing.some((e) => e.path === 'app/node_modules/express/package.json')).toBe(true);
    expect(listing.some((e) => e.path.startsWith('app/node_modules/jest/'))).toBe(false);
  });

  it('has no npm, and Node of the version the Dockerfile pins', async () => {
    expect(listing.filter((e) => /(^|\/)(npm|npx|corepack)(\/|$)/.test(e.path))).toEqual([]);
    // The image's node is the npm registry's node package of the pinned version, byte for byte.
    const pinned = join(ROOT, 'node_modules', 'node', 'bin', 'node');
    expect((await run(pinned, ['--version'])).stdout.trim()).toBe(`v${recipe.args.NODE_VERSION}`);
    expect(nodeDigest).toBe(createHash('sha256').update(readFileSync(pinned)).digest('hex'));
  });

  it("runs as the Dockerfile's user, in its working directory, with its environment, ports and command", async () => {
    const { stdout } = await run(node.crane, ['config', '--insecure', onHost(node, image.ref)]);
    const { config } = JSON.parse(stdout) as ImageConfig;
    expect(config.User).toBe(recipe.user);
    expect(recipe.user).toBe('10001:10001');
    expect(config.WorkingDir).toBe(recipe.workdir);
    for (const [k, v] of Object.entries(recipe.env)) expect(config.Env).toContain(`${k}=${v}`);
    expect(Object.keys(config.ExposedPorts ?? {}).sort()).toEqual([...recipe.exposedPorts].sort());
    expect(config.Labels).toMatchObject(recipe.labels);
    expect(config.Cmd).toEqual(recipe.cmd);
    expect(config.Entrypoint ?? null).toBeNull();
    expect(passwd).toMatch(/^slipway:x:10001:10001:/m);
  });

  it('has the entry point of every process the chart starts', () => {
    const templates = join(ROOT, 'charts', 'slipway', 'templates');
    const commands = readdirSync(templates)
      .filter((f) => f.endsWith('-deployment.yaml'))
      .flatMap((f) =>
        [...readFileSync(join(templates, f), 'utf8').matchAll(/command: \[node, ([^\]]+)\]/g)].map(
          (m) => m[1]!,
        ),
      );
    expect(commands.sort()).toEqual(['operator/main.ts', 'status-api/main.ts', 'webhook-gateway/main.ts']);
    for (const entry of commands) {
      expect(listing.some((e) => e.path === `app/${entry}`)).toBe(true);
      expect(recipe.cmd.join(' ')).toContain(`node ${entry}`);
    }
  });
});
