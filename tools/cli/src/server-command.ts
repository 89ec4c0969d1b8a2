import { join } from 'node:path';
import { isRole, ROLES } from '@lanner/runtime';

export const EXIT_USAGE = 2;

/** Where each role's app lives; apps are loaded by path so that the CLI never depends on one. */
export function roleMainFile(workspaceRoot: string, role: string): string {
  return join(workspaceRoot, 'apps', role, 'src', 'main.ts');
}

export function unknownRoleMessage(role: string): string {
  return `lanner server: unknown role "${role}"; expected one of: ${ROLES.join(', ')}`;
}

export interface ServerFlags {
  /** `--no-indexer` makes it false: the api process then runs without the embedded indexer. */
  readonly embeddedIndexer: boolean;
}

/** Starts the role's app in this process; the app's `runRole` owns the process from here on. */
export async function startServer(
  workspaceRoot: string,
  role: string,
  flags: ServerFlags = { embeddedIndexer: true },
): Promise<void> {
  if (!isRole(role)) {
    process.stderr.write(`${unknownRoleMessage(role)}\n`);
    process.exit(EXIT_USAGE);
  }
  if (!flags.embeddedIndexer) {
    if (role !== 'api') {
      process.stderr.write(`lanner server: --no-indexer applies to the api role only, not "${role}"\n`);
      process.exit(EXIT_USAGE);
    }
    // The flag is the command-line form of the variable, so the api reads one setting.
    process.env['LANNER_API_EMBEDDED_INDEXER'] = 'false';
  }
  await import(roleMainFile(workspaceRoot, role));
}
