// Slipway's own image, built on this machine without a Docker engine, from what the Dockerfile
// says (dockerfile.ts): the real node's Debian base with the slipway user (uid/gid 10001), then
// one layer each for Node (the npm registry's `node` package, the version the Dockerfile pins),
// the production dependencies (`npm ci --omit=dev`) and the app files the Dockerfile copies —
// all owned by root — with its user, working directory, environment, ports and command. No npm
// in the image. Cached as a tarball keyed by a hash of everything that goes in, and pushed to
// the real node's registry.
//   node scripts/image/build.ts      prints the image reference (needs the real node up)
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cacheRoot } from '../cluster/control-plane.ts';
import { onHost, realNode, type RealNode } from '../cluster/real-node.ts';
import { dockerignoreKeeps, parseDockerfile, type ImageRecipe } from './dockerfile.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const cacheDir = join(cacheRoot, 'image');

export interface SlipwayImage {
  /** registry/slipway/slipway:tag, pullable by the node. */
  ref: string;
  repository: string;
  tag: string;
  /** The cached image tarball (crane's format). */
  tarball: string;
  /** True when the tarball was already there (nothing was built). */
  cached: boolean;
}

/** The recipe read from the repository's Dockerfile. */
export function slipwayRecipe(): ImageRecipe {
  return parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
}

/** Every file the Dockerfile copies from the build context: path in the repository → path in the image. */
export function appFiles(recipe: ImageRecipe): Map<string, string> {
  const ignore = existsSync(join(root, '.dockerignore'))
    ? readFileSync(join(root, '.dockerignore'), 'utf8')
    : '';
  const files = new Map<string, string>();
  const walk = (path: string): string[] =>
    statSync(join(root, path)).isDirectory()
      ? readdirSync(join(root, path)).flatMap((entry) => walk(posix.join(path, entry)))
      : [path];
  for (const copy of recipe.copies.filter((c) => !c.from)) {
    const dest = posix.resolve(recipe.workdir, copy.dest);
    const intoFolder = copy.dest.endsWith('/') || copy.sources.length > 1;
    for (const source of copy.sources) {
      const top = posix.normalize(source);
      for (const file of walk(top).filter((f) => dockerignoreKeeps(ignore, f))) {
        const inside = statSync(join(root, top)).isDirectory()
          ? posix.relative(top, file)
          : posix.basename(file);
        const target = statSync(join(root, top)).isDirectory()
          ? posix.join(dest, inside)
          : intoFolder
            ? posix.join(dest, inside)
            : dest;
        files.set(file, target);
      }
    }
  }
  return files;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** A layer tarball of `dir`: root-owned, no group/other write, fixed times and order. */
async function layer(dir: string, out: string) {
  await run('tar', [
    '--numeric-owner',
    '--owner=0',
    '--group=0',
    '--mode=go-w,a+rX',
    '--mtime=@0',
    '--sort=name',
    '-C',
    dir,
    '-cf',
    out,
    '.',
  ]);
}

/** The production dependencies (Dockerfile's deps stage), as a layer cached by the lock file. */
async function dependenciesLayer(work: string, log: (m: string) => void): Promise<string> {
  const lock = readFileSync(join(root, 'package-lock.json'));
  const cached = join(cacheDir, `deps-${sha256(lock).slice(0, 16)}.tar`);
  if (existsSync(cached)) return cached;
  log('installing the production dependencies (npm ci --omit=dev)');
  const app = join(work, 'deps', 'app');
  mkdirSync(app, { recursive: true });
  cpSync(join(root, 'package.json'), join(app, 'package.json'));
  cpSync(join(root, 'package-lock.json'), join(app, 'package-lock.json'));
  await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: app,
    maxBuffer: 16 * 1024 * 1024,
  });
  rmSync(join(app, 'package.json'));
  rmSync(join(app, 'package-lock.json'));
  await layer(join(work, 'deps'), `${cached}.tmp`);
  renameSync(`${cached}.tmp`, cached);
  return cached;
}

