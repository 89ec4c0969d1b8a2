import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isWorkerInstanceId } from '@lanner/frames';

const INSTANCE_FILE = 'instance-id';

/**
 * The worker's instance id, kept in `<dataDir>/instance-id` across restarts and
 * reconnects: an anonymous worker is known by it, so a controller (this one
 * after a restart, or another) adopts its running jobs and takes the results it
 * finished while no stream was open. Created on first use; a file that does not
 * hold an id is an error naming the file (never silently replaced, or the
 * worker's jobs would be orphaned).
 */
export function workerInstanceId(dataDir: string): string {
  const path = join(dataDir, INSTANCE_FILE);
  let stored: string | undefined;
  try {
    stored = readFileSync(path, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(`cannot read the worker instance id ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
    }
  }
  if (stored !== undefined) {
    if (!isWorkerInstanceId(stored))
      throw new Error(`${path} does not hold a worker instance id (a UUID); remove it to get a new one`);
    return stored;
  }
  const created = randomUUID();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(path, `${created}\n`, { mode: 0o600, flag: 'wx' });
  return created;
}
