import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeQueueMessage, logBatchCodec, QUEUE_SCHEMA_VERSIONS, workerJobCodec, type LogBatchMessage } from '@lanner/frames';
import type { ExecutionWithTaskRuns, TaskRunRecord } from '@lanner/model';
import type { QueueMessage, QueueSubscription } from '@lanner/queue';
import { pause } from '@lanner/testing';
import { ended, startExecutorHarness, type ExecutorHarness } from '../testing/executor-harness';
import { notASystemTaskMessage, SYSTEM_WORKER_ID } from '../index';

// The system worker (WORKERS.md "Worker queue"): the tasks of the platform's
// flows (namespace `system`) go to the reserved `system` queue and run in the
// executor itself. Real Kafka and PostgreSQL; no controller and no worker is
// connected, and the stand-in controller does not read the `system` topics.

const TENANT = 'main';

let harness: ExecutorHarness;
/** Every `system` job produced, as it was on the topic. */
const systemJobs: QueueMessage[] = [];
const logBatches: LogBatchMessage[] = [];
const observers: QueueSubscription[] = [];
/** The system worker's internal storage (a local folder of this run). */
const storageRoot = mkdtempSync(join(tmpdir(), 'lanner-system-worker-spec-'));

/** Every file under the storage folder whose path names the execution. */
function filesOf(executionId: string, folder = storageRoot): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return filesOf(executionId, path);
    return path.includes(executionId) ? [path] : [];
  });
}

beforeAll(async () => {
  harness = await startExecutorHarness({ jobQueues: ['default'], executor: { storage: { kind: 'local', root: storageRoot } } });
  const run = harness.topics.executor.split('.')[0];
  observers.push(
    await harness.queue.subscribe({
      groupId: `${run}-system-observer`,
      topics: [harness.topics.workerJobs('system')],
      fromBeginning: true,
      handler: async (message) => {
        systemJobs.push(message);
      },
    }),
    await harness.queue.subscribe({
      groupId: `${run}-log-observer`,
      topics: [harness.topics.logs],
      fromBeginning: true,
      handler: async (message) => {
        logBatches.push(decodeQueueMessage(logBatchCodec, message.value));
      },
    }),
  );
}, 120_000);

afterAll(async () => {
  for (const observer of observers) await observer.close().catch(() => undefined);
  await harness?.close();
  rmSync(storageRoot, { recursive: true, force: true });
}, 60_000);

async function run(flowId: string, tasks: string, namespace = 'system'): Promise<ExecutionWithTaskRuns> {
  const revision = await harness.saveFlow(TENANT, `id: ${flowId}\nnamespace: ${namespace}\ntasks:\n${tasks}`);
  const executionId = await harness.submit(TENANT, namespace, flowId, revision);
  return harness.eventually(TENANT, executionId, ended, 'ended');
}

const taskRun = (execution: ExecutionWithTaskRuns, taskId: string): TaskRunRecord =>
  execution.taskRuns.find((candidate) => candidate.taskId === taskId) as TaskRunRecord;

const linesOf = (executionId: string): string[] =>
  logBatches
    .filter((batch) => batch.payload.executionId === executionId)
    .flatMap((batch) => batch.payload.entries.map((e) => e.message));

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`never ${what}`);
    await pause(100);
  }
}

