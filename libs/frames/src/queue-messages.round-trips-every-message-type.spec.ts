import fc from 'fast-check';
import {
  auditEntryCodec,
  broadcastCodec,
  decodeQueueMessage,
  encodeQueueMessage,
  executionUpdateCodec,
  executorEventCodec,
  jobResultCodec,
  logBatchCodec,
  metricBatchCodec,
  QUEUE_SCHEMA_VERSIONS,
  triggerResultCodec,
  workerJobCodec,
  type QueueEnvelope,
  type QueueMessageCodec,
} from './index';
import {
  exampleAuditEntry,
  exampleBroadcasts,
  exampleExecutionUpdate,
  exampleExecutorEvents,
  exampleJobResult,
  exampleLogBatch,
  exampleMetricBatch,
  exampleWorkerJob,
} from './testing/queue-message-examples';

function roundTrip<M extends QueueEnvelope>(codec: QueueMessageCodec<M>, message: M): M {
  return decodeQueueMessage(codec, encodeQueueMessage(codec, message).value);
}

describe('every queue message type', () => {
  it('comes out of decode exactly as it went into encode', () => {
    for (const event of exampleExecutorEvents()) expect(roundTrip(executorEventCodec, event)).toEqual(event);
    for (const broadcast of exampleBroadcasts()) expect(roundTrip(broadcastCodec, broadcast)).toEqual(broadcast);
    expect(roundTrip(workerJobCodec, exampleWorkerJob())).toEqual(exampleWorkerJob());
    // A polling trigger's poll, and its answer relayed to the schedulers.
    const poll = exampleWorkerJob();
    const pollJob = { ...poll, payload: { ...poll.payload, triggerEvaluation: true } };
    expect(roundTrip(workerJobCodec, pollJob)).toEqual(pollJob);
    expect(roundTrip(triggerResultCodec, exampleJobResult())).toEqual(exampleJobResult());
    expect(roundTrip(jobResultCodec, exampleJobResult())).toEqual(exampleJobResult());
    expect(roundTrip(logBatchCodec, exampleLogBatch())).toEqual(exampleLogBatch());
    expect(roundTrip(metricBatchCodec, exampleMetricBatch())).toEqual(exampleMetricBatch());
    expect(roundTrip(executionUpdateCodec, exampleExecutionUpdate())).toEqual(exampleExecutionUpdate());
    expect(roundTrip(auditEntryCodec, exampleAuditEntry())).toEqual(exampleAuditEntry());
  });

  it('has an example here, so a new type cannot ship untested', () => {
    const covered = new Set(
      [
        ...exampleExecutorEvents(),
        ...exampleBroadcasts(),
        exampleWorkerJob(),
        exampleJobResult(),
        exampleLogBatch(),
        exampleMetricBatch(),
        exampleExecutionUpdate(),
        exampleAuditEntry(),
      ].map((message) => message.type),
    );

    expect([...covered].sort()).toEqual(Object.keys(QUEUE_SCHEMA_VERSIONS).sort());
  });

  it('is keyed as ARCHITECTURE.md says: executions by execution id, jobs by task-run id', () => {
    expect(encodeQueueMessage(executorEventCodec, exampleExecutorEvents()[0]).key).toBe('ex-1');
    expect(encodeQueueMessage(workerJobCodec, exampleWorkerJob()).key).toBe('tr-1');
    expect(encodeQueueMessage(jobResultCodec, exampleJobResult()).key).toBe('ex-1');
    expect(encodeQueueMessage(broadcastCodec, exampleBroadcasts()[1]).key).toBe('etl');
    // Audit entries by tenant; an instance route's have none.
    expect(encodeQueueMessage(auditEntryCodec, exampleAuditEntry()).key).toBe('main');
    const instanceEntry = exampleAuditEntry();
    expect(
      encodeQueueMessage(auditEntryCodec, { ...instanceEntry, payload: { ...instanceEntry.payload, tenantId: null } }).key,
    ).toBe('instance');
  });

  it('carries its type, schema version and correlation id in the record headers', () => {
    expect(encodeQueueMessage(jobResultCodec, exampleJobResult()).headers).toEqual({
      'lanner-type': 'job.result',
      'lanner-schema-version': '1',
      'lanner-correlation-id': 'corr-1',
    });
  });

  it('keeps any log text intact through encode and decode', () => {
    const batch = exampleLogBatch();
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (line) => {
        const message = { ...batch, payload: { ...batch.payload, entries: [{ ...batch.payload.entries[0], message: line }] } };
        expect(roundTrip(logBatchCodec, message).payload.entries[0].message).toBe(line);
      }),
    );
  });
});
