import { Logger } from '@nestjs/common';
import { startExecutorHarness, type ExecutorHarness, type JobPayload } from './testing/executor-harness';

// Executors of one group on the real Kafka and PostgreSQL, each keeping the
// executions of its partitions in memory. The first one has them all in memory
// when a second one joins (the partitions are split between the two) and
// advances those of its partitions; the second one leaves, so its partitions
// come back to the first, whose copies of those executions are now older than
// what is stored; then a third one joins and the first one leaves. Every
// execution ends SUCCESS with each task run run once, and no executor ever wrote
// from a stale copy: a write based on a version another executor had replaced
// would be refused and logged, and none is.

const TENANT = 'main';
const EXECUTIONS = 6;
const FLOW = `
id: three-steps
namespace: company.team
tasks:
  - { id: first, type: io.kestra.plugin.core.log.Log, message: one }
  - { id: second, type: io.kestra.plugin.core.log.Log, message: two }
  - { id: third, type: io.kestra.plugin.core.debug.Return, format: three }
`;

let harness: ExecutorHarness;
const warnings: string[] = [];

beforeAll(async () => {
  jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown, ...rest: unknown[]) => {
    warnings.push([message, ...rest].map((part) => (typeof part === 'string' ? part : JSON.stringify(part))).join(' '));
  });
  harness = await startExecutorHarness({ jobQueues: ['default'] });
  await harness.connectWorker({ workerId: 'default-worker', groupId: 'default', queueIds: ['default'] });
}, 120_000);

afterAll(async () => {
  await harness?.close();
  jest.restoreAllMocks();
}, 60_000);

/** Jobs held until the spec answers them, by task id. */
const held = new Map<string, JobPayload[]>();

async function waitForHeld(taskId: string, count: number): Promise<JobPayload[]> {
  const deadline = Date.now() + 40_000;
  while ((held.get(taskId)?.length ?? 0) < count) {
    if (Date.now() > deadline) throw new Error(`only ${held.get(taskId)?.length ?? 0} of ${count} '${taskId}' jobs arrived`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return held.get(taskId) ?? [];
}

async function answer(jobs: readonly JobPayload[]): Promise<void> {
  for (const job of jobs) {
    await harness.answers.started(job);
    await harness.answers.result(job, 'SUCCESS', job.taskId === 'third' ? { value: 'three' } : {});
  }
}

it('an executor that joins or leaves hands its executions over with nothing stale written, lost or run twice', async () => {
  const revision = await harness.saveFlow(TENANT, FLOW);
  harness.scripts.set('three-steps', async (job) => {
    held.set(job.taskId, [...(held.get(job.taskId) ?? []), job]);
  });
  const ids: string[] = [];
  for (let i = 0; i < EXECUTIONS; i++) ids.push(await harness.submit(TENANT, 'company.team', 'three-steps', revision));
  const firsts = await waitForHeld('first', EXECUTIONS);

  // A second executor joins: the three partitions are split between the two, and it advances the executions of its own.
  const second = await harness.startAnotherExecutor();
  await answer(firsts);
  const seconds = await waitForHeld('second', EXECUTIONS);

  // It leaves: its partitions come back to the first one, which must read those executions again.
  await second.close();
  await answer(seconds);
  const thirds = await waitForHeld('third', EXECUTIONS);

  // A third one joins and the first one leaves: every partition is the third one's.
  const third = await harness.startAnotherExecutor();
  await harness.stopExecutor();
  await answer(thirds);

  for (const id of ids) {
    const execution = await harness.eventually(TENANT, id, (e) => e.state === 'SUCCESS', 'ended SUCCESS');
    expect(execution.taskRuns.map((run) => [run.taskId, run.state, run.attempts.length])).toEqual([
      ['first', 'SUCCESS', 1],
      ['second', 'SUCCESS', 1],
      ['third', 'SUCCESS', 1],
    ]);
  }
  // Each task run's job was dispatched once: replays of events already stored dispatch nothing again.
  const jobsPerTaskRun = new Map<string, number>();
  for (const { job } of harness.jobs) jobsPerTaskRun.set(job.taskRunId, (jobsPerTaskRun.get(job.taskRunId) ?? 0) + 1);
  expect(jobsPerTaskRun.size).toBe(EXECUTIONS * 3);
  expect([...jobsPerTaskRun.values()].every((count) => count === 1)).toBe(true);
  expect(warnings.filter((line) => line.includes('changed concurrently'))).toEqual([]);
  await third.close();
}, 180_000);
