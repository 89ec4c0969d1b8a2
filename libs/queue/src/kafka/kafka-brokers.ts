import { QueueConfigError } from '../queue.errors';

// host:port where host is a name, an IPv4 address or a bracketed IPv6 address.
const brokerAddress = /^(\[[0-9a-fA-F:.]+\]|[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?):(\d{1,5})$/;

/**
 * Parses a `KAFKA_BROKERS`-style list (`host:port,host:port`). Throws a
 * `QueueConfigError` naming `variable` so a misconfigured process says what to fix.
 */
export function parseKafkaBrokers(raw: string | undefined, variable = 'KAFKA_BROKERS'): string[] {
  if (raw === undefined || raw.trim() === '') {
    throw new QueueConfigError(`${variable} is not set: give the Kafka brokers as host:port,host:port`);
  }
  return assertKafkaBrokers(
    raw.split(',').map((entry) => entry.trim()),
    variable,
  );
}

/** Checks a list of `host:port` broker addresses; the error names `variable`. */
export function assertKafkaBrokers(brokers: readonly string[], variable: string): string[] {
  if (brokers.length === 0) {
    throw new QueueConfigError(`${variable} is empty: give at least one Kafka broker as host:port`);
  }
  for (const broker of brokers) {
    const match = brokerAddress.exec(broker);
    const port = match ? Number(match[3]) : 0;
    if (!match || port < 1 || port > 65535) {
      throw new QueueConfigError(
        `${variable} must be a comma-separated list of host:port (e.g. "kafka-1:9092,kafka-2:9092"); "${broker}" is not`,
      );
    }
  }
  return [...brokers];
}
