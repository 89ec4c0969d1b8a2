import { jobMessageId, QUEUE_SCHEMA_VERSIONS } from '@lanner/frames';
import type { ExecutionWithTaskRuns, TaskRunRecord } from '@lanner/model';
import { ended, startExecutorHarness, type ExecutorHarness, type JobPayload } from './testing/executor-harness';

// Routing with live worker availability (WORKERS.md "Worker selector"): the
// executor reads the connected workers the controllers register, the group
// subscriptions and the selectors of task, flow, namespace and tenant, and
// the task run shows what it decided. Real Kafka and PostgreSQL; the stand-in
// controller registers workers in connected_workers as a controller does.

const TENANT = 'main';
const NAMESPACE = 'company.team';
const REASON_NOT_CONNECTED = 'no worker of the subscribed groups is connected';

let harness: ExecutorHarness;
const live = new Set<string>();

/** The connected workers, exactly these (as the controllers' registry would list them). */
async function fleet(workers: { workerId: string; groupId: string; queueIds: string[]; draining?: boolean }[]): Promise<void> {
  for (const workerId of live) await harness.disconnectWorker(workerId);
  live.clear();
  for (const worker of workers) {
    await harness.connectWorker(worker);
    live.add(worker.workerId);
  }
}

const gpuWorker = { workerId: 'gpu-worker-1', groupId: 'gpu-pool', queueIds: ['gpu', 'retry-a', 'retry-b'] };

function flowWith(flowId: string, task: string, namespace = NAMESPACE): string {
  return `
id: ${flowId}
namespace: ${namespace}
tasks:
  - id: work
    type: io.kestra.plugin.core.debug.Return
    format: done
${task}`;
}

async function run(flowId: string, task: string, namespace = NAMESPACE, tenant = TENANT): Promise<string> {
  const revision = await harness.saveFlow(tenant, flowWith(flowId, task, namespace));
  return harness.submit(tenant, namespace, flowId, revision);
}

function jobsOf(executionId: string): { queueId: string; topic: string; job: JobPayload }[] {
  return harness.jobs.filter((received) => received.job.executionId === executionId);
}

