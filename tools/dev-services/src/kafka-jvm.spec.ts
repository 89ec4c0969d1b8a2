import { DevServicesError } from './errors';
import { kafkaJvmOptions } from './kafka-jvm';

describe("the local broker's JVM options", () => {
  it('run a small heap on the serial collector when nothing is set', () => {
    expect(kafkaJvmOptions({})).toEqual(['-Xms128m', '-Xmx384m', '-XX:+UseSerialGC']);
  });

  it("take the heap and the collector from Kafka's own variables, each replacing its default", () => {
    expect(kafkaJvmOptions({ KAFKA_HEAP_OPTS: '-Xms1g   -Xmx1g' })).toEqual(['-Xms1g', '-Xmx1g', '-XX:+UseSerialGC']);
    expect(kafkaJvmOptions({ KAFKA_JVM_PERFORMANCE_OPTS: ' -XX:+UseG1GC -XX:MaxGCPauseMillis=20 ' })).toEqual([
      '-Xms128m',
      '-Xmx384m',
      '-XX:+UseG1GC',
      '-XX:MaxGCPauseMillis=20',
    ]);
  });

  it('keep the defaults for a variable that is set but blank', () => {
    expect(kafkaJvmOptions({ KAFKA_HEAP_OPTS: '  ', KAFKA_JVM_PERFORMANCE_OPTS: '' })).toEqual([
      '-Xms128m',
      '-Xmx384m',
      '-XX:+UseSerialGC',
    ]);
  });

  it('refuse a value that is not JVM options, naming the variable and the word', () => {
    const attempt = (): string[] => kafkaJvmOptions({ KAFKA_JVM_PERFORMANCE_OPTS: '-XX:+UseG1GC G1' });
    expect(attempt).toThrow(DevServicesError);
    expect(attempt).toThrow(
      "KAFKA_JVM_PERFORMANCE_OPTS must be JVM options separated by spaces, each starting with '-': 'G1' is not one",
    );
  });
});
