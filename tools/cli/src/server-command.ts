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

/** Starts the role's app in this process; the app's `runRole` owns the process from here on. */
export async function startServer(workspaceRoot: string, role: string): Promise<void> {
  if (!isRole(role)) {
    process.stderr.write(`${unknownRoleMessage(role)}\n`);
    process.exit(EXIT_USAGE);
  }
  await import(roleMainFile(workspaceRoot, role));
}
