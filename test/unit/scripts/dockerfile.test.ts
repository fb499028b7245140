// What scripts/image/build.ts reads from the Dockerfile and .dockerignore to assemble Slipway's
// image without Docker: the final stage's instructions, and which context files a build sees.
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { appFiles, slipwayRecipe } from '../../../scripts/image/build.ts';
import { dockerignoreKeeps, parseDockerfile } from '../../../scripts/image/dockerfile.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('parseDockerfile', () => {
  const recipe = parseDockerfile(`# syntax=docker/dockerfile:1
ARG NODE_VERSION=24.1.0
FROM node:\${NODE_VERSION}-slim AS deps
COPY package.json ./
RUN npm ci
FROM node:\${NODE_VERSION}-slim AS runtime
# a comment
RUN groupadd --gid 10001 app \\
  && useradd --uid 10001 app
ENV NODE_ENV=production A="two words"
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY lib ./lib
USER 10001:10001
EXPOSE 8080 8081/udp
LABEL org.opencontainers.image.title="app" \\
      org.opencontainers.image.licenses="Apache-2.0"
CMD ["node", "--eval", "console.log('hi')"]
`);

  it('reads the final stage, with ARG defaults substituted in its base', () => {
    expect(recipe.base).toBe('node:24.1.0-slim');
    expect(recipe.args).toEqual({ NODE_VERSION: '24.1.0' });
    expect(recipe.copies).toEqual([
      { from: 'deps', sources: ['/app/node_modules'], dest: './node_modules' },
      { sources: ['package.json', 'package-lock.json'], dest: './' },
      { sources: ['lib'], dest: './lib' },
    ]);
    expect(recipe.user).toBe('10001:10001');
    expect(recipe.workdir).toBe('/app');
    expect(recipe.env).toEqual({ NODE_ENV: 'production', A: 'two words' });
    expect(recipe.exposedPorts).toEqual(['8080/tcp', '8081/udp']);
    expect(recipe.labels).toEqual({
      'org.opencontainers.image.title': 'app',
      'org.opencontainers.image.licenses': 'Apache-2.0',
    });
    expect(recipe.cmd).toEqual(['node', '--eval', "console.log('hi')"]);
  });
});

describe('parseDockerfile refuses what the recipe would lose', () => {
  it.each([
    'ENTRYPOINT ["node"]',
    'ADD app.tar.gz /app',
    'VOLUME /data',
    'HEALTHCHECK CMD true',
    'STOPSIGNAL SIGINT',
  ])('%s in the final stage', (line) => {
    expect(() => parseDockerfile(`FROM a AS one\nFROM b\n${line}\n`)).toThrow(/final stage has [A-Z]+/);
  });

  it('keeps the final stage RUN commands for the builder to check', () => {
    expect(parseDockerfile('FROM a\nRUN echo one \\\n  && echo two\n').runs).toEqual([
      'echo one && echo two',
    ]);
  });
});

describe('dockerignoreKeeps', () => {
  const ignore = '*\n!package.json\n!lib/\n**/*.test.ts\n!lib/keep.test.ts\ncrds/generated\n';
  it.each([
    ['package.json', true],
    ['README.md', false],
    ['lib/kube.ts', true],
    ['lib/deep/er/file.ts', true],
    ['lib/kube.test.ts', false],
    ['lib/keep.test.ts', true],
    ['test/x.ts', false],
  ])('%s kept: %s', (path, kept) => {
    expect(dockerignoreKeeps(ignore, path)).toBe(kept);
  });
});

describe("the repository's Dockerfile", () => {
  const recipe = slipwayRecipe();
  const files = appFiles(recipe);

  it('pins the Node version of the node devDependency', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      devDependencies: { node: string };
    };
    expect(recipe.args.NODE_VERSION).toBe(pkg.devDependencies.node);
  });

  it('copies the entry points and no tests into /app', () => {
    const targets = [...files.values()];
    for (const entry of ['operator/main.ts', 'webhook-gateway/main.ts', 'status-api/main.ts', 'package.json'])
      expect(targets).toContain(`/app/${entry}`);
    expect(targets.filter((t) => t.endsWith('.test.ts'))).toEqual([]);
    expect(targets.filter((t) => !t.startsWith('/app/'))).toEqual([]);
  });

  it('copies every module the three entry points import, at its own path', () => {
    const missing: string[] = [];
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      if (files.get(file) !== `/app/${file}`) missing.push(file);
      const source = readFileSync(join(ROOT, file), 'utf8');
      for (const m of source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g))
        visit(posix.normalize(posix.join(posix.dirname(file), m[1]!)));
    };
    for (const entry of ['operator/main.ts', 'webhook-gateway/main.ts', 'status-api/main.ts']) visit(entry);
    expect(seen.size).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });
});
