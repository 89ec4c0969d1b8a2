import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTaskRunner } from '../task-runners';
import { recordingContext, returnTask, shellCommandsTask, temporaryFolder } from '../../testing/task-fixtures';
import { runWithCache } from './run-with-cache';
import { createTaskOutputCache } from './task-output-cache';

describe('task cache: an expired entry makes the task run again', () => {
  const work = temporaryFolder();
  const storage = temporaryFolder('lanner-storage-');
  afterAll(() => {
    work.remove();
    storage.remove();
  });
  const runner = createTaskRunner();
  const cache = createTaskOutputCache(storage.path);
  const scope = { namespace: 'company.team', flowId: 'nightly-report' };
  // The worker's clock is injected: the test moves it instead of waiting.
  let clock = new Date('2026-11-30T02:00:00Z');
  const now = () => clock;
  const runs = () => readFileSync(join(work.path, 'runs.log'), 'utf8').trim().split('\n').length;

  it('answers from the cache within the ttl and runs again after it', async () => {
    const task = shellCommandsTask(['echo run >> runs.log'], { taskCache: { enabled: true, ttlMs: 60 * 60 * 1000 } });
    const run = () =>
      runWithCache({ runner, cache, task, context: recordingContext({ workingDirectory: work.path, now }).context, scope });

    const first = await run();
    clock = new Date('2026-11-30T02:59:59Z');
    const withinTtl = await run();
    clock = new Date('2026-11-30T03:00:00Z');
    const afterTtl = await run();
    const refreshed = await run();

    expect([first.cacheHit, withinTtl.cacheHit, afterTtl.cacheHit, refreshed.cacheHit]).toEqual([false, true, false, true]);
    expect(runs()).toBe(2);
  });

  it('purges expired entries and keeps entries without a ttl', async () => {
    clock = new Date('2026-11-30T04:00:00Z');
    const forever = returnTask('kept', { id: 'forever', taskCache: { enabled: true } });
    await runWithCache({
      runner,
      cache,
      task: forever,
      context: recordingContext({ workingDirectory: work.path, now }).context,
      scope,
    });

    const removed = await cache.purgeExpired(new Date('2027-01-01T00:00:00Z'));
    const later = await runWithCache({
      runner,
      cache,
      task: forever,
      context: recordingContext({ workingDirectory: work.path, now }).context,
      scope,
    });

    expect(removed).toBe(1);
    expect(later).toEqual({ state: 'SUCCESS', outputs: { value: 'kept' }, cacheHit: true });
  });
});
