import { hostname } from 'node:os';
import pino, { Logger, LoggerOptions } from 'pino';
import { LogLevel } from '../config/config-variables';
import { CENSORED, censorSecrets } from './censor-secrets';

/** Header and field paths that carry credentials in the request/response serializers' output. */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
];

export function processLoggerOptions(role: string, level: LogLevel): LoggerOptions {
  return {
    level,
    base: { role, pid: process.pid, hostname: hostname() },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: CENSORED },
    formatters: {
      // Level names rather than numbers: log pipelines and humans both read them.
      level: (label) => ({ level: label }),
      log: (fields) => censorSecrets(fields),
    },
  };
}

/**
 * The one pino instance of a process: JSON lines on stdout, written
 * synchronously so that nothing is lost when the process exits right after a
 * line (startup failures, the end of a graceful shutdown).
 */
export function createProcessLogger(role: string, level: LogLevel): Logger {
  return pino(processLoggerOptions(role, level), pino.destination({ dest: 1, sync: true }));
}
