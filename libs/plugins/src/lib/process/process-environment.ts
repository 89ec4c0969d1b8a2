/**
 * The variables a task process inherits from the worker. Only these: the worker's
 * environment holds its secrets (`SECRET_*`) and its own credentials, which a task
 * must never be able to read with `env`. A task passes anything else through `env`.
 */
export const INHERITED_VARIABLES = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'USER', 'LOGNAME', 'SHELL'] as const;

export function processEnvironment(
  taskEnv: Readonly<Record<string, string>> | undefined,
  workerEnv: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_VARIABLES) {
    const value = workerEnv[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...taskEnv };
}
