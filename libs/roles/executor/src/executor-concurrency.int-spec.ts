import { QUEUE_SCHEMA_VERSIONS } from '@lanner/frames';
import type { ExecutionWithTaskRuns } from '@lanner/model';
import { PendingWork } from './lib/pending-work';
import { ended, startExecutorHarness, type ExecutorHarness } from './testing/executor-harness';

// Flow concurrency limits and CREATE_NEW_EXECUTION retries, on the real Kafka
// and PostgreSQL: an execution QUEUED by its flow's limit starts when a slot
// frees, and a retry execution starts after its delay, from a durable timer.

const TENANT = 'main';
const NAMESPACE = 'company.team';

let harness: ExecutorHarness;

beforeAll(async () => {
  harness = await startExecutorHarness({ jobQueues: ['default'] });
  // A worker of the default group is connected, so jobs are dispatched rather than waiting.
  await harness.connectWorker({ workerId: 'default-worker', groupId: 'default', queueIds: ['default'] });
}, 120_000);

afterAll(async () => {
  await harness?.close();
}, 60_000);

function stateAt(execution: ExecutionWithTaskRuns, state: string): number {
  const change = execution.stateHistories.find((entry) => entry.state === state);
  if (change === undefined)
    throw new Error(
      `execution ${execution.id} was never ${state}: ${execution.stateHistories.map((entry) => entry.state).join(' > ')}`,
    );
  return change.date.getTime();
}

