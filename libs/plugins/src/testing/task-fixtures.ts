// Typed task objects and a recording run context for the specs. Not exported from
// the library's index: specs only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  HttpRequestTask,
  LogLevel,
  LogTask,
  NodeScriptTask,
  OutputValuesTask,
  ReturnTask,
  ShellCommandsTask,
  SleepTask,
  TaskCommon,
} from '@lanner/model';
import { TASK_TYPES } from '@lanner/model';
import type { TaskFiles } from '@lanner/storage';
import type { SecretSource, TaskRunContext } from '../lib/task-runner.port';

type Common = Omit<TaskCommon, 'type'>;
const common = (id: string): Common => ({ id, disabled: false, allowFailure: false, allowWarning: false });

export const logTask = (message: LogTask['message'], level: LogLevel = 'INFO', extra: Partial<LogTask> = {}): LogTask => ({
  ...common('log'),
  type: TASK_TYPES.Log,
  kind: 'Log',
  message,
  level,
  ...extra,
});
export const returnTask = (format: string, extra: Partial<ReturnTask> = {}): ReturnTask => ({
  ...common('return'),
  type: TASK_TYPES.Return,
  kind: 'Return',
  format,
  ...extra,
});
export const outputValuesTask = (values: OutputValuesTask['values']): OutputValuesTask => ({
  ...common('values'),
  type: TASK_TYPES.OutputValues,
  kind: 'OutputValues',
  values,
});
export const sleepTask = (durationMs: number, extra: Partial<SleepTask> = {}): SleepTask => ({
  ...common('sleep'),
  type: TASK_TYPES.Sleep,
  kind: 'Sleep',
  durationMs,
  ...extra,
});
export const httpRequestTask = (uri: string, extra: Partial<HttpRequestTask> = {}): HttpRequestTask => ({
  ...common('http'),
  type: TASK_TYPES.HttpRequest,
  kind: 'HttpRequest',
  uri,
  method: 'GET',
  ...extra,
});
export const shellCommandsTask = (commands: string[], extra: Partial<ShellCommandsTask> = {}): ShellCommandsTask => ({
  ...common('shell'),
  type: TASK_TYPES.ShellCommands,
  kind: 'ShellCommands',
  commands,
  ...extra,
});
export const nodeScriptTask = (script: string, extra: Partial<NodeScriptTask> = {}): NodeScriptTask => ({
  ...common('node'),
  type: TASK_TYPES.NodeScript,
  kind: 'NodeScript',
  script,
  ...extra,
});

export interface LoggedLine {
  readonly level: LogLevel;
  readonly message: string;
}

export interface RecordingContext {
  readonly context: TaskRunContext;
  readonly lines: LoggedLine[];
  readonly abort: (reason?: unknown) => void;
  /** Resolves with the first logged line that matches. */
  readonly nextLine: (matches: (line: LoggedLine) => boolean) => Promise<LoggedLine>;
}

export function recordingContext(options: {
  workingDirectory: string;
  secrets?: Record<string, string>;
  now?: () => Date;
  files?: TaskFiles;
}): RecordingContext {
  const controller = new AbortController();
  const lines: LoggedLine[] = [];
  const waiters: { matches: (line: LoggedLine) => boolean; resolve: (line: LoggedLine) => void }[] = [];
  const secrets: SecretSource = (name) => options.secrets?.[name];
  const context: TaskRunContext = {
    signal: controller.signal,
    workingDirectory: options.workingDirectory,
    now: options.now ?? (() => new Date()),
    secrets,
    ...(options.files ? { files: options.files } : {}),
    log: (level, message) => {
      const line = { level, message };
      lines.push(line);
      for (const waiter of waiters.filter((w) => w.matches(line))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    },
  };
  return {
    context,
    lines,
    abort: (reason) => controller.abort(reason),
    nextLine: (matches) =>
      new Promise((resolve) => {
        const seen = lines.find(matches);
        if (seen) resolve(seen);
        else waiters.push({ matches, resolve });
      }),
  };
}

/** A fresh temporary folder, removed by the returned function. */
export function temporaryFolder(prefix = 'lanner-plugins-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