async function untilJob(executionId: string, count = 1): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (jobsOf(executionId).length < count) {
    if (Date.now() > deadline) throw new Error(`execution ${executionId} never produced ${count} job(s)`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const work = (execution: ExecutionWithTaskRuns): TaskRunRecord =>
  execution.taskRuns.find((taskRun) => taskRun.taskId === 'work') as TaskRunRecord;

/** Jobs the stand-in holds unanswered (no worker took them), per execution. */
const held = new Map<string, JobPayload[]>();

beforeAll(async () => {
  harness = await startExecutorHarness({
    jobQueues: ['default', 'gpu', 'arm', 'retry-a', 'retry-b'],
    // Read the fleet and the selectors on every decision, so each test sees exactly the rows it wrote.
    executor: { routingRefresh: { fleetMs: 0, selectorsMs: 0 } },
  });
  const { workerQueues, workerGroups } = harness.repositories;
  await workerQueues.put({ id: 'gpu', tags: ['gpu'] });
  await workerQueues.put({ id: 'arm', tags: ['arm'] });
  await workerQueues.put({ id: 'retry-a', tags: ['retry-tag'] });
  await workerGroups.put({
    id: 'gpu-pool',
    name: 'GPU pool',
    subscriptions: [{ workerQueueId: 'gpu' }, { workerQueueId: 'retry-a' }],
  });
  // Flows whose jobs no worker answers until a test says so.
  for (const flowId of ['waits-then-runs', 'times-out', 'killed-while-waiting', 'lost-worker']) {
    harness.scripts.set(flowId, async (job) => {
      held.set(job.executionId, [...(held.get(job.executionId) ?? []), job]);
    });
  }
}, 120_000);

afterAll(async () => {
  await harness?.close();
}, 60_000);

describe('the executor routes with live worker availability', () => {
  it('dispatches to the matching queue when a worker of a subscribed group is connected', async () => {
    await fleet([gpuWorker]);

    const executionId = await run('on-gpu', '    workerSelector: { tags: [gpu] }');
    const execution = await harness.eventually(TENANT, executionId, ended, 'ended');

    expect(execution.state).toBe('SUCCESS');
    expect(work(execution)).toMatchObject({ state: 'SUCCESS', workerQueueId: 'gpu', dispatchReason: null });
    expect(jobsOf(executionId).map((received) => received.topic)).toEqual([harness.topics.workerJobs('gpu')]);
  });

  it('waits on the queue while no worker of the subscribed groups is connected (a draining one does not count), then runs', async () => {
    await fleet([{ ...gpuWorker, draining: true }]);

    const executionId = await run('waits-then-runs', '    workerSelector: { tags: [gpu] }');
    await untilJob(executionId);
    const waiting = await harness.eventually(
      TENANT,
      executionId,
      (execution) => execution.state === 'RUNNING' && typeof work(execution)?.dispatchReason === 'string',
      'routed its task',
    );

    expect(waiting.state).toBe('RUNNING');
    expect(work(waiting)).toMatchObject({ state: 'SUBMITTED', workerQueueId: 'gpu' });
    expect(work(waiting).dispatchReason).toBe(
      `${REASON_NOT_CONNECTED} (queue 'gpu'); the job waits on the queue (fallback WAIT)`,
    );
    expect(jobsOf(executionId).map((received) => received.topic)).toEqual([harness.topics.workerJobs('gpu')]);

    // A worker connects and takes the job that waited on the queue's topic.
    await fleet([gpuWorker]);
    for (const job of held.get(executionId) ?? []) {
      await harness.answers.started(job);
      await harness.answers.result(job, 'SUCCESS', { value: 'done' });
    }
    const execution = await harness.eventually(TENANT, executionId, ended, 'ended');
    expect(execution.state).toBe('SUCCESS');
    expect(work(execution)).toMatchObject({ state: 'SUCCESS', workerQueueId: 'gpu', dispatchReason: null });
  });

  it('fails the task run when no group subscribes to the queue (fallback FAIL), producing no job', async () => {
    await fleet([gpuWorker]);

    const executionId = await run('arm-or-fail', '    workerSelector: { tags: [arm], fallback: FAIL }');
    const execution = await harness.eventually(TENANT, executionId, ended, 'ended');

    expect(execution.state).toBe('FAILED');
    const taskRun = work(execution);
    expect(taskRun.state).toBe('FAILED');
    expect(taskRun.dispatchReason).toBe("no group subscribes to queue 'arm'; the task run fails (fallback FAIL)");
    expect(taskRun.attempts).toEqual([expect.objectContaining({ state: 'FAILED', error: { message: taskRun.dispatchReason } })]);
    expect(jobsOf(executionId)).toEqual([]);
  });

  it('cancels the task run when no worker is connected and the fallback is CANCEL', async () => {
    await fleet([]);

    const executionId = await run('gpu-or-cancel', '    workerSelector: { tags: [gpu], fallback: CANCEL }');
    const execution = await harness.eventually(TENANT, executionId, ended, 'ended');

    expect(work(execution)).toMatchObject({
      state: 'CANCELLED',
      dispatchReason: `${REASON_NOT_CONNECTED} (queue 'gpu'); the task run is cancelled (fallback CANCEL)`,
    });
    expect(jobsOf(executionId)).toEqual([]);
  });

  it("sends the job to 'default' when no worker is connected and the fallback is IGNORE, saying so", async () => {
    await fleet([]);

    const executionId = await run('gpu-or-default', '    workerSelector: { tags: [gpu], fallback: IGNORE }');
    const execution = await harness.eventually(TENANT, executionId, ended, 'ended');

    expect(execution.state).toBe('SUCCESS');
    expect(work(execution)).toMatchObject({
      state: 'SUCCESS',
      workerQueueId: 'default',
      dispatchReason: `${REASON_NOT_CONNECTED} (queue 'gpu'); fallback IGNORE routes the task run to queue 'default'`,
    });
    expect(jobsOf(executionId).map((received) => received.topic)).toEqual([harness.topics.workerJobs('default')]);
  });

  it('fails the task run when no worker queue matches, whatever the fallback short of IGNORE', async () => {
    await fleet([gpuWorker]);

    const executionId = await run('tpu', '    workerSelector: { tags: [tpu] }');
    const execution = await harness.eventually(TENANT, executionId, ended, 'ended');

    expect(execution.state).toBe('FAILED');
    expect(work(execution).state).toBe('FAILED');
    expect(work(execution).dispatchReason).toBe("no worker queue matches the tags [tpu] (match ALL) for tenant 'main'");
  });

  it('fails a waiting task run at its timeout, saying no worker of the subscribed groups is connected', async () => {
    await fleet([]);

    const executionId = await run('times-out', '    workerSelector: { tags: [gpu] }\n    timeout: PT2S');
    const execution = await harness.eventually(TENANT, executionId, ended, 'ended');

    expect(execution.state).toBe('FAILED');
    const taskRun = work(execution);
    expect(taskRun.state).toBe('FAILED');
    expect(taskRun.dispatchReason).toContain(REASON_NOT_CONNECTED);
    expect(taskRun.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        state: 'FAILED',
        workerId: null,
        error: {
          message: expect.stringContaining(
            `Timed out after PT2S: no worker started the job on queue 'gpu' (${REASON_NOT_CONNECTED}`,
          ),
        },
      }),
    ]);
    // The job still on the topic carries the instant after which a worker that takes it refuses to start it.
    const [received] = jobsOf(executionId);
    expect(received.topic).toBe(harness.topics.workerJobs('gpu'));
    const submitted = taskRun.stateHistories.find((change) => change.state === 'SUBMITTED')?.date.getTime() ?? 0;
    expect(Date.parse(received.job.deadline ?? '')).toBe(submitted + 2000);
    await harness.eventually(
      TENANT,
      executionId,
      () => harness.kills.some((kill) => kill.taskRunId === taskRun.id),
      'had its job killed',
    );
  });
});

