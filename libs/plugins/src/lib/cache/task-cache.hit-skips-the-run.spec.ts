import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTaskRunner } from '../task-runners';
import { recordingContext, shellCommandsTask, temporaryFolder } from '../../testing/task-fixtures';
import { runWithCache } from './run-with-cache';
import { createTaskOutputCache, TASK_CACHE_FOLDER } from './task-output-cache';

describe('task cache: a hit returns the stored outputs without running the task', () => {
  const work = temporaryFolder();
  const storage = temporaryFolder('lanner-storage-');
  afterAll(() => {
    work.remove();
    storage.remove();
  });
  const runner = createTaskRunner();
  const cache = createTaskOutputCache(storage.path);
  const scope = { tenantId: 'main', namespace: 'company.team', flowId: 'nightly-report' };
  // Each real run appends a line to a file, so the test sees how often the task ran.
  const runs = () => readFileSync(join(work.path, 'runs.log'), 'utf8').trim().split('\n').length;
  const countingTask = shellCommandsTask(['echo run >> runs.log', `echo '::{"outputs":{"rows":12}}::'`], {
    taskCache: { enabled: true, ttlMs: 60_000 },
  });

  it('runs once, then answers from the cache with cacheHit: true', async () => {
    const first = await runWithCache({
      runner,
      cache,
      task: countingTask,
      context: recordingContext({ workingDirectory: work.path }).context,
      scope,
    });
    const { context, lines } = recordingContext({ workingDirectory: work.path });
    const second = await runWithCache({ runner, cache, task: countingTask, context, scope });

    expect(first).toMatchObject({ state: 'SUCCESS', outputs: { exitCode: 0, vars: { rows: 12 } }, cacheHit: false });
    expect(second).toEqual({ state: 'SUCCESS', outputs: { exitCode: 0, vars: { rows: 12 } }, cacheHit: true });
    expect(runs()).toBe(1);
    expect(lines).toEqual([{ level: 'INFO', message: 'outputs taken from the task output cache; the task did not run' }]);
  });

  it('does not share entries between flows, or with a changed task', async () => {
    const before = runs();
    const context = recordingContext({ workingDirectory: work.path }).context;

    await runWithCache({ runner, cache, task: countingTask, context, scope: { ...scope, flowId: 'other-flow' } });
    await runWithCache({
      runner,
      cache,
      task: { ...countingTask, commands: [...countingTask.commands, 'true'] },
      context,
      scope,
    });

    expect(runs()).toBe(before + 2);
  });

  it('caches only SUCCESS outcomes', async () => {
    const failing = shellCommandsTask(['echo run >> runs.log', 'exit 1'], { id: 'failing', taskCache: { enabled: true } });
    const before = runs();
    const context = recordingContext({ workingDirectory: work.path }).context;

    const first = await runWithCache({ runner, cache, task: failing, context, scope });
    const second = await runWithCache({ runner, cache, task: failing, context, scope });

    expect([first.state, second.state]).toEqual(['FAILED', 'FAILED']);
    expect(second.cacheHit).toBe(false);
    expect(runs()).toBe(before + 2);
  });

  it('runs every time when the task does not enable the cache', async () => {
    const before = runs();
    const uncached = { ...countingTask, id: 'uncached', taskCache: { enabled: false } };
    const context = recordingContext({ workingDirectory: work.path }).context;

    await runWithCache({ runner, cache, task: uncached, context, scope });
    await runWithCache({ runner, cache, task: uncached, context, scope });

    expect(runs()).toBe(before + 2);
  });

  it('keys a task with a secret by the secret segment, so the value never reaches the cache folder', async () => {
    const task = shellCommandsTask(
      ['echo "::{\\"outputs\\":{\\"length\\":$(printf %s \'{{ secret(\'TOKEN\') }}\' | wc -c)}}::"'],
      {
        id: 'with-secret',
        taskCache: { enabled: true },
      },
    );
    const { context } = recordingContext({ workingDirectory: work.path, secrets: { TOKEN: 'value-of-the-token' } });

    const outcome = await runWithCache({ runner, cache, task, context, scope });
    const stored = readdirSync(join(storage.path, TASK_CACHE_FOLDER)).map(
      (name) => name + readFileSync(join(storage.path, TASK_CACHE_FOLDER, name), 'utf8'),
    );

    expect(outcome).toMatchObject({ state: 'SUCCESS', outputs: { vars: { length: 18 } } });
    expect(cache.keyFor(task, scope)).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.join('\n')).not.toContain('value-of-the-token');
  });
});
