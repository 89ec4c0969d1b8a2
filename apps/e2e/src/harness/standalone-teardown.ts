import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { StandaloneHolder } from './standalone-setup';

const STOP_DEADLINE_MS = 30_000;

/** SIGTERM (standalone stops its embedded PostgreSQL), SIGKILL after a deadline; the folder goes unless a test failed. */
export default async function standaloneTeardown(): Promise<void> {
  const standalone = (globalThis as StandaloneHolder).__lannerStandalone;
  if (!standalone) return;
  standalone.child.kill('SIGTERM');
  // The deadline timer is cleared once the process is gone: a pending one would keep Jest alive for the whole deadline.
  let deadline: NodeJS.Timeout | undefined;
  const stopped = await Promise.race([
    standalone.exited.then(() => true),
    new Promise<boolean>((resolve) => {
      deadline = setTimeout(() => resolve(false), STOP_DEADLINE_MS);
    }),
  ]);
  clearTimeout(deadline);
  if (!stopped) standalone.child.kill('SIGKILL');
  if (existsSync(join(standalone.workDir, 'failed')) || process.env['LANNER_E2E_KEEP'] === '1') {
    process.stdout.write(`lanner e2e (standalone): kept ${standalone.workDir}\n`);
  } else {
    rmSync(standalone.workDir, { recursive: true, force: true });
  }
}