/** Keeps the three newest image tarballs (each commit's sources make a new one, ~160 MB). */
function pruneOlderImages(keep: string) {
  const images = readdirSync(cacheDir)
    .filter((f) => /^slipway-[0-9a-f]+\.tar$/.test(f))
    .map((f) => join(cacheDir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  for (const old of images.slice(3)) if (old !== keep) rmSync(old, { force: true });
}

export async function buildSlipwayImage(
  node: RealNode = realNode(),
  log: (message: string) => void = (m) => process.stderr.write(`[image] ${m}\n`),
): Promise<SlipwayImage> {
  const recipe = slipwayRecipe();
  const nodeVersion = recipe.args.NODE_VERSION;
  const pinned = (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    }
  ).devDependencies.node;
  if (!nodeVersion || nodeVersion !== pinned)
    throw new Error(
      `the Dockerfile's NODE_VERSION (${nodeVersion}) must be the node devDependency (${pinned})`,
    );
  const nodeBinary = join(root, 'node_modules', 'node', 'bin', 'node');
  const actual = (await run(nodeBinary, ['--version'])).stdout.trim();
  if (actual !== `v${nodeVersion}`)
    throw new Error(`${nodeBinary} is ${actual}, not v${nodeVersion}: run npm ci`);
  for (const copy of recipe.copies.filter((c) => c.from)) {
    if (copy.from !== 'deps' || copy.sources.join() !== '/app/node_modules')
      throw new Error(
        `scripts/image/build.ts knows only COPY --from=deps /app/node_modules, not ${JSON.stringify(copy)}`,
      );
  }
  // The final stage's one RUN drops npm and adds the slipway user: the base image (images.sh)
  // and the absence of npm here do the same. Another RUN would not be reproduced: refuse it.
  if (
    recipe.runs.length !== 1 ||
    !/^rm -rf \/usr\/local\/lib\/node_modules\/npm .* useradd --uid 10001 --gid 10001 /.test(recipe.runs[0]!)
  )
    throw new Error(
      `scripts/image/build.ts reproduces only the Dockerfile's known RUN (drop npm, add uid 10001), not ${JSON.stringify(recipe.runs)}`,
    );
  if (recipe.cmd.some((word) => word.includes(',')))
    throw new Error("the Dockerfile's CMD may not contain commas (crane mutate --cmd splits on them)");

  // On the registry's host door (the one for pods asks for tokens): the same images, by the same names.
  const crane = async (...args: string[]) =>
    (
      await run(node.crane, [...args.map((a) => onHost(node, a)), '--insecure'], {
        maxBuffer: 64 * 1024 * 1024,
      })
    ).stdout.trim();
  const files = appFiles(recipe);
  const hash = createHash('sha256');
  for (const part of [
    readFileSync(join(root, 'Dockerfile')),
    existsSync(join(root, '.dockerignore')) ? readFileSync(join(root, '.dockerignore')) : '',
    node.images.slipwayBase,
    nodeVersion,
    readFileSync(join(root, 'package-lock.json')),
    // How the image is put together is part of what goes in.
    readFileSync(fileURLToPath(import.meta.url)),
    readFileSync(fileURLToPath(new URL('./dockerfile.ts', import.meta.url))),
  ])
    hash.update(part).update('\0');
  for (const [file, target] of [...files].sort(([a], [b]) => a.localeCompare(b)))
    hash
      .update(`${target}\0${statSync(join(root, file)).mode & 0o111 ? 'x' : '-'}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  const key = hash.digest('hex');
  const tag = `dev-${key.slice(0, 12)}`;
  const repository = `${node.registry}/slipway/slipway`;
  const ref = `${repository}:${tag}`;
  const tarball = join(cacheDir, `slipway-${key.slice(0, 32)}.tar`);
  mkdirSync(cacheDir, { recursive: true });
  if (existsSync(tarball)) {
    await crane('push', tarball, ref);
    return { ref, repository, tag, tarball, cached: true };
  }

  const started = Date.now();
  const work = mkdtempSync(join(cacheDir, 'work-'));
  try {
    const nodeDir = join(work, 'node', 'usr', 'local', 'bin');
    mkdirSync(nodeDir, { recursive: true });
    cpSync(nodeBinary, join(nodeDir, 'node'));
    chmodSync(join(nodeDir, 'node'), 0o755);
    await layer(join(work, 'node'), join(work, 'node.tar'));
    const deps = await dependenciesLayer(work, log);
    for (const [file, target] of files) {
      const into = join(work, 'app', relative('/', target));
      mkdirSync(join(into, '..'), { recursive: true });
      cpSync(join(root, file), into);
    }
    await layer(join(work, 'app'), join(work, 'app.tar'));
    log(`assembling ${ref} (${files.size} app files)`);
    await crane(
      'append',
      '-b',
      node.images.slipwayBase,
      '-f',
      join(work, 'node.tar'),
      '-f',
      deps,
      '-f',
      join(work, 'app.tar'),
      '-t',
      ref,
    );
    await crane(
      'mutate',
      ref,
      '-t',
      ref,
      '--user',
      recipe.user,
      '--workdir',
      recipe.workdir,
      ...Object.entries(recipe.env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
      ...Object.entries(recipe.labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]),
      '--exposed-ports',
      recipe.exposedPorts.join(','),
      '--cmd',
      recipe.cmd.join(','),
    );
    await crane('pull', ref, `${tarball}.tmp`);
    renameSync(`${tarball}.tmp`, tarball);
    pruneOlderImages(tarball);
    log(`built ${ref} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { ref, repository, tag, tarball, cached: false };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (fileURLToPath(import.meta.url) === process.argv[1]) {
  buildSlipwayImage().then(
    (image) => process.stdout.write(`${image.ref}\n`),
    (err: unknown) => {
      process.stderr.write(`image build failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
