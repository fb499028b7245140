// Shell completion for kubectl slipway (bash; zsh through bashcompinit): commands, their
// subcommands and kinds, and the global flags. `source <(kubectl slipway completion bash)`.
import type { Command } from './commands/command.ts';

const GLOBAL_FLAGS = '--kubeconfig --context --namespace -n --all-namespaces -A --output -o --help -h';

export function completionScript(shell: 'bash' | 'zsh', commands: readonly Command[]): string {
  const cases = commands
    .map(
      (c) =>
        `    ${c.name}) words="${[...(c.completions ?? []), ...Object.keys(c.options ?? {}).map((o) => `--${o}`)].join(' ')}" ;;`,
    )
    .join('\n');
  const bash = `# kubectl slipway completion (${shell})
_kubectl_slipway() {
  local cur=\${COMP_WORDS[COMP_CWORD]} command= i words
  for ((i = 1; i < COMP_CWORD; i++)); do
    case \${COMP_WORDS[i]} in -*) ;; slipway) ;; *) command=\${COMP_WORDS[i]}; break ;; esac
  done
  case $command in
    '') words="${commands.map((c) => c.name).join(' ')} completion" ;;
${cases}
    completion) words="bash zsh" ;;
  esac
  COMPREPLY=($(compgen -W "$words ${GLOBAL_FLAGS}" -- "$cur"))
}
complete -F _kubectl_slipway kubectl-slipway
complete -F _kubectl_slipway kubectl_slipway`;
  return shell === 'zsh' ? `autoload -U +X bashcompinit && bashcompinit\n${bash}` : bash;
}
