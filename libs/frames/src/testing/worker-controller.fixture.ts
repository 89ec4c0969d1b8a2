/**
 * Test support, not production code: a minimal controller that serves
 * WorkerControllerService.Connect from the generated definitions, run as its
 * own process by worker-stream.int-spec.ts so the stream crosses a real
 * process boundary.
 *
 * It listens on 127.0.0.1 with an OS-assigned port and prints
 * `LISTENING <port>`; each recorded job result is printed as
 * `RESULT <json>` so the test can see what the server decoded. It exits on
 * SIGTERM or when its stdin closes (the parent died), so it never outlives
 * the test.
 *
 * Conversation: Hello (version checked) -> Welcome; the first Credit -> one
 * Job; JobResult -> printed, then a final Reconnect naming the recorded result,
 * and the stream ends.
 */
import * as grpc from '@grpc/grpc-js';
import {
  checkPeerProtocolVersion,
  durationFromMillis,
  ErrorCode,
  frameSizeChannelOptions,
  MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
  SubscriptionMode,
  WorkerControllerServiceService,
  type ControllerFrame,
  type JobResult,
  type WorkerControllerServiceServer,
  type WorkerFrame,
} from '../index';

type WorkerStream = grpc.ServerDuplexStream<WorkerFrame, ControllerFrame>;

const FIXTURE_JOB = {
  taskRunId: 'tr-1',
  attempt: 1,
  executionId: 'ex-1',
  queueId: 'default',
  taskType: 'io.kestra.plugin.core.log.Log',
  taskDefinitionJson: JSON.stringify({ id: 'hello', type: 'io.kestra.plugin.core.log.Log', message: 'Hello, Lanner' }),
  timeout: durationFromMillis(10 * 60 * 1000),
  deadline: new Date('2030-01-01T00:00:00.000Z'),
  correlationId: 'corr-fixture',
  tenantId: 'main',
  namespace: 'company.team',
  flowId: 'hello-world',
  taskId: 'hello',
};

function refuse(call: WorkerStream, code: ErrorCode, status: grpc.status, message: string): void {
  call.write({ frame: { $case: 'error', value: { code, message, fatal: true } } });
  // grpc-js turns an 'error' event on a server stream into the call's final status.
  call.emit('error', { code: status, details: message });
}

function serveConnect(call: WorkerStream): void {
  let greeted = false;
  let jobSent = false;

  call.on('data', (frame: WorkerFrame) => {
    const received = frame.frame;
    if (received === undefined) return;

    if (!greeted) {
      if (received.$case !== 'hello') {
        refuse(
          call,
          ErrorCode.INVALID_FRAME,
          grpc.status.FAILED_PRECONDITION,
          `the first frame must be hello, got ${received.$case}`,
        );
        return;
      }
      const check = checkPeerProtocolVersion(received.value.protocolVersion);
      if (!check.compatible) {
        refuse(call, ErrorCode.UNSUPPORTED_PROTOCOL_VERSION, grpc.status.FAILED_PRECONDITION, check.reason);
        return;
      }
      greeted = true;
      call.write({
        frame: {
          $case: 'welcome',
          value: {
            workerId: `w-${received.value.workerName}`,
            workerGroupId: 'default',
            subscriptions: [{ queueId: 'default', reservedPercent: 50, mode: SubscriptionMode.STRICT }],
            heartbeatInterval: durationFromMillis(3000),
            protocolVersion: { ...PROTOCOL_VERSION },
            maxFrameBytes: MAX_FRAME_BYTES,
            controllerId: 'fixture-controller',
          },
        },
      });
      return;
    }

    switch (received.$case) {
      case 'credit':
        if (received.value.slots > 0 && !jobSent) {
          jobSent = true;
          call.write({ frame: { $case: 'job', value: FIXTURE_JOB } });
        }
        return;
      case 'jobResult':
        recordResult(received.value);
        call.write({
          frame: {
            $case: 'reconnect',
            value: {
              reason: `job ${received.value.taskRunId}:${received.value.attempt} recorded with outputs ${received.value.outputsJson}`,
              delay: durationFromMillis(0),
            },
          },
        });
        call.end();
        return;
      default:
        // Heartbeats, logs, metrics, JobStarted: nothing this fixture checks.
        return;
    }
  });
  call.on('error', () => undefined); // a client that goes away is not a fixture failure
}

function recordResult(result: JobResult): void {
  process.stdout.write(
    `RESULT ${JSON.stringify({
      taskRunId: result.taskRunId,
      attempt: result.attempt,
      state: result.state,
      outputs: JSON.parse(result.outputsJson) as unknown,
      errorMessage: result.errorMessage,
      cacheHit: result.cacheHit,
      startedAt: result.startedAt?.toISOString(),
      endedAt: result.endedAt?.toISOString(),
    })}\n`,
  );
}

function main(): void {
  const server = new grpc.Server(frameSizeChannelOptions());
  const implementation: WorkerControllerServiceServer = { connect: serveConnect };
  server.addService(WorkerControllerServiceService, implementation);
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error) {
      process.stderr.write(`fixture could not listen: ${error.message}\n`);
      process.exit(1);
    }
    process.stdout.write(`LISTENING ${port}\n`);
  });

  // Open streams would hold a graceful shutdown forever; a fixture need not drain.
  const stop = () => {
    server.forceShutdown();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
}

main();
