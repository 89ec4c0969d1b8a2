import { encodeQueueMessage, InvalidQueueMessageError, broadcastCodec, workerJobCodec } from './index';
import { exampleBroadcasts, exampleWorkerJob } from './testing/queue-message-examples';

describe('a producer', () => {
  it('cannot publish a job whose message id is not "task-run id:attempt" (deduplication would break)', () => {
    const job = { ...exampleWorkerJob(), messageId: 'some-uuid' };

    expect(() => encodeQueueMessage(workerJobCodec, job)).toThrow(InvalidQueueMessageError);
    expect(() => encodeQueueMessage(workerJobCodec, job)).toThrow("messageId: Must be 'tr-1:1' (task-run id:attempt)");
  });

  it('cannot broadcast subscriptions that reserve more than 100% of the slots', () => {
    const changed = exampleBroadcasts()[1];
    if (changed.type !== 'broadcast.subscriptions-changed') throw new Error('example order changed');
    const overbooked = {
      ...changed,
      payload: {
        workerGroupId: 'etl',
        subscriptions: [
          { workerQueueId: 'gpu', reservedPercent: 60, mode: 'STRICT' as const },
          { workerQueueId: 'default', reservedPercent: 50, mode: 'ELASTIC' as const },
        ],
      },
    };

    expect(() => encodeQueueMessage(broadcastCodec, overbooked)).toThrow(
      'invalid message on lanner.broadcast: payload.subscriptions: Reserved percentages add up to more than 100',
    );
  });

  it('cannot publish a job for a worker queue id that is not an RFC 1123 label', () => {
    const job = exampleWorkerJob();

    expect(() => encodeQueueMessage(workerJobCodec, { ...job, payload: { ...job.payload, workerQueueId: 'GPU queue' } })).toThrow(
      'payload.workerQueueId: Not an RFC 1123 worker queue id',
    );
  });
});
