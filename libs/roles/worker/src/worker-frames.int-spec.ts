// What a job costs on the stream. The worker process (its own process, real
// gRPC) against a controller peer of protocol 1.2: a task that ends at once is
// one Job frame and one JobResult frame, the result carrying the slot's credit
// and when the task began; a task still running after the delay also reports
// JobStarted. Against a 1.1 controller, the worker sends JobStarted and Credit
// frames as before. In both, the credit the controller holds at rest is the
// worker's whole room: none leaked, none granted twice.
import { JobState } from '@lanner/frames';
import { FakeController, jobFor, type RecordedFrame } from './testing/fake-controller';
import { eventually, startWorker, stopAllWorkers } from './testing/worker-process';

const SLOTS = 2;
/** The worker's room: its slots and the one job it buffers. */
const ROOM = SLOTS + 1;

afterAll(() => stopAllWorkers());

const returnJob = (id: string) =>
  jobFor({ id, type: 'io.kestra.plugin.core.debug.Return', kind: 'Return', format: `value of ${id}` });

/** The worker's frames about these jobs, and its Credit frames, after `from`. */
function framesAfter(controller: FakeController, from: number, ids: ReadonlySet<string>): RecordedFrame['frame'][] {
  return controller.frames
    .slice(from)
    .map(({ frame }) => frame)
    .filter(
      (frame) =>
        frame.$case === 'credit' ||
        ((frame.$case === 'jobStarted' || frame.$case === 'jobResult') && ids.has(frame.value.taskRunId)),
    );
}

async function start(protocolMinor: number, env: Record<string, string> = {}) {
  const controller = await FakeController.start(0, { protocolMinor });
  await startWorker({ controllers: controller.address, name: `frames-1-${protocolMinor}`, slots: SLOTS, env });
  await controller.waitForFrame('credit');
  await eventually('the first credit', () => (controller.creditLeft === ROOM ? true : undefined));
  return controller;
}

const resultOf = (controller: FakeController, taskRunId: string) =>
  controller.waitForFrame('jobResult', (result) => result.taskRunId === taskRunId);

describe('a 1.2 controller', () => {
  let controller: FakeController;
  beforeAll(async () => {
    controller = await start(2);
  }, 60_000);
  afterAll(() => controller.stop());

  it('gets a fast job back as one JobResult frame carrying its credit and start, and nothing else', async () => {
    const job = returnJob('fast');
    const from = controller.frames.length;
    controller.offer(job);
    const result = await resultOf(controller, job.taskRunId);
    // Anything late (a JobStarted, a Credit) would arrive within the report delay.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(result).toMatchObject({ state: JobState.SUCCESS, credit: 1 });
    expect(result.startedAt).toBeInstanceOf(Date);
    expect(framesAfter(controller, from, new Set([job.taskRunId])).map((frame) => frame.$case)).toEqual(['jobResult']);
    expect(controller.creditLeft).toBe(ROOM);
  });

  it('still hears JobStarted for a job running past the delay', async () => {
    const job = jobFor({
      id: 'slow',
      type: 'io.kestra.plugin.scripts.shell.Commands',
      kind: 'ShellCommands',
      commands: ['sleep 1'],
    });
    const from = controller.frames.length;
    controller.offer(job);
    const started = await controller.waitForFrame('jobStarted', (frame) => frame.taskRunId === job.taskRunId);
    const result = await resultOf(controller, job.taskRunId);
    expect(result).toMatchObject({ state: JobState.SUCCESS, credit: 1, startedAt: started.startedAt });
    expect(framesAfter(controller, from, new Set([job.taskRunId])).map((frame) => frame.$case)).toEqual([
      'jobStarted',
      'jobResult',
    ]);
  });

  it('keeps its credit exact over many jobs that need more than the room: all run, none leaked', async () => {
    const jobs = Array.from({ length: 30 }, (_, index) => returnJob(`many-${index}`));
    const from = controller.frames.length;
    for (const job of jobs) controller.offer(job);
    for (const job of jobs) expect((await resultOf(controller, job.taskRunId)).state).toBe(JobState.SUCCESS);
    await eventually('the credit back at rest', () => (controller.creditLeft === ROOM ? true : undefined));
    const cases = framesAfter(controller, from, new Set(jobs.map((job) => job.taskRunId))).map((frame) => frame.$case);
    expect(cases.filter((kind) => kind === 'jobResult')).toHaveLength(30);
    expect(cases.filter((kind) => kind === 'credit')).toEqual([]);
  }, 60_000);
});

describe('a 1.1 controller (before results carried credit)', () => {
  let controller: FakeController;
  beforeAll(async () => {
    controller = await start(1);
  }, 60_000);
  afterAll(() => controller.stop());

  it('gets JobStarted, the result without credit, and a Credit frame, as before', async () => {
    const job = returnJob('old');
    const from = controller.frames.length;
    controller.offer(job);
    const result = await resultOf(controller, job.taskRunId);
    await eventually('the credit back at rest', () => (controller.creditLeft === ROOM ? true : undefined));
    expect(result).toMatchObject({ state: JobState.SUCCESS, credit: 0 });
    expect(framesAfter(controller, from, new Set([job.taskRunId])).map((frame) => frame.$case)).toEqual([
      'jobStarted',
      'jobResult',
      'credit',
    ]);
  });
});

describe('a worker with LANNER_WORKER_STARTED_REPORT_DELAY_MS=0', () => {
  let controller: FakeController;
  beforeAll(async () => {
    controller = await start(2, { LANNER_WORKER_STARTED_REPORT_DELAY_MS: '0' });
  }, 60_000);
  afterAll(() => controller.stop());

  it('reports every start, and still grants its credit in the result', async () => {
    const job = returnJob('reported');
    const from = controller.frames.length;
    controller.offer(job);
    const result = await resultOf(controller, job.taskRunId);
    expect(result.credit).toBe(1);
    expect(framesAfter(controller, from, new Set([job.taskRunId])).map((frame) => frame.$case)).toEqual([
      'jobStarted',
      'jobResult',
    ]);
  });
});
