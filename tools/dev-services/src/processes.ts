import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { LocalProcess } from './state';

const POLL_MS = 200;

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/**
 * True while the pid belongs to a live process whose command line still contains the
 * marker, so a pid reused by an unrelated process is never taken for ours.
 * A zombie counts as gone: detached children are re-parented and may wait to be reaped.
 */
export function isOurProcessAlive(handle: Pick<LocalProcess, 'pid' | 'commandMarker'>): boolean {
  try {
    process.kill(handle.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const procState = readProcFile(handle.pid, 'stat');
  if (procState !== undefined) {
    // Field 3 of /proc/<pid>/stat is the state; the command name before it is in parentheses.
    const state = procState.slice(procState.lastIndexOf(')') + 2, procState.lastIndexOf(')') + 3);
    if (state === 'Z' || state === 'X') return false;
  }
  const cmdline = readProcFile(handle.pid, 'cmdline');
  // Without /proc (macOS) the pid check is all we have.
  return cmdline === undefined || cmdline.replace(/\0/g, ' ').includes(handle.commandMarker);
}

function readProcFile(pid: number, name: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${name}`, 'utf8');
  } catch {
    return undefined;
  }
}

export type StopOutcome = 'stopped' | 'killed' | 'not-running';

/**
 * Asks the process to stop, waits for it to exit, and kills its whole process group
 * (it was started detached, so it leads one) if it has not exited in time.
 */
export async function stopProcess(handle: LocalProcess, graceMs: number): Promise<StopOutcome> {
  if (!isOurProcessAlive(handle)) return 'not-running';
  signal(handle.pid, handle.stopSignal);
  if (await waitForExit(handle, graceMs)) return 'stopped';
  signal(-handle.pid, 'SIGKILL');
  signal(handle.pid, 'SIGKILL');
  await waitForExit(handle, 5_000);
  return 'killed';
}

async function waitForExit(handle: LocalProcess, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isOurProcessAlive(handle)) return true;
    await sleep(POLL_MS);
  }
  return !isOurProcessAlive(handle);
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone: that is what we wanted.
  }
}

/**
 * A port nobody listens on right now on loopback: the preferred one when it is free
 * (so a restarted service keeps its connection string), otherwise one the OS picks.
 */
export async function freeLoopbackPort(preferred?: number): Promise<number> {
  if (preferred !== undefined && preferred > 0) {
    const port = await tryListen(preferred).catch(() => undefined);
    if (port !== undefined) return port;
  }
  return tryListen(0);
}

function tryListen(requested: number): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(requested, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port > 0 ? resolvePort(port) : reject(new Error('no free port'))));
    });
  });
}

/** The last lines of a log file, to show why a service did not come up. */
export function logTail(file: string, lines = 8): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log written)';
  }
}

/** The ports a service used last time, kept beside its data; empty when unknown. */
export function rememberedPorts(file: string): number[] {
  try {
    return readFileSync(file, 'utf8')
      .split(/\s+/)
      .map(Number)
      .filter((port) => Number.isInteger(port) && port > 0 && port < 65536);
  } catch {
    return [];
  }
}
