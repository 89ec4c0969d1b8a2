import type { Command } from 'commander';
import { ApiProblem, CliError } from '../client/cli-error';
import type { LannerApi, ServerEvent } from '../client/lanner-api';
import { type OutputFormat, print } from '../output';
import { collect, contextOf } from './context';

interface StateView {
  readonly current: string;
}

interface TaskRunView {
  readonly id: string;
  readonly taskId: string;
  readonly value: string | null;
  readonly state: StateView;
  readonly attempts: readonly unknown[];
  readonly error: { message: string } | null;
}

interface ExecutionView {
  readonly id: string;
  readonly namespace: string;
  readonly flowId: string;
  readonly flowRevision: number;
  readonly state: StateView;
  readonly ended: boolean;
  readonly outputs: Record<string, unknown>;
  readonly taskRunList?: readonly TaskRunView[];
}

interface LogLineView {
  readonly taskRunId: string | null;
  readonly level: string;
  readonly timestamp: string;
  readonly message: string;
}

/** Only a SUCCESS execution makes the command succeed: a pipeline step fails on FAILED, KILLED, WARNING or CANCELLED. */
export function exitCodeOf(state: string): number {
  return state === 'SUCCESS' ? 0 : 1;
}

/** `key=value` pairs; the value may hold `=`. */
export function pairsOf(pairs: readonly string[], flag: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new CliError(`${flag} '${pair}' must be key=value`, 2);
    result[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return result;
}

function progressOf(execution: ExecutionView): string {
  const runs = execution.taskRunList ?? [];
  const count = (states: string[]) => runs.filter((run) => states.includes(run.state.current)).length;
  const ended = count(['SUCCESS', 'WARNING', 'FAILED', 'KILLED', 'CANCELLED', 'SKIPPED']);
  const running = count(['RUNNING', 'SUBMITTED', 'RESUBMITTED', 'RETRYING']);
  return `${execution.id} ${execution.state.current}: ${ended}/${runs.length} task runs ended, ${running} running`;
}

function printExecution(output: OutputFormat, execution: ExecutionView): void {
  if (output === 'json') {
    process.stdout.write(`${JSON.stringify(execution, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    `execution ${execution.id}  ${execution.namespace}.${execution.flowId} rev ${execution.flowRevision}  ${execution.state.current}\n`,
  );
  const runs = execution.taskRunList ?? [];
  if (runs.length > 0) {
    print('table', runs, runs, [
      { header: 'TASK', value: (r) => (r.value === null ? r.taskId : `${r.taskId}[${r.value}]`) },
      { header: 'STATE', value: (r) => r.state.current },
      { header: 'ATTEMPTS', value: (r) => r.attempts.length },
      { header: 'ERROR', value: (r) => r.error?.message },
    ]);
  }
  if (Object.keys(execution.outputs).length > 0) process.stdout.write(`outputs: ${JSON.stringify(execution.outputs)}\n`);
}

async function getExecution(api: LannerApi, id: string): Promise<ExecutionView> {
  return (await api.request<ExecutionView>('GET', api.tenantPath('executions', id))).body;
}

const STREAM_ATTEMPTS = 5;
const STREAM_RETRY_MS = 1000;

/** The server ended a stream early and asks the client to reconnect. */
class StreamInterrupted extends CliError {}

/**
 * Reads an event stream until its `end` event, reconnecting when the server failed
 * (a 5xx answer, or an `error` event saying to reconnect): the caller drops what it saw.
 */
async function readStream(api: LannerApi, path: string, what: string, onEvent: (event: ServerEvent) => void): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      for await (const event of api.events(path)) {
        if (event.event === 'end') return;
        if (event.event === 'error')
          throw new StreamInterrupted(
            `the ${what} stream ended early: ${(event.data as { detail?: string }).detail ?? 'unknown error'}`,
          );
        onEvent(event);
      }
      throw new StreamInterrupted(`the ${what} stream closed before its end`);
    } catch (error) {
      const retriable = error instanceof StreamInterrupted || (error instanceof ApiProblem && error.status >= 500);
      if (!retriable || attempt >= STREAM_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, STREAM_RETRY_MS));
    }
  }
}

/** Follows the execution's updates until it ends (each event is the whole execution, so a reconnect loses nothing). */
function waitForEnd(api: LannerApi, id: string, onChange: (execution: ExecutionView) => void): Promise<void> {
  return readStream(api, api.tenantPath('executions', id, 'follow'), 'execution', (event) => {
    if (event.event === 'execution') onChange(event.data as ExecutionView);
  });
}

/** Prints the log lines as they arrive (stored ones first) until the execution ended and its last lines arrived. */
function followLogs(api: LannerApi, id: string, taskIdOf: (taskRunId: string | null) => string): Promise<void> {
  // A reconnected stream sends the stored lines again: each line is printed once, by its id.
  const printed = new Set<string>();
  return readStream(api, api.tenantPath('logs', id, 'follow'), 'log', (event) => {
    if (event.event !== 'log') return;
    if (event.id !== undefined) {
      if (printed.has(event.id)) return;
      printed.add(event.id);
    }
    process.stdout.write(formatLogLine(event.data as LogLineView, taskIdOf));
  });
}

function formatLogLine(line: LogLineView, taskIdOf: (taskRunId: string | null) => string): string {
  return `${line.timestamp} ${line.level.padEnd(5)} ${taskIdOf(line.taskRunId)} ${line.message}\n`;
}

/** Waits (and with `follow`, prints the logs) until the execution ends; returns it and sets the exit code from its state. */
async function watch(api: LannerApi, id: string, follow: boolean): Promise<ExecutionView> {
  const taskIds = new Map<string, string>();
  const remember = (execution: ExecutionView) => {
    for (const run of execution.taskRunList ?? []) taskIds.set(run.id, run.taskId);
  };
  let lastProgress = '';
  const progress = (execution: ExecutionView) => {
    remember(execution);
    const line = progressOf(execution);
    if (line !== lastProgress) process.stderr.write(`${line}\n`);
    lastProgress = line;
  };
  const taskIdOf = (taskRunId: string | null) => (taskRunId === null ? '-' : (taskIds.get(taskRunId) ?? taskRunId));
  await Promise.all([waitForEnd(api, id, progress), follow ? followLogs(api, id, taskIdOf) : Promise.resolve()]);
  const ended = await getExecution(api, id);
  process.exitCode = exitCodeOf(ended.state.current);
  return ended;
}

export function registerExecutionCommands(program: Command): void {
  const execution = program.command('execution').description('run and operate executions');

  execution
    .command('run')
    .description('start an execution of the latest revision of a flow; with --wait the exit code is 0 only when it ends SUCCESS')
    .argument('<namespace>')
    .argument('<flowId>')
    .option('-i, --input <key=value>', 'an input (repeatable)', collect, [])
    .option('-l, --label <key=value>', 'a label (repeatable)', collect, [])
    .option('-w, --wait', 'wait until the execution ends, printing a progress line on stderr at each change')
    .option('-f, --follow', 'print its logs as they arrive (implies --wait)')
    .action(
      async (
        namespace: string,
        flowId: string,
        options: { input: string[]; label: string[]; wait?: boolean; follow?: boolean },
        command: Command,
      ) => {
        const inputs = pairsOf(options.input, '--input');
        const labels = pairsOf(options.label, '--label');
        const { api, output } = contextOf(command);
        const { body: created } = await api.request<ExecutionView>('POST', api.tenantPath('executions', namespace, flowId), {
          body: { inputs, labels },
        });
        if (!options.wait && !options.follow) {
          printExecution(output, created);
          return;
        }
        process.stderr.write(`execution ${created.id} started\n`);
        printExecution(output, await watch(api, created.id, options.follow === true));
      },
    );

  execution
    .command('get')
    .description('an execution with its task runs')
    .argument('<id>')
    .action(async (id: string, _options: unknown, command: Command) => {
      const { api, output } = contextOf(command);
      printExecution(output, await getExecution(api, id));
    });

  execution
    .command('logs')
    .description('the log lines of an execution')
    .argument('<id>')
    .option('-f, --follow', 'keep printing lines until the execution ended')
    .action(async (id: string, options: { follow?: boolean }, command: Command) => {
      const { api, output } = contextOf(command);
      const execution = await getExecution(api, id);
      const taskIds = new Map((execution.taskRunList ?? []).map((run) => [run.id, run.taskId]));
      const taskIdOf = (taskRunId: string | null) => (taskRunId === null ? '-' : (taskIds.get(taskRunId) ?? taskRunId));
      if (options.follow) return followLogs(api, id, taskIdOf);
      const { body: lines } = await api.request<LogLineView[]>('GET', api.tenantPath('logs', id));
      if (output === 'json') process.stdout.write(`${JSON.stringify(lines, null, 2)}\n`);
      else for (const line of lines) process.stdout.write(formatLogLine(line, taskIdOf));
    });

  execution
    .command('kill')
    .description('kill an execution (it moves through KILLING to KILLED)')
    .argument('<id>')
    .option('-w, --wait', 'wait until it ended')
    .action(async (id: string, options: { wait?: boolean }, command: Command) => {
      const { api, output } = contextOf(command);
      await api.request('DELETE', api.tenantPath('executions', id, 'kill'));
      process.stderr.write(`kill requested for ${id}\n`);
      if (options.wait) {
        await waitForEnd(api, id, () => undefined);
        printExecution(output, await getExecution(api, id));
      }
    });

  execution
    .command('resume')
    .description('resume a PAUSED execution')
    .argument('<id>')
    .option('-i, --input <key=value>', 'an input of the pause (repeatable)', collect, [])
    .action(async (id: string, options: { input: string[] }, command: Command) => {
      const inputs = pairsOf(options.input, '--input');
      const { api } = contextOf(command);
      await api.request('POST', api.tenantPath('executions', id, 'resume'), {
        body: Object.keys(inputs).length > 0 ? { inputs } : {},
      });
      process.stderr.write(`resumed ${id}\n`);
    });

  execution
    .command('restart')
    .description('restart a FAILED or KILLED execution: its failed task runs run again')
    .argument('<id>')
    .action(async (id: string, _options: unknown, command: Command) => {
      const { api, output } = contextOf(command);
      const { body: restarted } = await api.request<ExecutionView>('POST', api.tenantPath('executions', id, 'restart'));
      printExecution(output, restarted);
    });
}
