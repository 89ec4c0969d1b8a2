import type { Command } from 'commander';
import { CliError } from '../client/cli-error';

/** Every command path (space-separated, from `lanner`) with the words that may follow it. */
export function completionTree(program: Command): Map<string, string[]> {
  const tree = new Map<string, string[]>();
  const walk = (command: Command, path: string, inherited: string[]) => {
    const own = command.options.map((option) => option.long).filter((flag): flag is string => flag !== undefined);
    const flags = [...inherited, ...own];
    const words = command.commands.flatMap((sub) => [sub.name(), ...sub.aliases()]);
    tree.set(path, [...words, ...flags, '--help']);
    for (const sub of command.commands) {
      for (const name of [sub.name(), ...sub.aliases()]) walk(sub, `${path} ${name}`, flags);
    }
  };
  walk(program, program.name(), []);
  return tree;
}

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * A bash completion script with the whole command tree in it, so a TAB does not
 * start Node: the path of commands typed so far selects the words to offer.
 */
export function bashCompletion(program: Command): string {
  const entries = [...completionTree(program)].map(([path, words]) => `  [${quote(path)}]=${quote(words.join(' '))}`);
  return `# bash completion for lanner: source <(lanner completion bash)
declare -gA _lanner_words=(
${entries.join('\n')}
)
_lanner() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path=lanner word candidate i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && continue
    candidate="$path $word"
    [[ -n "\${_lanner_words[$candidate]+set}" ]] && path="$candidate"
  done
  COMPREPLY=($(compgen -W "\${_lanner_words[$path]}" -- "$cur"))
}
complete -o default -F _lanner lanner
`;
}

export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script: source <(lanner completion bash)')
    .argument('<shell>', 'bash (zsh: load bashcompinit first)')
    .action((shell: string) => {
      if (shell !== 'bash')
        throw new CliError(
          `no completion for '${shell}': only bash is supported (zsh: autoload bashcompinit && bashcompinit)`,
          2,
        );
      process.stdout.write(bashCompletion(program));
    });
}
