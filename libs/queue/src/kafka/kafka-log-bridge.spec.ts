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
});
