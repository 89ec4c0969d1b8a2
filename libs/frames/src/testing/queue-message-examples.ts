// Valid example messages for specs: each spec changes only what its scenario is about.
import type {
  AuditEntryMessage,
  BroadcastMessage,
  CarriedExecution,
  ExecutionUpdatedMessage,
  ExecutorEvent,
  JobResultMessage,
  LogBatchMessage,
  MetricBatchMessage,
  WorkerJobMessage,
} from '../queue-messages/schemas';

const occurredAt = '2026-11-30T01:02:03.456Z';

export function exampleJobResult(): JobResultMessage {
  return {
    schemaVersion: 1,
    messageId: 'tr-1:1',
    type: 'job.result',
    occurredAt,
    correlationId: 'corr-1',
    payload: {
      tenantId: 'main',
      executionId: 'ex-1',
      taskRunId: 'tr-1',
      attempt: 1,
      workerQueueId: 'default',
      workerId: 'w-1',
      state: 'SUCCESS',
      outputs: { path: 'lanner://main/reports/out.csv', rows: 42 },
      cacheHit: false,
      startedAt: '2026-11-30T01:02:00.000Z',
      endedAt: occurredAt,
    },
  };
}

export function exampleWorkerJob(): WorkerJobMessage {
  return {
    schemaVersion: 1,
    messageId: 'tr-1:1',
    type: 'worker.job',
    occurredAt,
    payload: {
      tenantId: 'main',
      executionId: 'ex-1',
      taskRunId: 'tr-1',
      attempt: 1,
      workerQueueId: 'gpu',
      namespace: 'company.team',
      flowId: 'nightly-report',
      taskId: 'build',
      taskType: 'io.kestra.plugin.scripts.shell.Commands',
      taskDefinition: { id: 'build', commands: ['make report REGION=eu'] },
      timeoutMs: 600_000,
    },
  };
}

export function exampleExecutorEvents(): ExecutorEvent[] {
  const result = exampleJobResult();
  return [
    {
      schemaVersion: 1,
      messageId: 'ex-1:created',
      type: 'execution.created',
      occurredAt,
      payload: {
        tenantId: 'main',
        executionId: 'ex-1',
        namespace: 'company.team',
        flowId: 'nightly-report',
        flowRevision: 3,
        inputs: { region: 'eu' },
        labels: { team: 'data' },
      },
    },
    {
      schemaVersion: 1,
      messageId: 'tr-1:1',
      type: 'task-run.started',
      occurredAt,
      payload: {
        tenantId: 'main',
        executionId: 'ex-1',
        taskRunId: 'tr-1',
        attempt: 1,
        workerQueueId: 'default',
        workerId: 'w-1',
        startedAt: occurredAt,
      },
    },
    { ...result, type: 'task-run.result' },
    {
      schemaVersion: 1,
      messageId: 'tr-1:1',
      type: 'task-run.worker-lost',
      occurredAt,
      payload: {
        tenantId: 'main',
        executionId: 'ex-1',
        taskRunId: 'tr-1',
        attempt: 1,
        workerId: 'w-1',
        reason: 'worker w-1 disconnected',
      },
    },
    {
      schemaVersion: 1,
      messageId: 'ex-1:restart:4',
      type: 'execution.restart',
      occurredAt,
      payload: { tenantId: 'main', executionId: 'ex-1', expectedVersion: 4, requestedBy: 'alice' },
    },
    {
      schemaVersion: 1,
      messageId: 'ex-1:subflow:tr-2',
      type: 'subflow.ended',
      occurredAt,
      payload: {
        tenantId: 'main',
        executionId: 'ex-1',
        taskRunId: 'tr-2',
        childExecutionId: 'ex-2',
        state: 'SUCCESS',
        outputs: { rows: 3 },
      },
    },
    {
      schemaVersion: 1,
      messageId: 'ex-1:kill',
      type: 'execution.kill',
      occurredAt,
      payload: { tenantId: 'main', executionId: 'ex-1', requestedBy: 'alice' },
    },
    {
      schemaVersion: 1,
      messageId: 'ex-1:resume',
      type: 'execution.resume',
      occurredAt,
      payload: { tenantId: 'main', executionId: 'ex-1', inputs: { approved: true } },
    },
    {
      schemaVersion: 1,
      messageId: 'timer-7',
      type: 'timer.fired',
      occurredAt,
      payload: {
        tenantId: 'main',
        executionId: 'ex-1',
        timerId: 'timer-7',
        reason: 'RETRY',
        taskRunId: 'tr-1',
        dueAt: occurredAt,
      },
    },
  ];
}

