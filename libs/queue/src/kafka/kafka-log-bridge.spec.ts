import { logLevel } from 'kafkajs';
import type { QueueLogger } from '../queue.logger';
import { kafkaLogCreator } from './kafka-log-bridge';

describe('kafkajs log lines', () => {
  it('reach the given logger at their level, with kafkajs fields as structured fields', () => {
    const lines: Array<[string, Record<string, unknown>, string]> = [];
    const record = (level: string) => (fields: Record<string, unknown>, message: string) => {
      lines.push([level, fields, message]);
    };
    const logger: QueueLogger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
    const log = kafkaLogCreator(logger)(logLevel.WARN);

    log({
      namespace: 'Runner',
      level: logLevel.ERROR,
      label: 'ERROR',
      log: { timestamp: '2026-11-30T00:00:00Z', message: 'Crash', groupId: 'indexer', logger: 'kafkajs' },
    });
    log({ namespace: 'Consumer', level: logLevel.WARN, label: 'WARN', log: { timestamp: 't', message: 'Rebalancing' } });

    expect(lines).toEqual([
      ['error', { kafkajs: 'Runner', groupId: 'indexer' }, 'Crash'],
      ['warn', { kafkajs: 'Consumer' }, 'Rebalancing'],
    ]);
  });

  it('keeps answers the adapter handles itself out of the error level (an existing topic, a rebalancing heartbeat), but not other broker errors', () => {
    const lines: Array<[string, string]> = [];
    const record = (level: string) => (_fields: Record<string, unknown>, message: string) => {
      lines.push([level, message]);
    };
    const logger: QueueLogger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
    const log = kafkaLogCreator(logger)(logLevel.WARN);
    const connection = (message: string, error: string) =>
      log({
        namespace: 'Connection',
        level: logLevel.ERROR,
        label: 'ERROR',
        log: { timestamp: 't', message, error, broker: '127.0.0.1:9092' },
      });

    connection('Response CreateTopics(key: 19, version: 3)', 'Topic creation errors');
    connection('Response Heartbeat(key: 12, version: 3)', 'The group is rebalancing, so a rejoin is needed');
    connection('Response Produce(key: 0, version: 7)', 'This server does not host this topic-partition');
    connection('Response CreateTopics(key: 19, version: 3)', 'Cluster authorization failed');

    expect(lines).toEqual([
      ['debug', 'Response CreateTopics(key: 19, version: 3)'],
      ['debug', 'Response Heartbeat(key: 12, version: 3)'],
      ['error', 'Response Produce(key: 0, version: 7)'],
      ['error', 'Response CreateTopics(key: 19, version: 3)'],
    ]);
  });
});
