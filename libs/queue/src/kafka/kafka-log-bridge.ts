import { logLevel, type logCreator } from 'kafkajs';
import type { QueueLogger } from '../queue.logger';

/** Routes kafkajs' own log lines to the given logger, as structured fields. */
export function kafkaLogCreator(logger: QueueLogger): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      // timestamp and the kafkajs logger name are the host logger's business.
      const { message, timestamp: _timestamp, logger: _logger, ...fields } = log;
      const entry = { kafkajs: namespace, ...fields };
      if (level === logLevel.ERROR) logger.error(entry, message);
      else if (level === logLevel.WARN) logger.warn(entry, message);
      else if (level === logLevel.INFO) logger.info(entry, message);
      else logger.debug(entry, message);
    };
}
