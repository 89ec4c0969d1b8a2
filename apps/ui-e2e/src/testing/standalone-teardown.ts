import { rmSync } from 'node:fs';
import type { StandaloneHolder } from './standalone-setup';

const STOP_DEADLINE_MS = 30_000;

/** SIGTERM (standalone stops its embedded PostgreSQL), SIGKILL after a deadline; the folder goes unless LANNER_E2E_KEEP=1. */
export default async function standaloneTeardown(): Promise<void> {
  const standalone = (globalThis as StandaloneHolder).__lannerUiStandalone;
  if (!standalone) return;
  standalone.child.kill('SIGTERM');
  let deadline: NodeJS.Timeout | undefined;
  const stopped = await Promise.race([
    standalone.exited.then(() => true),
    new Promise<boolean>((done) => {
      deadline = setTimeout(() => done(false), STOP_DEADLINE_MS);
    }),
  ]);
  clearTimeout(deadline);
  if (!stopped) standalone.child.kill('SIGKILL');
  if (process.env['LANNER_E2E_KEEP'] === '1') process.stdout.write(`lanner ui-e2e: kept ${standalone.workDir}\n`);
  else rmSync(standalone.workDir, { recursive: true, force: true });
}