/** An ended execution as the repository reads it: a task failed once, then succeeded on its retry. */
export function exampleCarriedExecution(): CarriedExecution {
  const at = (second: number) => new Date(Date.UTC(2026, 10, 30, 1, 2, second, 456));
  return {
    id: 'ex-1',
    tenantId: 'main',
    namespace: 'company.team',
    flowId: 'nightly-report',
    flowRevision: 3,
    state: 'SUCCESS',
    stateHistories: [
      { state: 'CREATED', date: at(0) },
      { state: 'RUNNING', date: at(1) },
      { state: 'SUCCESS', date: at(9) },
    ],
    inputs: { day: '2026-11-29' },
    outputs: { rows: 42 },
    labels: { team: 'data' },
    trigger: null,
    version: 5,
    parentExecutionId: null,
    parentTaskRunId: null,
    createdAt: at(0),
    updatedAt: at(9),
    startedAt: at(1),
    endedAt: at(9),
    error: null,
    taskRuns: [
      {
        id: 'tr-1',
        executionId: 'ex-1',
        taskId: 'extract',
        parentTaskRunId: null,
        value: null,
        state: 'SUCCESS',
        stateHistories: [
          { state: 'CREATED', date: at(1) },
          { state: 'RUNNING', date: at(2) },
          { state: 'SUCCESS', date: at(8) },
        ],
        outputs: { rows: 42, file: { uri: 'lanner://main/reports/out.csv' } },
        workerQueueId: 'default',
        workerSelector: { tags: ['linux'], match: 'ALL' },
        dispatchReason: null,
        error: null,
        attempts: [
          {
            attempt: 1,
            workerId: 'w-1',
            workerQueueId: 'default',
            state: 'FAILED',
            outputs: null,
            error: { message: 'exit code 1' },
            startedAt: at(2),
            endedAt: at(3),
          },
          {
            attempt: 2,
            workerId: 'w-2',
            workerQueueId: 'default',
            state: 'SUCCESS',
            outputs: { rows: 42 },
            error: null,
            startedAt: at(6),
            endedAt: at(8),
          },
        ],
      },
    ],
  };
}

export function exampleExecutionUpdate(): ExecutionUpdatedMessage {
  return {
    schemaVersion: 1,
    messageId: 'ex-1:v5',
    type: 'execution.updated',
    occurredAt,
    payload: {
      tenantId: 'main',
      executionId: 'ex-1',
      namespace: 'company.team',
      flowId: 'nightly-report',
      state: 'SUCCESS',
      version: 5,
      ended: true,
      execution: exampleCarriedExecution(),
    },
  };
}

export function exampleLogBatch(): LogBatchMessage {
  return {
    schemaVersion: 1,
    messageId: 'logs-1',
    type: 'log.batch',
    occurredAt,
    payload: {
      tenantId: 'main',
      executionId: 'ex-1',
      entries: [
        { taskRunId: 'tr-1', attempt: 1, level: 'INFO', timestamp: occurredAt, message: 'building report' },
        { taskRunId: 'tr-1', attempt: 1, level: 'WARN', timestamp: occurredAt, message: 'slow disk' },
      ],
    },
  };
}

export function exampleMetricBatch(): MetricBatchMessage {
  return {
    schemaVersion: 1,
    messageId: 'metrics-1',
    type: 'metric.batch',
    occurredAt,
    payload: {
      tenantId: 'main',
      executionId: 'ex-1',
      metrics: [
        {
          taskRunId: 'tr-1',
          attempt: 1,
          name: 'rows',
          type: 'COUNTER',
          value: 42,
          tags: { table: 'sales' },
          timestamp: occurredAt,
        },
      ],
    },
  };
}

export function exampleAuditEntry(): AuditEntryMessage {
  return {
    schemaVersion: 1,
    messageId: '5f0c6a52-8f0e-4d59-9a57-3d1f3c0b2e11',
    type: 'audit.entry',
    occurredAt,
    correlationId: 'corr-1',
    payload: {
      tenantId: 'main',
      action: 'flow.update',
      resourceType: 'flow',
      resourceId: 'company.team/nightly-report',
      namespace: 'company.team',
      actor: { type: 'api-token', id: '0b7e4c8e-2f4a-4f61-8d0a-5c3b9e1f7a20', name: 'ci-nightly' },
      clientIp: '10.1.2.3',
      userAgent: 'curl/8.5.0',
      outcome: 'success',
      status: 200,
    },
  };
}

export function exampleBroadcasts(): BroadcastMessage[] {
  return [
    {
      schemaVersion: 1,
      messageId: 'kill-tr-1:1',
      type: 'broadcast.kill',
      occurredAt,
      payload: { tenantId: 'main', executionId: 'ex-1', taskRunId: 'tr-1', attempt: 1, reason: 'execution killed by alice' },
    },
    {
      schemaVersion: 1,
      messageId: 'subs-etl-5',
      type: 'broadcast.subscriptions-changed',
      occurredAt,
      payload: {
        workerGroupId: 'etl',
        subscriptions: [
          { workerQueueId: 'gpu', reservedPercent: 50, mode: 'STRICT' },
          { workerQueueId: 'default', mode: 'ELASTIC' },
        ],
      },
    },
    {
      schemaVersion: 1,
      messageId: 'revoke-tok-9',
      type: 'broadcast.token-revoked',
      occurredAt,
      payload: { workerGroupId: 'etl', registrationTokenId: 'tok-9' },
    },
    { schemaVersion: 1, messageId: 'maint-1', type: 'broadcast.maintenance', occurredAt, payload: { enabled: true } },
    {
      schemaVersion: 1,
      messageId: 'flows-main-3',
      type: 'broadcast.flows-changed',
      occurredAt,
      payload: { tenantId: 'main', namespace: 'company.team', flowId: 'hello', revision: 3 },
    },
  ];
}