describe('the in-process system worker', () => {
  it('runs the tasks of a platform flow in the executor, on the system queue, with no worker connected', async () => {
    const execution = await run(
      'nightly-purge',
      `  - id: announce
    type: io.kestra.plugin.core.log.Log
    message: "purging {{ flow.namespace }}"
  - id: done
    type: io.kestra.plugin.core.debug.Return
    format: "purged"
`,
    );

    expect(execution.state).toBe('SUCCESS');
    for (const taskId of ['announce', 'done']) {
      const record = taskRun(execution, taskId);
      expect(record).toMatchObject({ state: 'SUCCESS', workerQueueId: 'system' });
      expect(record.attempts.map((attempt) => [attempt.state, attempt.workerId])).toEqual([['SUCCESS', SYSTEM_WORKER_ID]]);
    }
    expect(taskRun(execution, 'done').outputs).toEqual({ value: 'purged' });
    // The stand-in controller serves `default` only: nothing of this flow went there.
    expect(harness.jobs.filter((received) => received.job.executionId === execution.id)).toEqual([]);
    await until(() => linesOf(execution.id).includes('purging system'), "put the Log task's line on lanner.logs");
  });

  it("purges the execution's files from internal storage, as a platform purge flow does", async () => {
    const execution = await run(
      'purge-files',
      `  - id: write
    type: io.kestra.plugin.core.storage.Write
    content: "rows to purge"
    extension: .txt
  - id: written
    type: io.kestra.plugin.core.debug.Return
    format: "{{ outputs.write.uri }}"
  - id: purge
    type: io.kestra.plugin.core.storage.PurgeCurrentExecutionFiles
`,
    );

    expect(execution.state).toBe('SUCCESS');
    const uri = (taskRun(execution, 'written').outputs as { value: string }).value;
    expect(uri).toMatch(/^kestra:\/\/.+\.txt$/);
    expect((taskRun(execution, 'purge').outputs as { uris: string[] }).uris).toContain(uri);
    expect(taskRun(execution, 'purge').attempts.map((attempt) => attempt.workerId)).toEqual([SYSTEM_WORKER_ID]);
    expect(filesOf(execution.id)).toEqual([]);
  });

  it('fails a task that runs user code, naming its type, without running it', async () => {
    const execution = await run(
      'scripted',
      `  - id: script
    type: io.kestra.plugin.scripts.shell.Commands
    commands: ["touch /tmp/lanner-system-worker-must-not-run-this"]
`,
    );

    expect(execution.state).toBe('FAILED');
    const record = taskRun(execution, 'script');
    expect(record.state).toBe('FAILED');
    expect(record.error).toBe(notASystemTaskMessage('io.kestra.plugin.scripts.shell.Commands'));
    expect(existsSync('/tmp/lanner-system-worker-must-not-run-this')).toBe(false);
  });

  it('leaves the tasks of other namespaces to the workers of their queues', async () => {
    const revision = await harness.saveFlow(
      TENANT,
      'id: elsewhere\nnamespace: company.team\ntasks:\n  - id: done\n    type: io.kestra.plugin.core.debug.Return\n    format: ok\n',
    );
    const executionId = await harness.submit(TENANT, 'company.team', 'elsewhere', revision);
    const execution = await harness.eventually(TENANT, executionId, ended, 'ended');

    expect(taskRun(execution, 'done')).toMatchObject({ state: 'SUCCESS', workerQueueId: 'default' });
    expect(taskRun(execution, 'done').attempts.map((attempt) => attempt.workerId)).toEqual(['stand-in-worker']);
  });

  it('stops a running task when its execution is killed, and the task run ends KILLED', async () => {
    const revision = await harness.saveFlow(
      TENANT,
      'id: long-purge\nnamespace: system\ntasks:\n  - id: wait\n    type: io.kestra.plugin.core.flow.Sleep\n    duration: PT120S\n',
    );
    const executionId = await harness.submit(TENANT, 'system', 'long-purge', revision);
    await harness.eventually(TENANT, executionId, (execution) => taskRun(execution, 'wait')?.state === 'RUNNING', 'started');
    expect(harness.executor.system.jobsRunning).toBe(1);

    await harness.publishToExecutor({
      schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.kill'],
      messageId: `${executionId}:kill`,
      type: 'execution.kill',
      occurredAt: new Date().toISOString(),
      payload: { tenantId: TENANT, executionId, requestedBy: 'system-worker-spec' },
    });
    // Well before the Sleep's two minutes: the spec's deadline is 40 s.
    const execution = await harness.eventually(TENANT, executionId, ended, 'ended');

    expect(execution.state).toBe('KILLED');
    expect(taskRun(execution, 'wait').attempts.map((attempt) => [attempt.state, attempt.workerId])).toEqual([
      ['KILLED', SYSTEM_WORKER_ID],
    ]);
    // The Sleep itself stopped: the system worker runs nothing any more.
    await until(() => harness.executor.system.jobsRunning === 0, 'stopped the Sleep');
  });

  it('runs a job delivered again only once: no second attempt, no second log line', async () => {
    const execution = await run(
      'redelivered',
      `  - id: announce
    type: io.kestra.plugin.core.log.Log
    message: "once"
`,
    );
    expect(execution.state).toBe('SUCCESS');
    await until(() => linesOf(execution.id).length === 1, 'logged the line');
    const job = systemJobs.find(
      (message) => decodeQueueMessage(workerJobCodec, message.value).payload.executionId === execution.id,
    );
    expect(job).toBeDefined();
    const ranBefore = harness.executor.system.jobsRun;
    const ignoredBefore = harness.executor.system.redeliveriesIgnored;

    // The same job, with the same id, twice more on its topic (as a redelivery after a rebalance would bring it).
    const again = { key: (job as QueueMessage).key, value: (job as QueueMessage).value, headers: (job as QueueMessage).headers };
    await harness.queue.publish(harness.topics.workerJobs('system'), [again]);
    await harness.queue.publish(harness.topics.workerJobs('system'), [again]);
    await until(() => harness.executor.system.redeliveriesIgnored === ignoredBefore + 2, 'took the two redeliveries');

    expect(harness.executor.system.jobsRun).toBe(ranBefore);
    const stored = await harness.repositories.executions.get(TENANT, execution.id);
    expect(taskRun(stored, 'announce').attempts).toHaveLength(1);
    expect(linesOf(execution.id)).toEqual(['once']);
  });
});
