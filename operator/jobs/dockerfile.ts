// The Dockerfile of a bundle's build and the buildctl options that carry the user's commands
// (pure). With build steps, a builder stage runs them over a copy of the source; with an install
// phase, an `install` stage before it runs the install over only its files, so BuildKit's cache
// (kept per project and environment in the registry: jobs.ts) reuses it while they do not change.
import type { BundleObject } from '../../crds/index.ts';

/** A path of the spec as the Dockerfile names it: no leading ./, no trailing /. */
export const sourcePath = (path: string): string => path.replace(/^(\.\/+)+/, '').replace(/\/+$/, '') || '.';

/** Where the build steps run inside their builder image: a copy of the source tree. */
export const BUILD_STEPS_DIR = '/src';

/** The build-arg that carries build step `index` (0-based) to its RUN line. */
export const buildStepArg = (index: number): string => `SLIPWAY_STEP_${index + 1}`;
/** The Dockerfile stage of the install phase (spec.buildSteps.install). */
export const INSTALL_STAGE = 'install';
/** The stage the mapped directories are copied from when there are build steps. */
export const BUILD_STAGE = 'build';

/** The build-arg that carries install command `index` (0-based) to its RUN line. */
export const installStepArg = (index: number): string => `SLIPWAY_INSTALL_${index + 1}`;

/** The lines that declare a step's build-arg and run it, echoing the command first. */
const runLines = (arg: string): string[] => [
  `ARG ${arg}`,
  `RUN ${JSON.stringify(['/bin/sh', '-c', `printf '+ %s\\n' "$${arg}"; exec /bin/sh -c "$${arg}"`])}`,
];

/**
 * The Dockerfile: with build steps, a stage runs them in the builder image over a copy of the
 * source, after the install stage when there is an install phase; then the base software, and
 * each mapped directory (from the source, or from what the steps left) under the app root. The user's commands and variables are not in this text:
 * they reach the RUN lines as build-args (buildArgs), so neither the Dockerfile parser nor our
 * shell ever reads them; every path in it was checked by buildSettingsProblem.
 */
export function dockerfile(bundle: BundleObject, appRoot: string): string {
  const { buildSteps, baseSoftware, directoryMap } = bundle.spec;
  const lines: string[] = [];
  if (buildSteps) {
    const variables = Object.keys(buildSteps.env ?? {})
      .sort()
      .map((name) => `ARG ${name}`);
    const { install } = buildSteps;
    // The install stage sees only its files, so its layers are reused (from the imported cache)
    // while they, its commands, the variables and the image stay the same. Its own stage name
    // marks its steps in BuildKit's output (BUILD_SCRIPT reads it there).
    if (install) {
      lines.push(
        `FROM ${buildSteps.image} AS ${INSTALL_STAGE}`,
        'USER 0',
        `WORKDIR ${BUILD_STEPS_DIR}`,
        ...variables,
      );
      for (const file of install.files.map(sourcePath))
        lines.push(`COPY ${JSON.stringify([file, `${BUILD_STEPS_DIR}/${file}`])}`);
      install.commands.forEach((_, index) => lines.push(...runLines(installStepArg(index))));
    }
    if (install && !buildSteps.commands?.length) {
      // Nothing runs after the install: the tree it left plus the source is all directoryMap
      // reads, so this stage needs no builder image, and a cached install is the only layer of
      // it a build fetches (the builder image is neither pulled nor unpacked).
      lines.push(
        `FROM scratch AS ${BUILD_STAGE}`,
        `COPY --from=${INSTALL_STAGE} ${BUILD_STEPS_DIR} ${BUILD_STEPS_DIR}`,
        `COPY . ${BUILD_STEPS_DIR}`,
      );
    } else {
      lines.push(
        ...(install
          ? [`FROM ${INSTALL_STAGE} AS ${BUILD_STAGE}`]
          : [`FROM ${buildSteps.image} AS ${BUILD_STAGE}`, 'USER 0', `WORKDIR ${BUILD_STEPS_DIR}`]),
        'COPY . .',
        ...variables,
      );
    }
    (buildSteps.commands ?? []).forEach((_, index) => lines.push(...runLines(buildStepArg(index))));
  }
  lines.push(`FROM ${baseSoftware!.image}`);
  const root = appRoot.replace(/\/+$/, '');
  const entries = Object.entries(directoryMap ?? {}).sort(([a], [b]) => a.localeCompare(b));
  for (const [name, path] of entries) {
    const relative = sourcePath(path);
    const from = buildSteps ? `${BUILD_STEPS_DIR}/${relative}`.replace(/\/\.$/, '') : relative;
    lines.push(
      `COPY ${buildSteps ? `--from=${BUILD_STAGE} ` : ''}${JSON.stringify([from, `${root}/${name}`])}`,
    );
  }
  lines.push(
    `LABEL ${JSON.stringify('dev.slipway.bundle')}=${JSON.stringify(bundle.metadata.name)} ${JSON.stringify(
      'dev.slipway.project',
    )}=${JSON.stringify(bundle.spec.projectRef.name)}`,
  );
  return lines.join('\n') + '\n';
}

/** buildctl options carrying the build steps' commands and variables (argv, never a shell). */
export function buildArgs(bundle: BundleObject): string[] {
  const steps = bundle.spec.buildSteps;
  if (!steps) return [];
  const values: [string, string][] = [
    ...Object.entries(steps.env ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)),
    ...(steps.install?.commands ?? []).map((command, index): [string, string] => [
      installStepArg(index),
      command,
    ]),
    ...(steps.commands ?? []).map((command, index): [string, string] => [buildStepArg(index), command]),
  ];
  return values.flatMap(([name, value]) => ['--opt', `build-arg:${name}=${value}`]);
}