describe('a flow concurrency limit', () => {
  it('with limit 1, runs three executions submitted together one after the other, all to SUCCESS', async () => {
    const revision = await harness.saveFlow(
      TENANT,
      `
id: one-at-a-time
namespace: ${NAMESPACE}
concurrency:
  limit: 1
  behavior: QUEUE
tasks:
  - id: work
    type: io.kestra.plugin.core.debug.Return
    format: done
`,
    );
    // Each job takes a while on the worker, so executions running side by side would overlap.
    harness.scripts.set('one-at-a-time', async (job, reply) => {
      await reply.started(job);
      await new Promise((resolve) => setTimeout(resolve, 400));
      await reply.result(job, 'SUCCESS', { value: 'done' });
    });

    const ids = await Promise.all([1, 2, 3].map(() => harness.submit(TENANT, NAMESPACE, 'one-at-a-time', revision)));
    const executions = await Promise.all(ids.map((id) => harness.eventually(TENANT, id, ended, 'ended')));

    expect(executions.map((execution) => execution.state)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
    // Two of them waited in QUEUED for the slot.
    expect(executions.filter((execution) => execution.stateHistories.some((change) => change.state === 'QUEUED'))).toHaveLength(
      2,
    );
    // One after the other: each started only after the one before it ended.
    const runs = executions
      .map((execution) => ({ start: stateAt(execution, 'RUNNING'), end: stateAt(execution, 'SUCCESS') }))
      .sort((a, b) => a.start - b.start);
    for (let i = 1; i < runs.length; i++) expect(runs[i].start).toBeGreaterThanOrEqual(runs[i - 1].end);
    // Each ran its task once: a slot handed on twice would have started an execution twice.
    for (const execution of executions) expect(execution.taskRuns.map((taskRun) => taskRun.attempts.length)).toEqual([1]);
  });

  it('with behavior CANCEL, cancels an execution submitted while the slot is taken', async () => {
    const revision = await harness.saveFlow(
      TENANT,
      `
id: cancel-when-busy
namespace: ${NAMESPACE}
concurrency:
  limit: 1
  behavior: CANCEL
tasks:
  - id: work
    type: io.kestra.plugin.core.debug.Return
    format: done
`,
    );
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    harness.scripts.set('cancel-when-busy', async (job, reply) => {
      await reply.started(job);
      await released;
      await reply.result(job, 'SUCCESS', { value: 'done' });
    });

    const first = await harness.submit(TENANT, NAMESPACE, 'cancel-when-busy', revision);
    await harness.eventually(TENANT, first, (execution) => execution.taskRuns[0]?.state === 'RUNNING', 'ran its task');
    const second = await harness.submit(TENANT, NAMESPACE, 'cancel-when-busy', revision);
    const cancelled = await harness.eventually(TENANT, second, ended, 'ended');
    release();

    expect(cancelled.state).toBe('CANCELLED');
    expect(cancelled.taskRuns).toEqual([]);
    expect((await harness.eventually(TENANT, first, ended, 'ended')).state).toBe('SUCCESS');
  });
});

describe('a QUEUED execution', () => {
  it('does not start on a redelivered execution.created while the slot is taken, and a kill cancels it', async () => {
    const revision = await harness.saveFlow(
      TENANT,
      `
id: redelivered-while-queued
namespace: ${NAMESPACE}
concurrency:
  limit: 1
  behavior: QUEUE
tasks:
  - id: work
    type: io.kestra.plugin.core.debug.Return
    format: done
`,
    );
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    harness.scripts.set('redelivered-while-queued', async (job, reply) => {
      await reply.started(job);
      await released;
      await reply.result(job, 'SUCCESS', { value: 'done' });
    });
    const holder = await harness.submit(TENANT, NAMESPACE, 'redelivered-while-queued', revision);
    await harness.eventually(TENANT, holder, (execution) => execution.taskRuns[0]?.state === 'RUNNING', 'ran its task');
    const queued = await harness.submit(TENANT, NAMESPACE, 'redelivered-while-queued', revision);
    await harness.eventually(TENANT, queued, (execution) => execution.state === 'QUEUED', 'was queued');

    // Its execution.created again, as a redelivery brings it, then a kill (same partition, so applied after it).
    const created = await harness.repositories.executions.get(TENANT, queued);
    await harness.publishToExecutor({
      schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.created'],
      messageId: `${queued}:created`,
      type: 'execution.created',
      occurredAt: new Date().toISOString(),
      payload: {
        tenantId: TENANT,
        executionId: queued,
        namespace: NAMESPACE,
        flowId: created.flowId,
        flowRevision: revision,
        inputs: {},
        labels: {},
      },
    });
    await harness.publishToExecutor({
      schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.kill'],
      messageId: `${queued}:kill`,
      type: 'execution.kill',
      occurredAt: new Date().toISOString(),
      payload: { tenantId: TENANT, executionId: queued },
    });
    const cancelled = await harness.eventually(TENANT, queued, ended, 'ended');
    release();

    expect(cancelled.state).toBe('CANCELLED');
    expect(cancelled.stateHistories.map((change) => change.state)).toEqual(['CREATED', 'QUEUED', 'CANCELLED']);
    expect(cancelled.taskRuns).toEqual([]);
    expect((await harness.eventually(TENANT, holder, ended, 'ended')).state).toBe('SUCCESS');
  });
});

describe('a restarted execution', () => {
  it('with limit 1, waits QUEUED while another execution runs, then re-runs its failed task once that one ended', async () => {
    const flowId = 'restart-takes-a-slot';
    const revision = await harness.saveFlow(
      TENANT,
      `
id: ${flowId}
namespace: ${NAMESPACE}
concurrency:
  limit: 1
  behavior: QUEUE
tasks:
  - id: work
    type: io.kestra.plugin.core.debug.Return
    format: done
`,
    );
    let first: string | undefined;
    let releaseOther: () => void = () => undefined;
    const otherReleased = new Promise<void>((resolve) => (releaseOther = resolve));
    harness.scripts.set(flowId, async (job, reply) => {
      await reply.started(job);
      if (job.executionId === first && job.attempt === 1) return reply.result(job, 'FAILED', {}, 'the disk was full');
      if (job.executionId !== first) await otherReleased;
      // Long enough that two executions running side by side would be seen doing so.
      await new Promise((resolve) => setTimeout(resolve, 400));
      await reply.result(job, 'SUCCESS', { value: 'done' });
    });
    // What a user watching the flow's executions sees: how many run at once.
    let mostRunning = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const running = await harness.repositories.executions.search(TENANT, {
          namespace: NAMESPACE,
          flowId,
          state: 'RUNNING',
          page: 1,
          size: 10,
        });
        mostRunning = Math.max(mostRunning, running.total);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();

    try {
      first = await harness.submit(TENANT, NAMESPACE, flowId, revision);
      const failed = await harness.eventually(TENANT, first, ended, 'ended');
      expect(failed.state).toBe('FAILED');
      const other = await harness.submit(TENANT, NAMESPACE, flowId, revision);
      await harness.eventually(TENANT, other, (execution) => execution.taskRuns[0]?.state === 'RUNNING', 'ran its task');

      // As the API restarts it: the version the user saw, on the execution's partition.
      await harness.publishToExecutor({
        schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.restart'],
        messageId: `${first}:restart:${failed.version}`,
        type: 'execution.restart',
        occurredAt: new Date().toISOString(),
        payload: { tenantId: TENANT, executionId: first, expectedVersion: failed.version, requestedBy: 'spec' },
      });
      const restarted = await harness.eventually(
        TENANT,
        first,
        (execution) => execution.version > failed.version,
        'changed after the restart',
      );
      expect(restarted.state).toBe('QUEUED');
      // It keeps waiting while the other runs: its failed task is not sent again.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const stillWaiting = await harness.repositories.executions.get(TENANT, first);
      expect(stillWaiting.state).toBe('QUEUED');
      expect(stillWaiting.taskRuns.map((taskRun) => [taskRun.state, taskRun.attempts.length])).toEqual([['FAILED', 1]]);
      expect(
        harness.jobs.filter((received) => received.job.executionId === first).map((received) => received.job.attempt),
      ).toEqual([1]);

      releaseOther();
      const otherEnded = await harness.eventually(TENANT, other, ended, 'ended');
      const rerun = await harness.eventually(TENANT, first, ended, 'ended');

      expect(otherEnded.state).toBe('SUCCESS');
      expect(rerun.state).toBe('SUCCESS');
      expect(rerun.stateHistories.map((change) => change.state)).toEqual([
        'CREATED',
        'RUNNING',
        'FAILED',
        'RESTARTED',
        'QUEUED',
        'RUNNING',
        'SUCCESS',
      ]);
      // It ran again only once the other had ended, and only its failed task, as a second attempt.
      const rerunStart = rerun.stateHistories[5]?.date.getTime() ?? 0;
      expect(rerunStart).toBeGreaterThanOrEqual(stateAt(otherEnded, 'SUCCESS'));
      expect(rerun.taskRuns[0].attempts.map((attempt) => attempt.state)).toEqual(['FAILED', 'SUCCESS']);
    } finally {
      releaseOther();
      sampling = false;
      await sampler;
    }
    expect(mostRunning).toBe(1);
  });

  it('holds the slot while it runs again and frees it when it ends: an execution submitted meanwhile waits QUEUED', async () => {
    const flowId = 'restart-holds-the-slot';
    const revision = await harness.saveFlow(
      TENANT,
      `
id: ${flowId}
namespace: ${NAMESPACE}
concurrency:
  limit: 1
  behavior: QUEUE
tasks:
  - id: work
    type: io.kestra.plugin.core.debug.Return
    format: done
`,
    );
    let first: string | undefined;
    let releaseRerun: () => void = () => undefined;
    const rerunReleased = new Promise<void>((resolve) => (releaseRerun = resolve));
    harness.scripts.set(flowId, async (job, reply) => {
      await reply.started(job);
      if (job.executionId === first && job.attempt === 1) return reply.result(job, 'FAILED', {}, 'the disk was full');
      if (job.executionId === first) await rerunReleased;
      await reply.result(job, 'SUCCESS', { value: 'done' });
    });

    try {
      first = await harness.submit(TENANT, NAMESPACE, flowId, revision);
      const failed = await harness.eventually(TENANT, first, ended, 'ended');
      await harness.publishToExecutor({
        schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.restart'],
        messageId: `${first}:restart:${failed.version}`,
        type: 'execution.restart',
        occurredAt: new Date().toISOString(),
        payload: { tenantId: TENANT, executionId: first, expectedVersion: failed.version, requestedBy: 'spec' },
      });
      // The slot was free: it runs again at once.
      await harness.eventually(
        TENANT,
        first,
        (execution) => execution.taskRuns[0]?.attempts.length === 2 && execution.state === 'RUNNING',
        'ran again',
      );
      const later = await harness.submit(TENANT, NAMESPACE, flowId, revision);
      expect(
        (await harness.eventually(TENANT, later, (execution) => execution.state !== 'CREATED', 'was admitted or queued')).state,
      ).toBe('QUEUED');

      releaseRerun();
      const rerun = await harness.eventually(TENANT, first, ended, 'ended');
      const admitted = await harness.eventually(TENANT, later, ended, 'ended');
      expect(rerun.state).toBe('SUCCESS');
      expect(rerun.stateHistories.map((change) => change.state)).toEqual([
        'CREATED',
        'RUNNING',
        'FAILED',
        'RESTARTED',
        'RUNNING',
        'SUCCESS',
      ]);
      expect(admitted.state).toBe('SUCCESS');
      expect(stateAt(admitted, 'RUNNING')).toBeGreaterThanOrEqual(stateAt(rerun, 'SUCCESS'));
    } finally {
      releaseRerun();
    }
  });

  it('with behavior CANCEL, is CANCELLED when restarted while the slot is taken, and its failed task is not run again', async () => {
    const flowId = 'restart-cancelled-when-busy';
    const revision = await harness.saveFlow(
      TENANT,
      `
id: ${flowId}
namespace: ${NAMESPACE}
concurrency:
  limit: 1
  behavior: CANCEL
tasks:
  - id: work
    type: io.kestra.plugin.core.debug.Return
    format: done
`,
    );
    let first: string | undefined;
    let releaseOther: () => void = () => undefined;
    const otherReleased = new Promise<void>((resolve) => (releaseOther = resolve));
    harness.scripts.set(flowId, async (job, reply) => {
      await reply.started(job);
      if (job.executionId === first) return reply.result(job, 'FAILED', {}, 'the disk was full');
      await otherReleased;
      await reply.result(job, 'SUCCESS', { value: 'done' });
    });

    try {
      first = await harness.submit(TENANT, NAMESPACE, flowId, revision);
      const failed = await harness.eventually(TENANT, first, ended, 'ended');
      const other = await harness.submit(TENANT, NAMESPACE, flowId, revision);
      await harness.eventually(TENANT, other, (execution) => execution.taskRuns[0]?.state === 'RUNNING', 'ran its task');
      await harness.publishToExecutor({
        schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.restart'],
        messageId: `${first}:restart:${failed.version}`,
        type: 'execution.restart',
        occurredAt: new Date().toISOString(),
        payload: { tenantId: TENANT, executionId: first, expectedVersion: failed.version, requestedBy: 'spec' },
      });
      const cancelled = await harness.eventually(
        TENANT,
        first,
        (execution) => execution.version > failed.version,
        'changed after the restart',
      );
      releaseOther();

      expect(cancelled.state).toBe('CANCELLED');
      expect(cancelled.stateHistories.map((change) => change.state)).toEqual([
        'CREATED',
        'RUNNING',
        'FAILED',
        'RESTARTED',
        'CANCELLED',
      ]);
      expect(cancelled.taskRuns.map((taskRun) => [taskRun.state, taskRun.attempts.length])).toEqual([['FAILED', 1]]);
      expect((await harness.eventually(TENANT, other, ended, 'ended')).state).toBe('SUCCESS');
    } finally {
      releaseOther();
    }
  });
});

describe('a restart admitted but lost before its state was stored', () => {
  it('runs once the pending work is rebuilt (standalone start), and frees the slot it was given when it ends', async () => {
    const flowId = 'restart-lost-after-admission';
    const revision = await harness.saveFlow(
      TENANT,
      `
id: ${flowId}
namespace: ${NAMESPACE}
concurrency:
  limit: 1
  behavior: QUEUE
tasks:
  - id: work
    type: io.kestra.plugin.core.debug.Return
    format: done
`,
    );
    const failing = new Set<string>();
    harness.scripts.set(flowId, async (job, reply) => {
      await reply.started(job);
      if (failing.has(job.executionId) && job.attempt === 1) return reply.result(job, 'FAILED', {}, 'the disk was full');
      await reply.result(job, 'SUCCESS', { value: 'done' });
    });
    const first = await harness.submit(TENANT, NAMESPACE, flowId, revision);
    failing.add(first);
    const failed = await harness.eventually(TENANT, first, ended, 'ended');
    // What the executor recorded for the restart before its process stopped: the slot, not the restarted state.
    const admission = { namespace: NAMESPACE, flowId, executionId: first, limit: 1, queueWhenFull: true, at: new Date() };
    expect(await harness.repositories.executions.admitRestartUnderConcurrencyLimit(TENANT, admission)).toBe(true);
    const later = await harness.submit(TENANT, NAMESPACE, flowId, revision);
    expect(
      (await harness.eventually(TENANT, later, (execution) => execution.state !== 'CREATED', 'was admitted or queued')).state,
    ).toBe('QUEUED');

    // As a standalone executor starting on an in-process queue (which forgot the restart message) rebuilds its work.
    await new PendingWork(harness.repositories, harness.queue, harness.topics.executor).rebuild();

    const rerun = await harness.eventually(
      TENANT,
      first,
      (execution) => ended(execution) && execution.version > failed.version,
      'ended again',
    );
    const admitted = await harness.eventually(TENANT, later, ended, 'ended');
    expect(rerun.state).toBe('SUCCESS');
    expect(rerun.taskRuns[0].attempts.map((attempt) => attempt.state)).toEqual(['FAILED', 'SUCCESS']);
    expect(admitted.state).toBe('SUCCESS');
    expect(stateAt(admitted, 'RUNNING')).toBeGreaterThanOrEqual(
      rerun.stateHistories[rerun.stateHistories.length - 1]?.date.getTime() ?? 0,
    );
  });
});

describe('a CREATE_NEW_EXECUTION retry', () => {
  it('creates the new execution at once and starts it only after the retry delay; maxAttempts counts across the executions', async () => {
    const revision = await harness.saveFlow(
      TENANT,
      `
id: retried-as-new
namespace: ${NAMESPACE}
tasks:
  - id: flaky
    type: io.kestra.plugin.core.debug.Return
    format: done
    retry:
      type: constant
      interval: PT2S
      maxAttempts: 2
      behavior: CREATE_NEW_EXECUTION
`,
    );
    harness.scripts.set('retried-as-new', async (job, reply) => {
      await reply.started(job);
      await reply.result(job, 'FAILED', {}, 'the service answered 503');
    });

    const originalId = await harness.submit(TENANT, NAMESPACE, 'retried-as-new', revision);
    const original = await harness.eventually(TENANT, originalId, ended, 'ended');
    expect(original.state).toBe('RETRIED');

    // The new execution exists at once, not started, with a durable start timer at the delay.
    const retryId = `${originalId}-retry2`;
    const waiting = await harness.repositories.executions.get(TENANT, retryId);
    const [timer] = await harness.repositories.timers.listForExecution(TENANT, retryId);
    const retriedAt = stateAt(original, 'RETRIED');
    expect(waiting).toMatchObject({
      state: 'CREATED',
      flowId: 'retried-as-new',
      trigger: { type: 'retry', retriedExecutionId: originalId, retryAttempt: 2 },
    });
    expect(timer).toEqual(expect.objectContaining({ executionId: retryId, kind: 'execution-start' }));
    expect(timer.dueAt.getTime()).toBe(retriedAt + 2000);

    const retried = await harness.eventually(TENANT, retryId, ended, 'ended');
    // It ran only once the delay had passed after the failure (the delay is counted from the failed attempt's end).
    const failedAt = original.taskRuns[0].attempts[0].endedAt?.getTime() ?? 0;
    expect(stateAt(retried, 'RUNNING')).toBeGreaterThanOrEqual(failedAt + 2000);
    expect(retried).toMatchObject({ state: 'FAILED', flowId: 'retried-as-new', inputs: {} });
    expect(retried.taskRuns[0].attempts).toEqual([
      expect.objectContaining({ state: 'FAILED', error: { message: 'the service answered 503' } }),
    ]);
    // maxAttempts 2: the original and one retry; no third execution.
    await expect(harness.repositories.executions.get(TENANT, `${originalId}-retry3`)).rejects.toThrow();
  });
});
