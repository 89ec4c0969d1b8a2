/**
 * The logging the adapters need, shaped like pino's `(fields, message)` calls so a
 * pino logger (or nestjs-pino's `PinoLogger.logger`) can be passed as is.
 */
export interface QueueLogger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export const silentQueueLogger: QueueLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** Only the message of a handler's error is logged: payloads may hold secrets. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
