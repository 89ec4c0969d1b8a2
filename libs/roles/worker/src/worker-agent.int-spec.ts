// The worker role runs as users run it (`node bin/lanner.js server worker`, its
// own process) against a real gRPC controller peer in this test process.
import { readdirSync, readFileSync } from 'node:fs';
import { durationFromMillis, JobState } from '@lanner/frames';
import { FakeController, jobFor } from './testing/fake-controller';
import { eventually, readiness, startWorker as startWorkerProcess, stopAllWorkers } from './testing/worker-process';

const SLOTS = 2;

const startWorker = (controller: FakeController, name: string) =>
  startWorkerProcess({ controllers: controller.address, name, slots: SLOTS });

/** Processes whose command line is exactly `argv` (from /proc). */
function processesRunning(argv: string[]): number[] {
  const wanted = argv.join('\0');
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0$/, '') === wanted;
      } catch {
        return false;
      }
    })
    .map(Number);
}

const resultOf = (controller: FakeController, taskRunId: string) =>
  controller.waitForFrame('jobResult', (result) => result.taskRunId === taskRunId);

afterAll(() => stopAllWorkers());

describe('the worker process against a gRPC controller', () => {
  let controller: FakeController;
  let worker: Awaited<ReturnType<typeof startWorker>>;

  beforeAll(async () => {
    controller = await FakeController.start();
    worker = await startWorker(controller, 'spec-worker');
    await controller.waitForFrame('credit');
  }, 60_000);

  afterAll(() => controller.stop());

  it('says Hello with its slots, grants credit and is ready once welcomed', async () => {
    const [hello] = controller.received('hello');
    expect(hello).toMatchObject({ workerName: 'spec-worker', slots: SLOTS, protocolVersion: { major: 1 } });
    const granted = controller.received('credit').reduce((sum, credit) => sum + credit.slots, 0);
    expect(granted).toBeGreaterThanOrEqual(SLOTS);
    await eventually('readiness', async () => ((await readiness(worker.port)) === 200 ? true : undefined));
  });

  it('runs a Log and a Return job: its log lines, then a SUCCESS result with outputs', async () => {
    const log = jobFor({
      id: 'hello',
      type: 'io.kestra.plugin.core.log.Log',
      kind: 'Log',
      message: 'Hello from the worker',
      level: 'INFO',
    });
    const ret = jobFor({ id: 'answer', type: 'io.kestra.plugin.core.debug.Return', kind: 'Return', format: 'forty-two' });
    controller.offer(log);
    controller.offer(ret);

    const logResult = await resultOf(controller, log.taskRunId);
    expect(logResult.state).toBe(JobState.SUCCESS);
    const lines = controller
      .received('logBatch')
      .flatMap((batch) => batch.entries)
      .filter((entry) => entry.taskRunId === log.taskRunId);
    expect(lines.map((line) => line.message)).toContain('Hello from the worker');

    const retResult = await resultOf(controller, ret.taskRunId);
    expect(retResult.state).toBe(JobState.SUCCESS);
    expect(JSON.parse(retResult.outputsJson)).toEqual({ value: 'forty-two' });
  });

  it('stops a running shell job on Kill: KILLED, and its sleep process is gone', async () => {
    const job = jobFor({
      id: 'long',
      type: 'io.kestra.plugin.scripts.shell.Commands',
      kind: 'ShellCommands',
      commands: ['echo sleeping', 'sleep 3017'],
    });
    controller.offer(job);
    await controller.waitFor('the job log', () =>
      controller
        .received('logBatch')
        .some((batch) => batch.entries.some((entry) => entry.taskRunId === job.taskRunId && entry.message === 'sleeping'))
        ? true
        : undefined,
    );
    await eventually('the sleep process', () => (processesRunning(['sleep', '3017']).length > 0 ? true : undefined));

    controller.kill(job.taskRunId, job.attempt, 'execution killed by the spec');
    const result = await resultOf(controller, job.taskRunId);
    expect(result.state).toBe(JobState.KILLED);
    expect(result.errorMessage).toContain('execution killed by the spec');
    expect(processesRunning(['sleep', '3017'])).toEqual([]);
  });

  it('reports a failing shell job as FAILED with the tail of its stderr', async () => {
    const job = jobFor({
      id: 'broken',
      type: 'io.kestra.plugin.scripts.shell.Commands',
      kind: 'ShellCommands',
      commands: ['echo "disk is full" >&2', 'exit 3'],
    });
    controller.offer(job);
    const result = await resultOf(controller, job.taskRunId);
    expect(result.state).toBe(JobState.FAILED);
    expect(result.errorMessage).toContain('disk is full');
  });

  it('fails a job that outlives its timeout', async () => {
    const job = jobFor(
      { id: 'slow', type: 'io.kestra.plugin.scripts.shell.Commands', kind: 'ShellCommands', commands: ['sleep 10'] },
      { timeout: durationFromMillis(1000) },
    );
    controller.offer(job);
    const result = await resultOf(controller, job.taskRunId);
    expect(result.state).toBe(JobState.FAILED);
    expect(result.errorMessage).toMatch(/timed out/);
  });

  it('never starts a job whose deadline has passed, and flags its result so the executor words it as its timeout', async () => {
    const late = jobFor(
      { id: 'late', type: 'io.kestra.plugin.core.debug.Return', kind: 'Return', format: 'never' },
      { deadline: new Date(Date.now() - 1000) },
    );
    const onTime = jobFor(
      { id: 'on-time', type: 'io.kestra.plugin.core.debug.Return', kind: 'Return', format: 'yes' },
      { deadline: new Date(Date.now() + 60_000) },
    );
    controller.offer(late);
    controller.offer(onTime);

    const refused = await resultOf(controller, late.taskRunId);
    expect(refused).toMatchObject({ state: JobState.FAILED, deadlinePassed: true, outputsJson: '{}' });
    expect(refused.errorMessage).toBe('the job reached its deadline before a worker could start it');
    const ran = await resultOf(controller, onTime.taskRunId);
    expect(ran).toMatchObject({ state: JobState.SUCCESS, deadlinePassed: false });
    expect(controller.received('jobStarted').map((started) => started.taskRunId)).not.toContain(late.taskRunId);
  });

  it('never runs more jobs than its slots, and refuses a job it granted no credit for', async () => {
    const jobs = Array.from({ length: SLOTS + 2 }, (_, index) =>
      jobFor({
        id: `batch-${index}`,
        type: 'io.kestra.plugin.scripts.shell.Commands',
        kind: 'ShellCommands',
        commands: ['sleep 1'],
      }),
    );
    const ids = new Set(jobs.map((job) => job.taskRunId));
    const from = controller.frames.length;
    for (const job of jobs) controller.offer(job);
    // Every credit the worker granted is used once one offered job is left waiting.
    await eventually('the credit to be used up', () =>
      controller.creditLeft === 0 && controller.waitingJobCount === 1 ? true : undefined,
    );
    // One more job, sent regardless of credit, must not run.
    const intruder = jobFor({ id: 'intruder', type: 'io.kestra.plugin.core.debug.Return', kind: 'Return', format: 'x' });
    controller.forceSend(intruder);

    const refused = await resultOf(controller, intruder.taskRunId);
    expect(refused.state).toBe(JobState.FAILED);
    expect(refused.errorMessage).toContain('granted no credit');
    for (const job of jobs) expect((await resultOf(controller, job.taskRunId)).state).toBe(JobState.SUCCESS);

    let running = 0;
    let mostRunning = 0;
    for (const { frame } of controller.frames.slice(from)) {
      if (frame.$case === 'jobStarted' && ids.has(frame.value.taskRunId)) running += 1;
      if (frame.$case === 'jobResult' && ids.has(frame.value.taskRunId)) running -= 1;
      mostRunning = Math.max(mostRunning, running);
    }
    expect(mostRunning).toBe(SLOTS);
  });

  it('reconnects to a controller that restarted, keeps its running job, and delivers its result on the new stream', async () => {
    const running = jobFor({
      id: 'across',
      type: 'io.kestra.plugin.scripts.shell.Commands',
      kind: 'ShellCommands',
      commands: ['sleep 2', 'echo finished'],
    });
    controller.offer(running);
    await controller.waitForFrame('jobStarted', (started) => started.taskRunId === running.taskRunId);

    const streamsBefore = controller.streamCount;
    const framesBefore = controller.frames.length;
    controller.stop();
    await controller.listen();
    const hello = await controller.waitForFrame('hello', () => true, framesBefore);
    expect(controller.streamCount).toBe(streamsBefore + 1);
    expect(hello.runningJobs).toEqual([{ taskRunId: running.taskRunId, attempt: 1 }]);

    const result = await resultOf(controller, running.taskRunId);
    expect(result.state).toBe(JobState.SUCCESS);
    expect(controller.received('jobResult', controller.streamCount).map((sent) => sent.taskRunId)).toContain(running.taskRunId);

    const job = jobFor({ id: 'after', type: 'io.kestra.plugin.core.debug.Return', kind: 'Return', format: 'back' });
    controller.offer(job);
    expect(JSON.parse((await resultOf(controller, job.taskRunId)).outputsJson)).toEqual({ value: 'back' });
  });
});

describe('the worker process on SIGTERM', () => {
  it('sends Draining, lets the running job finish and deliver its result, then exits 0', async () => {
    const controller = await FakeController.start();
    try {
      const worker = await startWorker(controller, 'draining-worker');
      await controller.waitForFrame('credit');
      const job = jobFor({
        id: 'finishing',
        type: 'io.kestra.plugin.scripts.shell.Commands',
        kind: 'ShellCommands',
        commands: ['sleep 2', 'echo done'],
      });
      controller.offer(job);
      await controller.waitForFrame('jobStarted', (started) => started.taskRunId === job.taskRunId);

      worker.child.kill('SIGTERM');
      await controller.waitForFrame('draining');
      const result = await resultOf(controller, job.taskRunId);
      expect(result.state).toBe(JobState.SUCCESS);
      expect(await worker.exited).toBe(0);
      const kinds = controller.frames.map((recorded) => recorded.frame.$case);
      expect(kinds.indexOf('draining')).toBeLessThan(kinds.lastIndexOf('jobResult'));
    } finally {
      controller.stop();
    }
  }, 60_000);
});
