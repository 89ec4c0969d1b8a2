import {
  broadcastCodec,
  decodeQueueMessage,
  InvalidQueueMessageError,
  jobResultCodec,
  NewerSchemaVersionError,
  QUEUE_SCHEMA_VERSIONS,
} from './index';
import { exampleJobResult } from './testing/queue-message-examples';

describe('a consumer meeting a message from a newer Lanner during a rolling upgrade', () => {
  it('reports the newer version instead of shape errors, even when the shape changed', () => {
    const { payload: _old, ...envelope } = exampleJobResult();
    const fromTheFuture = JSON.stringify({ ...envelope, schemaVersion: 2, payload: { outcome: { taskRun: 'tr-1' } } });

    const decode = () => decodeQueueMessage(jobResultCodec, fromTheFuture);

    expect(decode).toThrow(NewerSchemaVersionError);
    expect(decode).toThrow(
      "message 'job.result' on lanner.results has schema version 2, but this process reads up to version 1; " +
        'it was written by a newer Lanner: upgrade this process',
    );
  });

  it('recognises a message type added by a newer release', () => {
    const newType = JSON.stringify({
      schemaVersion: QUEUE_SCHEMA_VERSIONS['broadcast.maintenance'] + 1,
      messageId: 'm-1',
      type: 'broadcast.queue-paused',
      occurredAt: '2026-11-30T01:02:03.456Z',
      payload: { workerQueueId: 'gpu' },
    });

    expect(() => decodeQueueMessage(broadcastCodec, newType)).toThrow(NewerSchemaVersionError);
  });

  it('calls an unknown type at a known version what it is: invalid', () => {
    const unknown = JSON.stringify({ ...exampleJobResult(), type: 'job.finished' });

    expect(() => decodeQueueMessage(jobResultCodec, unknown)).toThrow(InvalidQueueMessageError);
  });

  it('refuses a version it never wrote (below 1)', () => {
    const ancient = JSON.stringify({ ...exampleJobResult(), schemaVersion: 0 });

    expect(() => decodeQueueMessage(jobResultCodec, ancient)).toThrow(/schemaVersion: Invalid input: expected 1/);
  });
});
