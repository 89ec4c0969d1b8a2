import { Logger } from '@nestjs/common';
import { encodeQueueMessage, executorEventCodec, QUEUE_SCHEMA_VERSIONS } from '@lanner/frames';
import type { QueuePort } from '@lanner/queue';
import type { ExecutionTimerRecord, Repositories } from '@lanner/repository';
import { executorTimerReason, isExecutionStartTimer, isExecutorTimerKind } from './execution-events';

/** Timers fired per database transaction; a backlog drains over several rounds of one tick. */
const TIMERS_PER_ROUND = 200;

/**
 * The executor's delay loop: every `intervalMs` it fires the due timers as
 * `timer.fired` on `lanner.executor` (key: execution id) and removes them. A
 * timer is removed only after its message is stored by the queue, so one may
 * fire twice (the state machine ignores the second), never zero times.
 */
export class TimerLoop {
  private readonly logger = new Logger(TimerLoop.name);
  private interval: NodeJS.Timeout | undefined;
  private tick: Promise<void> | undefined;
  /** The last failure logged, so a database that stays down is reported once, not at every tick. */
  private lastFailure: string | undefined;

  constructor(
    // The repositories, not their `timers`: until the database answered once they are a stand-in that throws on use.
    private readonly repositories: Pick<Repositories, 'timers'>,
    private readonly queue: QueuePort,
    private readonly executorTopic: string,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    if (this.interval !== undefined) return;
    this.interval = setInterval(() => {
      // A slow tick (a large backlog) is not overlapped by the next one.
      this.tick ??= this.fireDue().finally(() => (this.tick = undefined));
    }, this.intervalMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.interval);
    this.interval = undefined;
    await this.tick;
  }

  /** Fires everything due now; resolves when no due timer is left (or on an error, retried next tick). */
  async fireDue(): Promise<void> {
    try {
      for (;;) {
        const fired = await this.repositories.timers.fireDue(new Date(), TIMERS_PER_ROUND, (due) => this.publish(due));
        this.lastFailure = undefined;
        if (fired < TIMERS_PER_ROUND || this.interval === undefined) return;
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (reason !== this.lastFailure) this.logger.warn({ reason }, 'due timers not fired; trying again at each tick');
      this.lastFailure = reason;
    }
  }

  private async publish(due: readonly ExecutionTimerRecord[]): Promise<void> {
    const records = [];
    for (const timer of due) {
      if (!isExecutorTimerKind(timer.kind)) {
        // Written by a newer executor: leave it to that one rather than guess.
        throw new Error(`timer ${timer.id} has unknown kind '${timer.kind}'`);
      }
      records.push(
        encodeQueueMessage(executorEventCodec, {
          schemaVersion: QUEUE_SCHEMA_VERSIONS['timer.fired'],
          messageId: `${timer.id}@${timer.dueAt.toISOString()}`,
          type: 'timer.fired',
          occurredAt: new Date().toISOString(),
          payload: {
            tenantId: timer.tenantId,
            executionId: timer.executionId,
            timerId: timer.id,
            reason: executorTimerReason(timer.kind),
            // An execution's start timer belongs to no task run.
            ...(isExecutionStartTimer(timer.id) ? {} : { taskRunId: timer.taskRunId }),
            dueAt: timer.dueAt.toISOString(),
          },
        }),
      );
    }
    await this.queue.publish(this.executorTopic, records);
  }
}
