import {
  decodeQueueMessage,
  encodeExecutionUpdate,
  encodeQueueMessage,
  executionUpdateCodec,
  MAX_CARRIED_EXECUTION_BYTES,
} from './index';
import { exampleCarriedExecution, exampleExecutionUpdate } from './testing/queue-message-examples';

describe('execution.updated carrying the ended execution', () => {
  it('puts instants on the wire as ISO strings and gives them back as Dates', () => {
    const record = encodeExecutionUpdate(exampleExecutionUpdate());
    const wire = JSON.parse(record.value.toString('utf8'));
    expect(wire.payload.execution.createdAt).toBe('2026-11-30T01:02:00.456Z');
    expect(wire.payload.execution.taskRuns[0].attempts[0].endedAt).toBe('2026-11-30T01:02:03.456Z');

    const decoded = decodeQueueMessage(executionUpdateCodec, record.value);
    expect(decoded.payload.execution).toEqual(exampleCarriedExecution());
    expect(decoded.payload.execution?.taskRuns[0]?.stateHistories[2]?.date).toBeInstanceOf(Date);
  });

  it('leaves the execution out when the record would be longer than the bound, and keeps the rest', () => {
    const message = exampleExecutionUpdate();
    const big = exampleCarriedExecution();
    const manyRuns = Array.from({ length: 200 }, (_, index) => ({ ...big.taskRuns[0], id: `tr-${index}` }));
    const oversized = { ...message, payload: { ...message.payload, execution: { ...big, taskRuns: manyRuns } } };
    expect(encodeQueueMessage(executionUpdateCodec, oversized).value.length).toBeGreaterThan(MAX_CARRIED_EXECUTION_BYTES);

    const record = encodeExecutionUpdate(oversized);
    expect(record.value.length).toBeLessThanOrEqual(MAX_CARRIED_EXECUTION_BYTES);
    const { execution: _dropped, ...rest } = oversized.payload;
    expect(decodeQueueMessage(executionUpdateCodec, record.value).payload).toEqual(rest);
  });

  it('reads an update without it (from an executor before it) as before', () => {
    const { execution: _carried, ...hint } = exampleExecutionUpdate().payload;
    const withoutIt = { ...exampleExecutionUpdate(), payload: hint };
    expect(decodeQueueMessage(executionUpdateCodec, encodeQueueMessage(executionUpdateCodec, withoutIt).value)).toEqual(
      withoutIt,
    );
  });

  it('refuses to publish a carried execution that is not one', () => {
    const message = exampleExecutionUpdate();
    const broken = { ...exampleCarriedExecution(), createdAt: 'yesterday' as unknown as Date };
    expect(() => encodeExecutionUpdate({ ...message, payload: { ...message.payload, execution: broken } })).toThrow(
      /payload\.execution\.createdAt/,
    );
  });
});
