import { QueueConfigError } from '../queue.errors';
import { parseKafkaBrokers } from './kafka-brokers';

describe('KAFKA_BROKERS parsing', () => {
  it('accepts a comma-separated list of host:port, ignoring spaces', () => {
    expect(parseKafkaBrokers('kafka-1:9092, 10.0.0.7:19092,[::1]:9092')).toEqual([
      'kafka-1:9092',
      '10.0.0.7:19092',
      '[::1]:9092',
    ]);
  });

  it('names the variable when it is missing', () => {
    expect(() => parseKafkaBrokers(undefined)).toThrow(/KAFKA_BROKERS is not set/);
    expect(() => parseKafkaBrokers('  ', 'LANNER_KAFKA')).toThrow(/LANNER_KAFKA is not set/);
  });

  it.each(['kafka-1', 'kafka-1:', ':9092', 'kafka-1:99999', 'kafka-1:9092,', 'kafka://kafka-1:9092'])(
    'refuses "%s" with an error naming the variable and the bad entry',
    (raw) => {
      expect(() => parseKafkaBrokers(raw)).toThrow(QueueConfigError);
      expect(() => parseKafkaBrokers(raw)).toThrow(/KAFKA_BROKERS must be a comma-separated list of host:port/);
    },
  );
});