describe('worker selectors declared by namespaces and tenants', () => {
  it('routes a task by the nearest namespace ancestor that declares a selector', async () => {
    await fleet([gpuWorker]);
    await harness.repositories.namespaces.setWorkerSelector(TENANT, 'acme', { tags: ['arm'], fallback: 'FAIL' });
    await harness.repositories.namespaces.setWorkerSelector(TENANT, 'acme.data', { tags: ['gpu'] });

    const nearest = await run('etl', '', 'acme.data.etl');
    const farther = await run('site', '', 'acme.web');
    const [etl, site] = [
      await harness.eventually(TENANT, nearest, ended, 'ended'),
      await harness.eventually(TENANT, farther, ended, 'ended'),
    ];

    expect(etl.state).toBe('SUCCESS');
    expect(work(etl)).toMatchObject({
      workerQueueId: 'gpu',
      dispatchReason: "dispatched to queue 'gpu' (worker selector of namespace 'acme.data')",
    });
    expect(jobsOf(nearest).map((received) => received.topic)).toEqual([harness.topics.workerJobs('gpu')]);
    expect(site.state).toBe('FAILED');
    expect(work(site).dispatchReason).toBe(
      "no group subscribes to queue 'arm'; the task run fails (fallback FAIL) (worker selector of namespace 'acme')",
    );
  });

  it("routes by the tenant's selector when no task, flow or namespace declares one, and a task's own selector wins over it", async () => {
    await fleet([gpuWorker]);
    await harness.repositories.tenants.setWorkerSelector('globex', { tags: ['gpu'] });

    const byTenant = await run('report', '', 'globex.ops', 'globex');
    const byTask = await run('report-default', '    workerSelector: { tags: [] }', 'globex.ops', 'globex');
    const [tenantRouted, taskRouted] = [
      await harness.eventually('globex', byTenant, ended, 'ended'),
      await harness.eventually('globex', byTask, ended, 'ended'),
    ];

    expect(work(tenantRouted)).toMatchObject({
      state: 'SUCCESS',
      workerQueueId: 'gpu',
      dispatchReason: "dispatched to queue 'gpu' (worker selector of tenant 'globex')",
    });
    expect(work(taskRouted)).toMatchObject({ state: 'SUCCESS', workerQueueId: 'default' });
  });
});

