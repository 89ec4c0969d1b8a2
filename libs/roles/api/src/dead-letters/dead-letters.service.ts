import { Inject, Injectable } from '@nestjs/common';
import type { QueuePort } from '@lanner/queue';
import type { DeadLetterRecord, Repositories } from '@lanner/repository';
import { QUEUE, REPOSITORIES } from '@lanner/runtime';

/** Lists, replays and drops the messages consumers parked (see `parkPoisonMessages`). */
@Injectable()
export class DeadLettersService {
  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(QUEUE) private readonly queue: QueuePort,
  ) {}

  list(page: number, size: number, topic?: string): Promise<{ results: DeadLetterRecord[]; total: number }> {
    return this.repositories.deadLetters.list({
      limit: size,
      offset: (page - 1) * size,
      ...(topic !== undefined ? { topic } : {}),
    });
  }

  get(id: string): Promise<DeadLetterRecord> {
    return this.repositories.deadLetters.get(id);
  }

  /**
   * Publishes the message again to its topic, exactly as it was, then drops it.
   * Published before the row goes: a failure in between leaves it parked, never
   * lost (replayed twice, it is a redelivery, which every consumer ignores).
   */
  async replay(id: string): Promise<DeadLetterRecord> {
    const record = await this.repositories.deadLetters.get(id);
    const message = await this.repositories.deadLetters.payload(id);
    await this.queue.publish(message.topic, [{ key: message.key, value: message.value, headers: message.headers }]);
    await this.repositories.deadLetters.remove(id);
    return record;
  }

  drop(id: string): Promise<void> {
    return this.repositories.deadLetters.remove(id);
  }
}
