// Stream recycling, discovery and shutdown of an authenticated worker: the
// worker runs as its own process against real gRPC controller peers in this
// test process.
import { randomBytes } from 'node:crypto';
import { JobState } from '@lanner/frames';
import { FakeController, jobFor } from './testing/fake-controller';
import { eventually, readiness, startWorker, stopAllWorkers, stopWorker } from './testing/worker-process';

const REGISTRATION_TOKEN = `lanner_wrt_${randomBytes(32).toString('base64url')}`;
const auth = { registrationTokens: [REGISTRATION_TOKEN], requireToken: true };

afterAll(() => stopAllWorkers());

const resultOn = (controller: FakeController, taskRunId: string) =>
  controller.waitForFrame('jobResult', (result) => result.taskRunId === taskRunId);

describe('a worker told to Reconnect', () => {
  it('moves to the next controller at once, announces its running job there and delivers its result there', async () => {
    const first = await FakeController.start(0, { auth });
    const second = await FakeController.start(0, { auth });
    try {
      const worker = await startWorker({
        controllers: `${first.address},${second.address}`,
        name: 'recycled',
        env: { LANNER_WORKER_REGISTRATION_TOKEN: REGISTRATION_TOKEN },
      });
      await first.waitForFrame('credit');
      const job = jobFor({
        id: 'long',
        type: 'io.kestra.plugin.scripts.shell.Commands',
        kind: 'ShellCommands',
        commands: ['sleep 3', 'echo finished'],
      });
      first.offer(job);
      await first.waitForFrame('jobStarted', (started) => started.taskRunId === job.taskRunId);

      first.reconnect('stream older than the recycle age');
      const hello = await second.waitForFrame('hello');
      expect(hello.runningJobs).toEqual([{ taskRunId: job.taskRunId, attempt: job.attempt }]);
      expect(first.streamCount).toBe(1);
      // The worker registered once (on the first controller) and opened the new stream with its token.
      expect(first.registrations).toHaveLength(1);
      expect(second.registrations).toHaveLength(0);
      expect(second.connects[0].authorization).toBe(`Bearer ${first.issued[0].accessToken}`);

      const result = await resultOn(second, job.taskRunId);
      expect(result.state).toBe(JobState.SUCCESS);
      expect(first.received('jobResult').map((sent) => sent.taskRunId)).not.toContain(job.taskRunId);
      // The recycled stream was half-closed by the worker, so the first controller saw a clean end.
      expect(worker.output()).toContain('controller asked the worker to reconnect: moving to the next controller');

      // From the last controller of the list, the next one is the first again.
      const streamsBefore = first.streamCount;
      second.reconnect('recycled again');
      await first.waitFor('a stream back on the first controller', () => (first.streamCount > streamsBefore ? true : undefined));
      await first.waitForFrame('credit', () => true, first.frames.length);
      const next = jobFor({ id: 'after', type: 'io.kestra.plugin.core.debug.Return', kind: 'Return', format: 'back' });
      first.offer(next);
      expect(JSON.parse((await resultOn(first, next.taskRunId)).outputsJson)).toEqual({ value: 'back' });
      expect(await stopWorker(worker)).toBe(0);
    } finally {
      first.stop();
      second.stop();
    }
  });
});

describe('a worker with DNS discovery', () => {
  it('resolves the controller host name and connects to its address', async () => {
    const controller = await FakeController.start();
    try {
      const worker = await startWorker({
        controllers: `localhost:${controller.port}`,
        name: 'discovering',
        env: { LANNER_WORKER_DISCOVERY: 'DNS', LANNER_WORKER_DNS_REFRESH_S: '5' },
      });
      await controller.waitForFrame('credit');
      await eventually('readiness', async () => ((await readiness(worker.port)) === 200 ? true : undefined));
      expect(await stopWorker(worker)).toBe(0);
    } finally {
      controller.stop();
    }
  });
});

describe('an authenticated worker on SIGTERM', () => {
  it('sends Draining, lets its running job finish and deliver its result, then exits 0', async () => {
    const controller = await FakeController.start(0, { auth });
    try {
      const worker = await startWorker({
        controllers: controller.address,
        name: 'draining',
        env: { LANNER_WORKER_REGISTRATION_TOKEN: REGISTRATION_TOKEN },
      });
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
      expect((await resultOn(controller, job.taskRunId)).state).toBe(JobState.SUCCESS);
      expect(await worker.exited).toBe(0);
      const kinds = controller.frames.map((recorded) => recorded.frame.$case);
      expect(kinds.indexOf('draining')).toBeLessThan(kinds.lastIndexOf('jobResult'));
      expect(controller.connects).toHaveLength(1);
    } finally {
      controller.stop();
    }
  });
});
