// The build container's script, run for real by /bin/sh and awk, with a stand-in for
// buildctl-daemonless.sh that prints what BuildKit prints (plain progress) and exits as told.
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BUILD_SCRIPT } from '../../../operator/bundle/jobs.ts';

const run = promisify(execFile);

// As BuildKit v0.34 printed builds on the real node (the vertex names show the commands with the
// build-args put in): #12, an install step reused from the cache ("CACHED", then its layers
// fetched); #13, one reused whose layers were fetched at once (no "CACHED" line); #15, one that
// ran (its "+ command" line); #14, a build step.
const PROGRESS = String.raw`#1 [internal] load build definition from Dockerfile
#1 DONE 0.0s
#9 [install 3/7] COPY [composer.json,/src/composer.json]
#9 CACHED
#12 [install 4/7] RUN ["/bin/sh","-c","printf '+ %s\\n' \"composer install --no-dev\"; exec /bin/sh -c \"composer install --no-dev\""]
#12 CACHED
#12 [install 4/7] RUN ["/bin/sh","-c","printf '+ %s\\n' \"composer install --no-dev\"; exec /bin/sh -c \"composer install --no-dev\""]
#12 extracting sha256:7a6488bfc55dd5004ec6b4309353ab66f9a8ce2ca8f36be7031d042b44d546fe 7.8s done
#12 DONE 8.0s
#13 [install 5/7] RUN ["/bin/sh","-c","printf '+ %s\\n' \"composer dump-autoload\"; exec /bin/sh -c \"composer dump-autoload\""]
#13 sha256:bbd6107e9cd4229a48b0a3b10b07cce1e966271eda59b9c6943c0afe2df61452 75.25MB / 75.25MB 0.1s done
#13 extracting sha256:bbd6107e9cd4229a48b0a3b10b07cce1e966271eda59b9c6943c0afe2df61452 5.9s done
#13 DONE 6.1s
#13 [install 5/7] RUN ["/bin/sh","-c","printf '+ %s\\n' \"composer dump-autoload\"; exec /bin/sh -c \"composer dump-autoload\""]
#13 DONE 6.4s
#14 [build 2/3] RUN ["/bin/sh","-c","printf '+ %s\\n' \"php bin/build-assets\"; exec /bin/sh -c \"php bin/build-assets\""]
#14 DONE 0.1s
#15 [install 6/7] RUN ["/bin/sh","-c","printf '+ %s\\n' \"npm ci\"; exec /bin/sh -c \"npm ci\""]
#15 0.120 + npm ci
#15 1.020 added 10 packages in 1s
#15 DONE 1.2s
`;

async function runScript(exitCode: number): Promise<{ stdout: string; code: number; args: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'slipway-build-script-'));
  try {
    await writeFile(join(dir, 'progress'), PROGRESS);
    const fake = join(dir, 'buildctl-daemonless.sh');
    await writeFile(
      fake,
      `#!/bin/sh\nprintf '%s\\n' "$*" > "${dir}/args"\ncat "${dir}/progress" >&2\nexit ${exitCode}\n`,
    );
    await chmod(fake, 0o755);
    const env = { PATH: `${dir}:${process.env.PATH}`, TMPDIR: dir };
    const result = await run('/bin/sh', ['-c', BUILD_SCRIPT, 'build', 'build', '--opt', 'a b'], { env }).then(
      (r) => ({ stdout: r.stdout, code: 0 }),
      (e: { stdout: string; code: number }) => ({ stdout: e.stdout, code: e.code }),
    );
    return { ...result, args: await readFile(join(dir, 'args'), 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('the build script', () => {
  it('passes buildctl its arguments and its output, and says which install steps were cached', async () => {
    const { stdout, code, args } = await runScript(0);
    expect(code).toBe(0);
    expect(args).toBe('build --opt a b\n');
    const lines = stdout.split('\n');
    // Every line of BuildKit's output, in order, plus one line after the cached install step.
    expect(lines.filter((l) => !l.includes('cached:'))).toEqual(PROGRESS.split('\n'));
    // Once for each reused install step, where BuildKit first says it is done; not for the
    // cached COPY, the build step or the install that ran.
    const told = (n: string) =>
      `#${n} install cached: its files, commands, variables and image are those of an earlier build`;
    expect(lines.filter((l) => l.includes('cached:'))).toEqual([told('12'), told('13')]);
    expect(lines[lines.indexOf(told('12')) - 1]).toBe('#12 CACHED');
    expect(lines[lines.indexOf(told('13')) - 1]).toBe('#13 DONE 6.1s');
  });

  it("exits with buildctl's status", async () => {
    const { stdout, code } = await runScript(3);
    expect(code).toBe(3);
    expect(stdout).toContain('#15 DONE 1.2s');
  });
});
