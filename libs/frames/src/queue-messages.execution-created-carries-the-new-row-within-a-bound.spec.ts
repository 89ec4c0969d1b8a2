import {
  decodeQueueMessage,
  encodeExecutorEvent,
  encodeQueueMessage,
  executorEventCodec,
  MAX_CARRIED_EXECUTION_BYTES,
  type ExecutorEvent,
} from './index';
import { exampleCarriedExecution, exampleExecutorEvents } from './testing/queue-message-examples';

type Created = Extract<ExecutorEvent, { type: 'execution.created' }>;

/** The example announcement of a new execution, carrying `execution`. */
function createdCarrying(execution: NonNullable<Created['payload']['execution']>): Created {
  const created = exampleExecutorEvents().find((event): event is Created => event.type === 'execution.created');
  if (created === undefined) throw new Error('no execution.created example');
  return { ...created, payload: { ...created.payload, execution } };
}

const newRow = () => ({
  ...exampleCarriedExecution(),
  id: 'ex-1',
  state: 'CREATED',
  outputs: null,
  startedAt: null,
  endedAt: null,
  taskRuns: [],
});

describe('execution.created carrying the new row', () => {
  it('carries the row with its instants as Dates, and reads as sent', () => {
    const message = createdCarrying(newRow());
    const record = encodeExecutorEvent(message);
    expect(JSON.parse(record.value.toString('utf8')).payload.execution.createdAt).toBe('2026-11-30T01:02:00.456Z');
    const decoded = decodeQueueMessage(executorEventCodec, record.value);
    expect(decoded).toEqual(message);
    expect(decoded.type === 'execution.created' && decoded.payload.execution?.createdAt).toBeInstanceOf(Date);
  });

  it('leaves the row out when the record would be longer than the bound, and keeps the rest', () => {
    const big = { ...newRow(), inputs: { text: 'x'.repeat(MAX_CARRIED_EXECUTION_BYTES) } };
    const oversized = createdCarrying(big);
    expect(encodeQueueMessage(executorEventCodec, oversized).value.length).toBeGreaterThan(MAX_CARRIED_EXECUTION_BYTES);

    const decoded = decodeQueueMessage(executorEventCodec, encodeExecutorEvent(oversized).value);
    const { execution: _dropped, ...rest } = oversized.payload;
    expect(decoded.payload).toEqual(rest);
  });

  it('encodes every other executor event as the plain codec does', () => {
    for (const event of exampleExecutorEvents()) {
      expect(encodeExecutorEvent(event)).toEqual(encodeQueueMessage(executorEventCodec, event));
    }
  });
});
