import type { RunnableTask } from '@lanner/model';
import { errorMessage } from '../error-message';
import type { TaskOutcome, TaskRunContext, TaskRunner } from '../task-runner.port';
import type { TaskCacheScope, TaskOutputCache } from './task-output-cache';

export interface CachedRun {
  readonly runner: TaskRunner;
  readonly cache: TaskOutputCache;
  readonly task: RunnableTask;
  readonly context: TaskRunContext;
  readonly scope: TaskCacheScope;
}

/**
 * Runs a task through the output cache when its `taskCache.enabled` is set: a live
 * entry gives a SUCCESS outcome with `cacheHit: true` without running the task;
 * otherwise the task runs and only a SUCCESS outcome is stored (for `ttlMs`, or
 * until purged when no ttl is given). The cache never makes a task fail: a read
 * problem is a miss and a write problem a WARN line.
 */
export async function runWithCache({ runner, cache, task, context, scope }: CachedRun): Promise<TaskOutcome> {
  // An aborted run goes to the runner too, which reports it KILLED rather than a cache hit.
  if (!task.taskCache?.enabled || context.signal.aborted) return runner.run(task, context);
  const key = cache.keyFor(task, scope);
  const cached = await cache.read(key, context.now()).catch(() => undefined);
  if (cached !== undefined) {
    context.log('INFO', 'outputs taken from the task output cache; the task did not run');
    return { state: 'SUCCESS', outputs: cached, cacheHit: true };
  }
  const outcome = await runner.run(task, context);
  if (outcome.state === 'SUCCESS') {
    await cache.write(key, outcome.outputs, context.now(), task.taskCache.ttlMs).catch((error: unknown) => {
      context.log('WARN', `the outputs could not be stored in the task output cache: ${errorMessage(error, 'unknown error')}`);
    });
  }
  return outcome;
}
