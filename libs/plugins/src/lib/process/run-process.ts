import { spawn } from 'node:child_process';
import { errorMessage } from '../error-message';
import type { JsonObject } from '../json';
import type { TaskKindContext, TaskKindResult } from '../task-runner.port';
import { LineSplitter } from './line-splitter';
import { parseOutputLine } from './output-lines';

export interface ProcessSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  /** How long a process group gets between SIGTERM and SIGKILL. */
  readonly killGraceMs: number;
  /** Lines of stderr quoted in the error of a failed run. */
  readonly stderrTailLines: number;
  /** The user the process runs as (Lanner's task isolation); the worker's own when absent. */
  readonly runAs?: TaskUser;
}

/** A uid and gid of its own for task processes: they cannot read the worker's files, nor its `/proc` entries. */
export interface TaskUser {
  readonly uid: number;
  readonly gid: number;
}

/**
 * The task's process dies with its worker, even with a kill -9 of the worker:
 * before it becomes the task's command (`exec`, same pid, leader of the task's
 * process group), the shell leaves a watcher in the group that reads the
 * lifeline (its stdin, a pipe whose write end only the worker holds). The
 * kernel closes that pipe when the worker dies, however it dies; the watcher
 * reads end-of-file and SIGKILLs the whole group. The task gets /dev/null as
 * its stdin, as before. The watcher ends with the group when the task ends.
 */
// A background list's stdin would be /dev/null: the lifeline is handed to it as fd 3.
const SUPERVISOR = 'exec 3<&0; { cat <&3 >/dev/null; kill -9 0; } >/dev/null 2>&1 & exec 3<&- "$@" </dev/null';

/** An output line (`::{"outputs":...}::`) may be far longer than a log line; this bounds it. */
const MAX_PROCESS_LINE_CHARS = 4 * 1024 * 1024;
const MAX_TAIL_LINE_CHARS = 1000;

/**
 * Runs one process for a script task and waits until it and everything it started
 * are gone. The process leads its own process group (`detached`), dies with the
 * worker (see SUPERVISOR), and a kill or a
 * timeout reaches the children a shell put in the background too (SIGTERM to the
 * group, SIGKILL after the grace period). When the process itself exits, what it left
 * running in its group is ended the same way: a task's processes end with the task
 * (and a background child holding stdout open would otherwise keep the task running).
 *
 * stdout lines are logged at INFO and stderr lines at WARN as they come; output lines
 * become `vars`. Outputs: `exitCode` and `vars`, also on failure.
 */
export function runProcess(spec: ProcessSpec, context: TaskKindContext): Promise<TaskKindResult> {
  return new Promise((resolve, reject) => {
    if (context.signal.aborted) return resolve({ state: 'FAILED', outputs: {}, error: 'aborted before start' });
    const child = spawn('/bin/sh', ['-c', SUPERVISOR, 'lanner-task', spec.command, ...spec.args], {
      cwd: context.workingDirectory,
      // Under its own user the task's HOME is its working directory (the worker's is not its to write).
      env: spec.runAs ? { ...spec.env, HOME: context.workingDirectory } : spec.env,
      // Supplementary groups are dropped with the uid change (libuv does it when the parent is root).
      ...(spec.runAs ? { uid: spec.runAs.uid, gid: spec.runAs.gid } : {}),
      detached: true,
      // stdin is the lifeline: the worker holds its write end open and never writes.
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.on('error', () => undefined);
    const vars: JsonObject = {};
    const stderrTail: string[] = [];
    const stdout = new LineSplitter((line) => {
      const outputs = parseOutputLine(line);
      if (outputs) Object.assign(vars, outputs);
      else context.log('INFO', line);
    }, MAX_PROCESS_LINE_CHARS);
    const stderr = new LineSplitter((line) => {
      stderrTail.push(line.length > MAX_TAIL_LINE_CHARS ? `${line.slice(0, MAX_TAIL_LINE_CHARS)}...` : line);
      if (stderrTail.length > spec.stderrTailLines) stderrTail.shift();
      context.log('WARN', line);
    }, MAX_PROCESS_LINE_CHARS);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => stdout.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));

    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const endGroup = () => {
      if (child.pid === undefined || killTimer !== undefined) return;
      signalGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => {
        signalGroup(child.pid as number, 'SIGKILL');
        // The whole group is dead now; only a process that left it (setsid) can still
        // hold the pipes open. Stop waiting for it, so the task ends.
        child.stdout.destroy();
        child.stderr.destroy();
      }, spec.killGraceMs);
    };
    const onAbort = () => endGroup();
    context.signal.addEventListener('abort', onAbort, { once: true });

    child.on('error', (error) => {
      context.signal.removeEventListener('abort', onAbort);
      reject(new Error(`could not start ${spec.command}: ${errorMessage(error, 'unknown error')}`));
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      endGroup();
    });
    // 'close' comes after 'exit' once stdout and stderr are closed, i.e. when every
    // process of the group holding them has ended.
    child.on('close', () => {
      context.signal.removeEventListener('abort', onAbort);
      clearTimeout(killTimer);
      stdout.end();
      stderr.end();
      const exitCode = exit?.code ?? (exit?.signal ? 128 + signalNumber(exit.signal) : -1);
      const outputs: JsonObject = { exitCode, vars };
      if (exitCode === 0) return resolve({ state: 'SUCCESS', outputs });
      const cause = exit?.signal ? `the process was ended by ${exit.signal}` : `the command exited with code ${exitCode}`;
      const tail = stderrTail.length > 0 ? `\n${stderrTail.join('\n')}` : '';
      resolve({ state: 'FAILED', outputs, error: cause + tail });
    });
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone, which is what we want.
  }
}

const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGTERM: 15,
};

function signalNumber(signal: NodeJS.Signals): number {
  return SIGNAL_NUMBERS[signal] ?? 0;
}
