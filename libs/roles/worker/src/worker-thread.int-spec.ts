// Standalone's local worker runs on a thread of its own (WorkerRoleModule with
// `onOwnThread`), against a real gRPC controller peer in this test process.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Global, INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import pino from 'pino';
import { JobState } from '@lanner/frames';
import { PROCESS_LOGGER, ReadinessChecks } from '@lanner/runtime';
import { eventually } from '@lanner/testing';
import { FakeController, jobFor } from './testing/fake-controller';
import { WorkerRoleModule } from './worker-role.module';

@Global()
@Module({
  providers: [ReadinessChecks, { provide: PROCESS_LOGGER, useValue: pino({ level: 'warn' }) }],
  exports: [ReadinessChecks, PROCESS_LOGGER],
})
class SpecRuntimeModule {}

/** What `/health/ready` would say of the worker: undefined when ready, else the reason. */
async function controllersCheck(app: INestApplicationContext): Promise<string | undefined> {
  const check = new Map(app.get(ReadinessChecks).entries()).get('controllers');
  if (check === undefined) throw new Error('the worker registered no readiness check');
  return check().then(
    () => undefined,
    (error: Error) => error.message,
  );
}

/** Files below `root` whose content includes `text`. */
function filesContaining(root: string, text: string): string[] {
  if (!existsSync(root)) return [];
  return (readdirSync(root, { recursive: true }) as string[])
    .map((entry) => join(root, entry))
    .filter((path) => statSync(path).isFile() && readFileSync(path, 'utf8').includes(text));
}

/**
 * Holds this thread's event loop (timers, sockets, the controller peer included)
 * while it waits for `found`, up to `limitMs`: only work done on another thread
 * can make it true.
 */
function blockUntil(found: () => boolean, limitMs: number): boolean {
  const until = Date.now() + limitMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (Date.now() < until) {
    if (found()) return true;
    Atomics.wait(pause, 0, 0, 20);
  }
  return found();
}

describe('the worker role on its own thread', () => {
  let controller: FakeController;
  let app: INestApplicationContext;
  let dataDir: string;
  let storageRoot: string;

  beforeAll(async () => {
    controller = await FakeController.start();
    dataDir = mkdtempSync(join(tmpdir(), 'lanner-worker-thread-'));
    storageRoot = join(dataDir, 'storage');
    const [host, port] = controller.address.split(':');
    class SpecModule {}
    app = await NestFactory.createApplicationContext(
      {
        module: SpecModule,
        imports: [
          SpecRuntimeModule,
          WorkerRoleModule.forRoot(
            {
              controllers: [{ host, port: Number(port) }],
              slots: 2,
              startedReportDelayMs: 0,
              name: 'thread-worker',
              dataDir: join(dataDir, 'worker'),
              storage: { kind: 'local', root: storageRoot },
              drainGraceMs: 20_000,
            },
            { onOwnThread: true },
          ),
        ],
      },
      { logger: false },
    );
    await app.init();
  }, 60_000);

  afterAll(async () => {
    controller.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('says Hello, is ready once the controller welcomed its stream, and not while no controller answers', async () => {
    const hello = await controller.waitForFrame('hello');
    expect(hello).toMatchObject({ workerName: 'thread-worker', slots: 2 });
    await eventually('the worker to be ready', async () => ((await controllersCheck(app)) === undefined ? true : undefined));

    controller.stop();
    const down = await eventually('the worker to report its lost stream', () => controllersCheck(app));
    expect(down).toMatch(/^no stream to a controller: /);
    const streams = controller.streamCount;
    await controller.listen();
    await eventually('the worker to reconnect', async () =>
      controller.streamCount > streams && (await controllersCheck(app)) === undefined ? true : undefined,
    );
  });

  it('runs a Log and a Return job: SUCCESS results with outputs reach the controller', async () => {
    const log = jobFor({
      id: 'hello',
      type: 'io.kestra.plugin.core.log.Log',
      kind: 'Log',
      message: 'from the thread',
      level: 'INFO',
    });
    const ret = jobFor({ id: 'answer', type: 'io.kestra.plugin.core.debug.Return', kind: 'Return', format: 'forty-two' });
    controller.offer(log);
    controller.offer(ret);
    const logResult = await controller.waitForFrame('jobResult', (result) => result.taskRunId === log.taskRunId);
    expect(logResult.state).toBe(JobState.SUCCESS);
    const lines = controller.received('logBatch').flatMap((batch) => batch.entries);
    expect(lines.filter((line) => line.taskRunId === log.taskRunId).map((line) => line.message)).toContain('from the thread');
    const retResult = await controller.waitForFrame('jobResult', (result) => result.taskRunId === ret.taskRunId);
    expect(JSON.parse(retResult.outputsJson)).toEqual({ value: 'forty-two' });
  });

  it("finishes a job while the process's own event loop is held: the worker does not share it", async () => {
    const job = jobFor({
      id: 'files',
      type: 'io.kestra.plugin.scripts.shell.Commands',
      kind: 'ShellCommands',
      commands: ['sleep 1', 'echo written-beside-a-busy-loop > out.txt'],
      outputFiles: ['out.txt'],
    });
    controller.offer(job);
    await controller.waitForFrame('jobStarted', (started) => started.taskRunId === job.taskRunId);
    // The worker uploads the output file to internal storage once the command exits: that is its own JavaScript.
    const stored = blockUntil(() => filesContaining(storageRoot, 'written-beside-a-busy-loop').length > 0, 20_000);
    expect(stored).toBe(true);
    const result = await controller.waitForFrame('jobResult', (value) => value.taskRunId === job.taskRunId);
    expect(result.state).toBe(JobState.SUCCESS);
    expect(result.outputsJson).toContain('kestra:///');
  });

  it('closing drains it: Draining first, the running job finishes and reports, then the thread ends', async () => {
    const job = jobFor({
      id: 'last',
      type: 'io.kestra.plugin.scripts.shell.Commands',
      kind: 'ShellCommands',
      commands: ['sleep 1', 'echo finished'],
    });
    controller.offer(job);
    await controller.waitForFrame('jobStarted', (started) => started.taskRunId === job.taskRunId);
    const from = controller.frames.length;

    await app.close();

    const after = controller.frames.slice(from).map((recorded) => recorded.frame);
    const draining = after.findIndex((frame) => frame.$case === 'draining');
    const result = after.findIndex((frame) => frame.$case === 'jobResult' && frame.value.taskRunId === job.taskRunId);
    expect(draining).toBeGreaterThanOrEqual(0);
    expect(result).toBeGreaterThan(draining);
    const frame = after[result];
    expect(frame.$case === 'jobResult' && frame.value.state).toBe(JobState.SUCCESS);
    expect(await controllersCheck(app)).toBe('no stream to a controller: the worker thread is not running');
  });
});
