import { decodeQueueMessage, InvalidQueueMessageError, jobResultCodec, logBatchCodec } from './index';
import { exampleJobResult, exampleLogBatch } from './testing/queue-message-examples';

function decodeError(decode: () => unknown): InvalidQueueMessageError {
  try {
    decode();
  } catch (error) {
    if (error instanceof InvalidQueueMessageError) return error;
    throw error;
  }
  throw new Error('expected the message to be refused');
}

describe('a consumer of lanner.results', () => {
  it('refuses a result without a task-run id, naming the path', () => {
    const { taskRunId: _dropped, ...payload } = exampleJobResult().payload;
    const record = JSON.stringify({ ...exampleJobResult(), payload });

    const error = decodeError(() => decodeQueueMessage(jobResultCodec, record));

    expect(error.problems).toContainEqual({ path: 'payload.taskRunId', message: 'Required' });
    expect(error.message).toContain('invalid message on lanner.results: payload.taskRunId: Required');
  });

  it('lists every problem of a message, not only the first', () => {
    const result = exampleJobResult();
    const record = JSON.stringify({
      ...result,
      payload: { ...result.payload, state: 'DONE', attempt: 0, workerQueueId: 'GPU_Queue' },
    });

    const error = decodeError(() => decodeQueueMessage(jobResultCodec, Buffer.from(record)));

    expect(error.problems.map((problem) => problem.path).sort()).toEqual([
      'payload.attempt',
      'payload.state',
      'payload.workerQueueId',
    ]);
  });

  it('does not echo payload values in the error (they may be user data)', () => {
    const result = exampleJobResult();
    const record = JSON.stringify({ ...result, payload: { ...result.payload, state: 'hunter2-secret' } });

    const error = decodeError(() => decodeQueueMessage(jobResultCodec, record));

    expect(error.message).not.toContain('hunter2-secret');
  });

  it('refuses a record that is not JSON', () => {
    const error = decodeError(() => decodeQueueMessage(jobResultCodec, Buffer.from('{"schemaVersion": 1,')));

    expect(error.problems).toEqual([{ path: '(message)', message: 'Not valid JSON' }]);
  });
});

describe('a consumer of lanner.logs', () => {
  it('names the entry of a batch that has a bad level', () => {
    const batch = exampleLogBatch();
    const entries = [batch.payload.entries[0], { ...batch.payload.entries[1], level: 'LOUD' }];
    const record = JSON.stringify({ ...batch, payload: { ...batch.payload, entries } });

    const error = decodeError(() => decodeQueueMessage(logBatchCodec, record));

    expect(error.problems).toHaveLength(1);
    expect(error.problems[0].path).toBe('payload.entries[1].level');
  });

  it('refuses a log line longer than 64 KiB', () => {
    const batch = exampleLogBatch();
    const entries = [{ ...batch.payload.entries[0], message: 'x'.repeat(64 * 1024 + 1) }];
    const record = JSON.stringify({ ...batch, payload: { ...batch.payload, entries } });

    const error = decodeError(() => decodeQueueMessage(logBatchCodec, record));

    expect(error.problems).toEqual([{ path: 'payload.entries[0].message', message: 'Longer than 64 KiB' }]);
  });
});
