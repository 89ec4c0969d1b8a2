import { InvalidQueueMessageError, NewerSchemaVersionError } from '@lanner/frames';
import { toStorableText } from '@lanner/model';
import {
  guardAgainstPoison,
  RecordTooLargeError,
  type HandlerFailureKind,
  type MessageHandler,
  type QueueMessage,
} from '@lanner/queue';
import { databaseIsUnavailable, databaseRefusesForGood, RepositoryError, type Repositories } from '@lanner/repository';

/** The part of a logger this needs (pino's and Nest's both fit). */
export interface PoisonLogger {
  error(fields: Record<string, unknown>, message: string): void;
}

const MAX_REASON_LENGTH = 500;

/**
 * How Lanner's consumers take a handler failure (see `guardAgainstPoison`):
 * a value the database refuses for good, or a payload no schema accepts, is
 * lasting; an unreachable database or broker, or a message from a newer
 * Lanner waiting for this process to be upgraded, is passing; anything else
 * is unknown (retried a while, then parked).
 */
export function handlerFailureKind(error: unknown): HandlerFailureKind {
  if (error instanceof NewerSchemaVersionError) return 'passing';
  if (databaseIsUnavailable(error) || isBrokerFailure(error)) return 'passing';
  if (databaseRefusesForGood(error) || error instanceof InvalidQueueMessageError || error instanceof RecordTooLargeError)
    return 'lasting';
  return 'unknown';
}

/** KafkaJS names its errors KafkaJS*: a broker or connection problem, never the message's fault. */
function isBrokerFailure(error: unknown): boolean {
  return error instanceof Error && error.name.startsWith('KafkaJS');
}

/**
 * One line users can read: the error's own message for Lanner's errors and
 * PostgreSQL's (which name the problem, never the statement); only the kind
 * for anything else, so no payload or internal detail is copied around.
 */
export function describeHandlerFailure(error: unknown): string {
  let text: string;
  if (databaseRefusesForGood(error)) {
    const refusal = databaseMessage(error);
    text = refusal === undefined ? 'the database refused a value it cannot store' : `the database refused a value: ${refusal}`;
  } else if (
    error instanceof RepositoryError ||
    error instanceof InvalidQueueMessageError ||
    error instanceof RecordTooLargeError
  )
    text = error.message;
  else if (error instanceof Error) text = `${error.name}: ${error.message.split('\n')[0]}`;
  else text = 'the handler failed';
  return toStorableText(text.length > MAX_REASON_LENGTH ? `${text.slice(0, MAX_REASON_LENGTH)}…` : text);
}

/** PostgreSQL's own message, found where the driver or Prisma's adapter put it. */
function databaseMessage(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const record = current as Record<string, unknown>;
    const cause = record['cause'] ?? record['driverAdapterError'];
    if (typeof record['originalMessage'] === 'string' && record['originalMessage'] !== '') return record['originalMessage'];
    if (cause === undefined && typeof record['message'] === 'string' && record['message'] !== '')
      return record['message'].split('\n')[0];
    current = cause;
  }
  // Prisma's own message starts with a blank line and names source files: not for users.
  return undefined;
}

/** The execution a parked message was about, when its envelope names one. */
export interface ParkedMessageSubject {
  readonly tenantId?: string;
  readonly executionId?: string;
}

/** Lanner's envelopes carry the tenant and execution in `payload`; read them when the bytes are such an envelope. */
function executionOf(message: QueueMessage): ParkedMessageSubject {
  try {
    const parsed: unknown = JSON.parse(message.value.toString('utf8'));
    const payload = typeof parsed === 'object' && parsed !== null ? (parsed as { payload?: unknown }).payload : undefined;
    if (typeof payload !== 'object' || payload === null) return {};
    const { tenantId, executionId } = payload as { tenantId?: unknown; executionId?: unknown };
    return {
      ...(typeof tenantId === 'string' ? { tenantId } : {}),
      ...(typeof executionId === 'string' ? { executionId } : {}),
    };
  } catch {
    return {};
  }
}

/**
 * Wraps a consumer group's handler so that a poison message is parked in the
 * dead-letter store with its reason (and logged without its payload) and its
 * partition moves on, while outages keep being retried. An operator lists,
 * replays or drops parked messages through `/api/v1/instance/dead-letters`.
 */
export function parkPoisonMessages(
  handler: MessageHandler,
  context: {
    readonly repositories: Repositories;
    readonly groupId: string;
    readonly logger: PoisonLogger;
    readonly now?: () => Date;
    readonly unknownAttempts?: number;
    /** Failures of this consumer's own that must be retried, never parked (e.g. work given up on while stopping). */
    readonly alsoPassing?: (error: unknown) => boolean;
    /** After the message is recorded: tell its execution (fail it, or its task run, with the reason). */
    readonly afterParking?: (message: QueueMessage, reason: string, about: ParkedMessageSubject) => Promise<void>;
  },
): MessageHandler {
  const now = context.now ?? (() => new Date());
  const alsoPassing = context.alsoPassing ?? (() => false);
  return guardAgainstPoison(handler, {
    classify: (error) => (alsoPassing(error) ? 'passing' : handlerFailureKind(error)),
    describe: describeHandlerFailure,
    ...(context.unknownAttempts !== undefined ? { unknownAttempts: context.unknownAttempts } : {}),
    park: async (message, reason, attempts) => {
      const { tenantId, executionId } = executionOf(message);
      await context.repositories.deadLetters.record({
        consumerGroup: context.groupId,
        topic: message.topic,
        partition: message.partition,
        offset: message.offset,
        key: message.key,
        value: message.value,
        headers: message.headers,
        reason,
        attempts,
        ...(tenantId !== undefined ? { tenantId } : {}),
        ...(executionId !== undefined ? { executionId } : {}),
        at: now(),
      });
      context.logger.error(
        {
          topic: message.topic,
          partition: message.partition,
          offset: message.offset,
          groupId: context.groupId,
          executionId,
          attempts,
          reason,
        },
        'message parked as a dead letter: it can never be handled as it is',
      );
      if (context.afterParking !== undefined) {
        try {
          await context.afterParking(message, reason, {
            ...(tenantId !== undefined ? { tenantId } : {}),
            ...(executionId !== undefined ? { executionId } : {}),
          });
        } catch (error) {
          // Parked already: the operator sees it in the dead letters even if its execution could not be told.
          context.logger.error(
            { topic: message.topic, offset: message.offset, reason: describeHandlerFailure(error) },
            'could not report a parked message to its execution',
          );
        }
      }
    },
  });
}
