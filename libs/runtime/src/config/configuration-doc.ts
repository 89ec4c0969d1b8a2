import { CONFIG_VARIABLES } from './config-variables';
import { ROLES } from './roles';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** docs/CONFIGURATION.md, rendered from the variable table (`lanner config doc > docs/CONFIGURATION.md`). */
export function renderConfigurationDoc(): string {
  const rows = CONFIG_VARIABLES.map((variable) => {
    const roles = variable.roles.length === ROLES.length ? 'all' : variable.roles.join(', ');
    const secret = variable.secret ? ' Secret: never printed.' : '';
    return `| \`${variable.name}\` | ${roles} | ${cell(variable.defaultText)} | ${cell(variable.description)}${secret} |`;
  });
  return [
    '# Configuration',
    '',
    '<!-- Generated from libs/runtime/src/config/config-variables.ts by `lanner config doc`; edit the table there. -->',
    '',
    'Every Lanner process is configured by environment variables only. A process refuses to start',
    'when a variable is invalid and prints one line per bad variable, naming it and what is wrong',
    "(a secret's value is never printed). An empty value counts as unset.",
    '',
    '| variable | roles | default | meaning |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
