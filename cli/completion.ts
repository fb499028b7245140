// Shell completion. Two ways in:
// - `source <(kubectl-slipway completion bash)` (or zsh): completes `kubectl-slipway …`;
// - `kubectl slipway <TAB>`: kubectl (1.26+) asks the executable `kubectl_complete-slipway`
//   (bin/) with cobra's protocol, `__complete <words…> <word being typed>`, and reads one
//   candidate per line and a final `:<directive>` line (4: do not offer file names).
import type { Command } from './commands/command.ts';

const GLOBAL_FLAGS = [
  '--kubeconfig',
  '--context',
  '--namespace',
  '-n',
  '--all-namespaces',
  '-A',
  '--output',
  '-o',
  '--help',
];
const NO_FILE_COMPLETION = 4;

/** The words to offer after a command: its subcommands or kinds, then its flags. */
function wordsFor(command: Command): string[] {
  const flags = Object.entries(command.options ?? {}).flatMap(([name, o]) => [
    `--${name}`,
    ...('short' in o && o.short ? [`-${o.short}`] : []),
  ]);
  return [...(command.completions ?? []), ...flags];
}

/** Candidates for cobra's __complete: `args` are the words so far, the last one being typed. */
export function completions(args: readonly string[], commands: readonly Command[]): string[] {
  const typed = args.at(-1) ?? '';
  const before = args.slice(0, -1);
  const name = before.find(
    (w, i) =>
      !w.startsWith('-') &&
      !['-n', '--namespace', '-o', '--output', '--context', '--kubeconfig'].includes(before[i - 1] ?? ''),
  );
  const previous = before.at(-1);
  let words: string[];
  if (previous === '-o' || previous === '--output') words = ['table', 'wide', 'json', 'yaml'];
  else if (name === undefined) words = [...commands.map((c) => c.name), 'completion'];
  else if (name === 'completion') words = ['bash', 'zsh'];
  else {
    const command = commands.find((c) => c.name === name);
    words = command ? [...wordsFor(command), ...GLOBAL_FLAGS] : [];
  }
  return [...words.filter((w) => w.startsWith(typed)), `:${NO_FILE_COMPLETION}`];
}

export function completionScript(shell: 'bash' | 'zsh', commands: readonly Command[]): string {
  const cases = commands.map((c) => `    ${c.name}) words="${wordsFor(c).join(' ')}" ;;`).join('\n');
  const bash = `# kubectl-slipway completion (${shell}); for "kubectl slipway", kubectl uses bin/kubectl_complete-slipway
_kubectl_slipway() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} command= i words
  for ((i = 1; i < COMP_CWORD; i++)); do
    case \${COMP_WORDS[i-1]} in -n|--namespace|-o|--output|--context|--kubeconfig) continue ;; esac
    case \${COMP_WORDS[i]} in -*) ;; *) command=\${COMP_WORDS[i]}; break ;; esac
  done
  case $prev in -o|--output) COMPREPLY=($(compgen -W "table wide json yaml" -- "$cur")); return ;; esac
  case $command in
    '') words="${commands.map((c) => c.name).join(' ')} completion" ;;
${cases}
    completion) words="bash zsh" ;;
  esac
  COMPREPLY=($(compgen -W "$words ${GLOBAL_FLAGS.join(' ')}" -- "$cur"))
}
complete -F _kubectl_slipway kubectl-slipway`;
  return shell === 'zsh' ? `autoload -U +X bashcompinit && bashcompinit\n${bash}` : bash;
}
