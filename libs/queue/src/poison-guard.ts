import type { MessageHandler, QueueMessage } from './queue.port';

/**
 * How a handler's failure is taken:
 * - `lasting`: the same message fails the same way on every try (a payload
 *   the database refuses, a value no rule accepts). Retrying it would hold its
 *   partition forever, so it is parked at once.
 * - `passing`: something the message needs is down (database, broker). It is
 *   retried with backoff for as long as that lasts, never parked.
 * - `unknown`: retried, and parked after `unknownAttempts` tries.
 */
export type HandlerFailureKind = 'lasting' | 'passing' | 'unknown';

export interface PoisonGuardOptions {
  classify(error: unknown): HandlerFailureKind;
  /**
   * Parks the message with a reason users can read (the dead-letter store);
   * resolving lets the message be committed, so its partition moves on.
   * Throwing leaves the message to be retried (the park itself failed).
   */
  park(message: QueueMessage, reason: string, attempts: number): Promise<void>;
  /** One line naming the failure, with no payload, SQL or stack trace in it. */
  describe(error: unknown): string;
  /** Tries of an unknown failure before the message is parked; default 10 (about two minutes of backoff). */
  readonly unknownAttempts?: number;
}

const DEFAULT_UNKNOWN_ATTEMPTS = 10;

/**
 * Wraps a queue handler so that no message can hold its partition forever:
 * a lasting failure parks the message at once, an unknown one after a bounded
 * number of tries, and a passing one is thrown back to the adapter, which
 * retries the same message with backoff. Tries are counted per message
 * position in memory: a restart counts again from one, which only delays the
 * parking of an unknown failure.
 */
export function guardAgainstPoison(handler: MessageHandler, options: PoisonGuardOptions): MessageHandler {
  const unknownAttempts = options.unknownAttempts ?? DEFAULT_UNKNOWN_ATTEMPTS;
  const tries = new Map<string, number>();
  return async (message) => {
    const position = `${message.topic}\u0001${message.partition}\u0001${message.offset}`;
    try {
      await handler(message);
      tries.delete(position);
    } catch (error) {
      const attempts = (tries.get(position) ?? 0) + 1;
      const kind = options.classify(error);
      if (kind === 'passing' || (kind === 'unknown' && attempts < unknownAttempts)) {
        tries.set(position, attempts);
        throw error;
      }
      await options.park(message, options.describe(error), attempts);
      tries.delete(position);
    }
  };
}
