import type { FailTask, LogTask, OutputValuesTask, ReturnTask, SleepTask, TemplatedValue } from '@lanner/model';
import type { JsonObject } from '../json';
import type { TaskKindContext, TaskKindResult, TaskKindRunner } from '../task-runner.port';

// The tasks that need no process and no network. Their properties arrive rendered,
// so they only shape what they were given.

/** Kestra's Log: one log line per message (a list logs each item); no outputs. */
export const logRunner: TaskKindRunner<LogTask> = {
  async run(task, context) {
    const messages = Array.isArray(task.message) ? task.message : [task.message];
    for (const message of messages) context.log(task.level, typeof message === 'string' ? message : JSON.stringify(message));
    return { state: 'SUCCESS', outputs: {} };
  },
};

/** Kestra's Return: the rendered `format` as output `value`. */
export const returnRunner: TaskKindRunner<ReturnTask> = {
  async run(task) {
    return { state: 'SUCCESS', outputs: { value: task.format } };
  },
};

/** Kestra's OutputValues: the rendered `values` map as output `values`. */
export const outputValuesRunner: TaskKindRunner<OutputValuesTask> = {
  async run(task) {
    // TemplatedValue is JSON by construction (it comes from YAML), so it is a JsonObject.
    const values: Record<string, TemplatedValue> = { ...task.values };
    return { state: 'SUCCESS', outputs: { values: values as JsonObject } };
  },
};

/** Kestra's TruthUtils: a rendered condition is false only as 'false', '0', '-0' or ''. */
const FALSE_TEXTS: ReadonlySet<string> = new Set(['false', '0', '-0', '']);

/**
 * Kestra's Fail: fails with its rendered `errorMessage` (also logged at ERROR), or
 * succeeds when it has a `condition` that rendered false.
 */
export const failRunner: TaskKindRunner<FailTask> = {
  async run(task, context) {
    if (task.condition !== undefined && FALSE_TEXTS.has(String(task.condition))) return { state: 'SUCCESS', outputs: {} };
    context.log('ERROR', task.errorMessage);
    return { state: 'FAILED', outputs: {}, error: task.errorMessage };
  },
};

/** Kestra's Sleep: waits `durationMs`, or less when the signal aborts (the runner then reports KILLED). */
export const sleepRunner: TaskKindRunner<SleepTask> = {
  async run(task, context) {
    await abortableDelay(task.durationMs, context);
    return { state: 'SUCCESS', outputs: {} } satisfies TaskKindResult;
  },
};

function abortableDelay(ms: number, { signal }: TaskKindContext): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
