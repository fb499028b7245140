// kubectl slipway: the everyday jobs on a cluster running Slipway, with the user's kubeconfig.
// Installed as `kubectl-slipway` (bin/kubectl-slipway), so kubectl runs it as `kubectl slipway`.
// Each command is one file in commands/; this file reads the command line and ends the process
// with the exit code scripts rely on (errors.ts).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { apiMessage, apiStatus } from '../lib/kube.ts';
import { commands, type Command } from './commands/index.ts';
import { cliContext, type GlobalOptions, type Output } from './context.ts';
import { CommandError, EXIT, UsageError } from './errors.ts';
import { completionScript, completions } from './completion.ts';

const GLOBAL_OPTIONS = {
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  as: { type: 'string' },
  namespace: { type: 'string', short: 'n' },
  'all-namespaces': { type: 'boolean', short: 'A' },
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

const GLOBAL_HELP = `Global flags:
  --kubeconfig PATH        kubeconfig file (default: KUBECONFIG, then ~/.kube/config)
  --context NAME           kubeconfig context
  --as USER                act as this user, as kubectl --as does (impersonation)
  -n, --namespace NAME     namespace (default: the context's, else "default")
  -A, --all-namespaces     list across namespaces (get, notice list)
  -o, --output FORMAT      table (default), wide, json or yaml
  -h, --help               help for a command`;

function usage(): string {
  const width = Math.max('completion'.length, ...commands.map((c) => c.name.length));
  return `kubectl slipway — push-to-deploy and status pages on Kubernetes

Usage: kubectl slipway <command> [arguments] [flags]

Commands:
${commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}
  ${'completion'.padEnd(width)}  print a bash or zsh completion script (source <(kubectl slipway completion bash))

${GLOBAL_HELP}

Exit codes: 0 done, 1 failed (API error, missing object, failed bundle), 2 usage, 3 timed out.
Run "kubectl slipway <command> --help" for a command's arguments and flags.`;
}

const commandHelp = (c: Command) =>
  `${c.summary}\n\nUsage: kubectl slipway ${c.usage}\n\n${c.help ? `${c.help}\n\n` : ''}${GLOBAL_HELP}`;

/** Global flags that take a value: what follows them is not the command. */
const VALUE_FLAGS = new Set(['--kubeconfig', '--context', '--as', '-n', '--namespace', '-o', '--output']);

/** The command word wherever it stands (kubectl users put -n first), and everything else. */
export function splitCommand(argv: readonly string[]): { name: string | undefined; rest: string[] } {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (VALUE_FLAGS.has(arg)) i++;
    else if (!arg.startsWith('-')) return { name: arg, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
  }
  return { name: undefined, rest: [...argv] };
}

export async function main(
  argv: string[],
  io = { out: (t: string) => console.log(t), err: (t: string) => console.error(t) },
): Promise<number> {
  const { name, rest } = splitCommand(argv);
  if (name === undefined || name === 'help') {
    const asked = name === 'help' || rest.includes('--help') || rest.includes('-h');
    if (asked) io.out(usage());
    else io.err(usage());
    return asked ? EXIT.ok : EXIT.usage;
  }
  if (name === '__complete') {
    io.out(completions(rest, commands).join('\n'));
    return EXIT.ok;
  }
  if (name === 'completion') {
    if (rest.includes('--help') || rest.includes('-h')) {
      io.out(
        'print a shell completion script\n\nUsage: kubectl slipway completion bash|zsh\n\n  source <(kubectl slipway completion bash)',
      );
      return EXIT.ok;
    }
    const shell = rest.find((a) => !a.startsWith('-')) ?? 'bash';
    if (shell !== 'bash' && shell !== 'zsh') {
      io.err('error: completion supports bash and zsh');
      return EXIT.usage;
    }
    io.out(completionScript(shell, commands));
    return EXIT.ok;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.err(`error: unknown command "${name}"\n\n${usage()}`);
    return EXIT.usage;
  }
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    }) as { values: Record<string, string | boolean | undefined>; positionals: string[] });
  } catch (error) {
    io.err(`error: ${(error as Error).message}\n\nUsage: kubectl slipway ${command.usage}`);
    return EXIT.usage;
  }
  if (values.help) {
    io.out(commandHelp(command));
    return EXIT.ok;
  }
  const output = (values.output as string | undefined) ?? 'table';
  if (!['table', 'wide', 'json', 'yaml'].includes(output)) {
    io.err(`error: --output must be table, wide, json or yaml, not "${output}"`);
    return EXIT.usage;
  }
  const global: GlobalOptions = {
    kubeconfig: values.kubeconfig as string | undefined,
    context: values.context as string | undefined,
    as: values.as as string | undefined,
    namespace: values.namespace as string | undefined,
    allNamespaces: values['all-namespaces'] === true,
    output: output as Output,
  };
  try {
    const ctx = cliContext(global, io);
    return (await command.run(ctx, positionals, values)) ?? EXIT.ok;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`error: ${error.message}\n\nUsage: kubectl slipway ${command.usage}`);
      return EXIT.usage;
    }
    if (error instanceof CommandError) {
      io.err(`error: ${error.message}`);
      return error.code;
    }
    const status = apiStatus(error);
    if (status !== undefined) {
      io.err(`error: the API server answered ${status}: ${apiMessage(error)}`);
      return EXIT.failed;
    }
    io.err(`error: ${(error as Error).message ?? String(error)}`);
    return EXIT.failed;
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
