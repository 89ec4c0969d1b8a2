import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceRoot } from './role-process';

/**
 * The default of a configuration variable as docs/CONFIGURATION.md (the generated table of
 * every variable) states it: what a user running without it gets.
 */
export function documentedDefault(name: string): string {
  const reference = readFileSync(join(workspaceRoot, 'docs', 'CONFIGURATION.md'), 'utf8');
  const row = new RegExp(`^\\| \`${name}\` \\| [^|]+ \\| \`([^\`]+)\``, 'm').exec(reference);
  if (!row) throw new Error(`docs/CONFIGURATION.md: no default for ${name}`);
  return row[1];
}

/**
 * How soon the jobs of a worker killed -9 must start again: a killed worker's jobs wait at
 * most the adoption grace (LANNER_WORKER_ADOPTION_GRACE_MS) for it to come back and list
 * them (a worker that comes back without them loses them at once), plus 2 s to re-queue and
 * dispatch them.
 */
export function workerKillRedispatchBoundMs(): number {
  return Number(documentedDefault('LANNER_WORKER_ADOPTION_GRACE_MS')) + 2_000;
}
