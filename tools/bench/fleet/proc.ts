import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** Resident set size of a process in KB (VmRSS of /proc/<pid>/status). */
export function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const line = status.split('\n').find((candidate) => candidate.startsWith('VmRSS:'));
  if (!line) throw new Error(`/proc/${pid}/status has no VmRSS line`);
  return Number(line.replace(/[^0-9]/g, ''));
}

/** User + system CPU time of a process, in clock ticks (fields 14 and 15 of /proc/<pid>/stat). */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis are plain.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so field 14 is fields[11] and field 15 is fields[12].
  return Number(fields[11]) + Number(fields[12]);
}

/** Clock ticks per second (`getconf CLK_TCK`); 100 on Linux. */
export const CLOCK_TICKS_PER_SECOND = 100;

/** A process's CPU use between two readings, in percent of one core. */
export function cpuPercent(ticksBefore: number, ticksAfter: number, wallMs: number): number {
  return ((ticksAfter - ticksBefore) / CLOCK_TICKS_PER_SECOND / (wallMs / 1000)) * 100;
}

/** The fleet's load average over 1, 5 and 15 minutes. */
export function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

/**
 * Time the process's main thread (the JavaScript event loop) spent runnable but waiting
 * for a CPU, in ms (second field of /proc/<pid>/schedstat). Growth per wall second shows
 * how much the machine, not the process's own work, held the event loop back.
 */
export function runQueueWaitMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(' ');
  return Number(fields[1]) / 1e6;
}

/** The whole machine's CPU time so far, in clock ticks: busy (everything but idle and iowait) and total (the `cpu` line of /proc/stat). */
export function machineTicks(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user).
  const total = values.slice(0, 8).reduce((sum, value) => sum + value, 0);
  return { busy: total - values[3] - values[4], total };
}

/** Cores kept busy between two readings (2.0 = both cores of a 2-core machine all the time). */
export function busyCores(
  before: { busy: number; total: number },
  after: { busy: number; total: number },
  cores: number,
): number {
  const total = after.total - before.total;
  return total > 0 ? ((after.busy - before.busy) / total) * cores : 0;
}

/** The CPUs of this machine as a `taskset` list (`0-1` on 2 cores). */
export function allCpus(): string {
  return `0-${cpus().length - 1}`;
}

/**
 * Pins a process and all its threads to `cpuList` (`taskset -a -p -c`); with
 * `withChildren`, its direct children too (PostgreSQL's backends), and so
 * every process it forks later, which inherits its affinity.
 */
export function pinProcess(pid: number, cpuList: string, withChildren = false): void {
  const pids = [pid];
  if (withChildren) {
    try {
      pids.push(
        ...execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
          .split('\n')
          .filter(Boolean)
          .map(Number),
      );
    } catch {
      // pgrep exits 1 when there is no child.
    }
  }
  for (const target of pids) execFileSync('taskset', ['-a', '-p', '-c', cpuList, String(target)], { stdio: 'ignore' });
}