describe('a job sent again', () => {
  it('keeps its worker queue after its worker was lost, even when routing afresh would pick another queue', async () => {
    await fleet([gpuWorker]);
    const executionId = await run('lost-worker', '    workerSelector: { tags: [retry-tag] }');
    await untilJob(executionId);
    const [first] = held.get(executionId) ?? [];
    await harness.answers.started(first);
    await harness.eventually(TENANT, executionId, (execution) => work(execution)?.state === 'RUNNING', 'ran its task');

    // The topology changes: routing afresh would now choose 'retry-b'.
    await harness.repositories.workerQueues.put({ id: 'retry-a', tags: ['renamed'] });
    await harness.repositories.workerQueues.put({ id: 'retry-b', tags: ['retry-tag'] });
    await harness.publishToExecutor({
      schemaVersion: QUEUE_SCHEMA_VERSIONS['task-run.worker-lost'],
      messageId: jobMessageId(first.taskRunId, 1),
      type: 'task-run.worker-lost',
      occurredAt: new Date().toISOString(),
      payload: {
        tenantId: TENANT,
        executionId,
        taskRunId: first.taskRunId,
        attempt: 1,
        workerId: 'stand-in-worker',
        reason: 'worker disconnected',
      },
    });
    await untilJob(executionId, 2);

    expect(jobsOf(executionId).map((received) => [received.job.attempt, received.topic])).toEqual([
      [1, harness.topics.workerJobs('retry-a')],
      // Re-queued on the queue's resubmitted-jobs topic, which its controllers serve before its new work.
      [2, harness.topics.resubmittedJobs('retry-a')],
    ]);
    const second = (held.get(executionId) ?? [])[1];
    await harness.answers.started(second);
    await harness.answers.result(second, 'SUCCESS', { value: 'done' });
    const execution = await harness.eventually(TENANT, executionId, ended, 'ended');
    expect(execution.state).toBe('SUCCESS');
    expect(work(execution).attempts.map((attempt) => [attempt.state, attempt.workerQueueId])).toEqual([
      ['RESUBMITTED', 'retry-a'],
      ['SUCCESS', 'retry-a'],
    ]);
  });

  it('is dropped, not run again, when its execution was killed (a late result and a lost-worker report change nothing)', async () => {
    await fleet([]);
    const executionId = await run('killed-while-waiting', '    workerSelector: { tags: [gpu] }');
    await untilJob(executionId);
    await harness.publishToExecutor({
      schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.kill'],
      messageId: `${executionId}:kill`,
      type: 'execution.kill',
      occurredAt: new Date().toISOString(),
      payload: { tenantId: TENANT, executionId },
    });
    const killed = await harness.eventually(TENANT, executionId, ended, 'ended');
    expect(killed.state).toBe('KILLED');
    expect(work(killed).state).toBe('KILLED');

    // The job comes back: a worker that took it late reports a result, its controller reports it lost.
    const [job] = held.get(executionId) ?? [];
    await harness.answers.started(job);
    await harness.answers.result(job, 'SUCCESS', { value: 'too late' });
    await harness.publishToExecutor({
      schemaVersion: QUEUE_SCHEMA_VERSIONS['task-run.worker-lost'],
      messageId: jobMessageId(job.taskRunId, 1),
      type: 'task-run.worker-lost',
      occurredAt: new Date().toISOString(),
      payload: {
        tenantId: TENANT,
        executionId,
        taskRunId: job.taskRunId,
        attempt: 1,
        workerId: 'stand-in-worker',
        reason: 'worker disconnected',
      },
    });
    // Then a restart, on the same partition after them: once it is applied, everything before it was too.
    await harness.publishToExecutor({
      schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.restart'],
      messageId: `${executionId}:restart`,
      type: 'execution.restart',
      occurredAt: new Date().toISOString(),
      payload: { tenantId: TENANT, executionId, expectedVersion: killed.version },
    });
    const restarted = await harness.eventually(TENANT, executionId, (execution) => execution.state === 'RUNNING', 'restarted');
    await untilJob(executionId, 2);

    // Attempt 1 stayed KILLED (not RESUBMITTED, not SUCCESS); the only new job is the restart's, on the queue it had.
    expect(work(restarted).attempts.map((attempt) => [attempt.attempt, attempt.state])).toEqual([
      [1, 'KILLED'],
      [2, 'SUBMITTED'],
    ]);
    expect(jobsOf(executionId).map((received) => [received.job.attempt, received.topic])).toEqual([
      [1, harness.topics.workerJobs('gpu')],
      [2, harness.topics.workerJobs('gpu')],
    ]);
    await harness.publishToExecutor({
      schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.kill'],
      messageId: `${executionId}:kill-again`,
      type: 'execution.kill',
      occurredAt: new Date().toISOString(),
      payload: { tenantId: TENANT, executionId },
    });
    expect((await harness.eventually(TENANT, executionId, ended, 'ended')).state).toBe('KILLED');
  });
});
