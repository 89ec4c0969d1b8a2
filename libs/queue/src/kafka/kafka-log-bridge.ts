import { logLevel, type logCreator } from 'kafkajs';
import type { QueueLogger } from '../queue.logger';

/**
 * Broker answers kafkajs logs as errors on the connection although they are
 * part of normal work, and which the caller handles: a topic that already
 * exists when the adapter creates topics (createTopics tells a real failure
 * apart and throws it), and a heartbeat told the group is rebalancing (the
 * consumer rejoins and logs that itself).
 */
const EXPECTED_BROKER_ANSWERS: readonly { request: string; error: string }[] = [
  { request: 'Response CreateTopics', error: 'Topic creation errors' },
  { request: 'Response Heartbeat', error: 'The group is rebalancing, so a rejoin is needed' },
];

function expectedBrokerAnswer(namespace: string, message: string, error: unknown): boolean {
  return (
    namespace === 'Connection' &&
    EXPECTED_BROKER_ANSWERS.some((answer) => message.startsWith(answer.request) && error === answer.error)
  );
}

/** Routes kafkajs' own log lines to the given logger, as structured fields. */
export function kafkaLogCreator(logger: QueueLogger): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      // timestamp and the kafkajs logger name are the host logger's business.
      const { message, timestamp: _timestamp, logger: _logger, ...fields } = log;
      const entry = { kafkajs: namespace, ...fields };
      if (level === logLevel.ERROR && expectedBrokerAnswer(namespace, message, fields['error'])) logger.debug(entry, message);
      else if (level === logLevel.ERROR) logger.error(entry, message);
      else if (level === logLevel.WARN) logger.warn(entry, message);
      else if (level === logLevel.INFO) logger.info(entry, message);
      else logger.debug(entry, message);
    };
}
