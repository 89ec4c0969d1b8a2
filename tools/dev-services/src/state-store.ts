import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { DevServicesError } from './errors';
import { LOCK_FILE, SERVICES_DIR, STATE_FILE } from './paths';
import { sleep } from './processes';
import { EMPTY_STATE, parseServiceState, serializeServiceState, type ServiceState } from './state';

export function readStateFile(file = STATE_FILE): ServiceState | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  return parseServiceState(text);
}

/** Written through a rename so a test reading it never sees half a file. */
export function writeStateFile(state: ServiceState): void {
  mkdirSync(SERVICES_DIR, { recursive: true });
  if (Object.keys(state.services).length === 0) {
    rmSync(STATE_FILE, { force: true });
    return;
  }
  const staging = `${STATE_FILE}.${process.pid}.tmp`;
  writeFileSync(staging, serializeServiceState(state));
  renameSync(staging, STATE_FILE);
}

export function currentState(): ServiceState {
  return readStateFile() ?? EMPTY_STATE;
}

const LOCK_WAIT_MS = 10 * 60_000;

/**
 * One `up` or `down` at a time per workspace: several engineers (and `npm test`) may
 * call `up` together, and two brokers started on one data folder would both fail.
 * A lock left by a dead process is taken over.
 */
export async function withServicesLock<T>(work: () => Promise<T>, report: (line: string) => void): Promise<T> {
  mkdirSync(SERVICES_DIR, { recursive: true });
  const deadline = Date.now() + LOCK_WAIT_MS;
  let announced = false;
  for (;;) {
    try {
      const fd = openSync(LOCK_FILE, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = lockHolder();
    if (holder === undefined || !pidAlive(holder)) {
      rmSync(LOCK_FILE, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new DevServicesError(`another dev-services command (pid ${holder}) holds ${LOCK_FILE}`);
    }
    if (!announced) {
      report(`waiting for another dev-services command (pid ${holder}) to finish`);
      announced = true;
    }
    await sleep(500);
  }
  try {
    return await work();
  } finally {
    if (lockHolder() === process.pid) rmSync(LOCK_FILE, { force: true });
  }
}

function lockHolder(): number | undefined {
  if (!existsSync(LOCK_FILE)) return undefined;
  const pid = Number(readFileSync(LOCK_FILE, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
