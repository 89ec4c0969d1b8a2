import { Logger } from '@nestjs/common';
import type { ExecutorEvent } from '@lanner/frames';
import type { ProcessingMarkRecord, Repositories } from '@lanner/repository';
import {
  liftQuarantine,
  markedProcessingsAfterStart,
  parksEvent,
  reviewMarksAtStart,
  type MarkedEvent,
  type ProcessingMark,
} from '@lanner/state-machine';

/** Ends one execution FAILED with `reason` (the processor's quarantine). */
export type QuarantineExecution = (tenantId: string, executionId: string, reason: string) => Promise<void>;

const key = (tenantId: string, executionId: string): string => `${tenantId}\u0000${executionId}`;

function toMark(record: ProcessingMarkRecord): ProcessingMark {
  const event = (marked: ProcessingMarkRecord['inProgress']): MarkedEvent | undefined =>
    marked === undefined
      ? undefined
      : { messageId: marked.messageId, messageType: marked.messageType, since: marked.since.getTime() };
  const inProgress = event(record.inProgress);
  const lastCrash = event(record.lastCrash);
  return {
    tenantId: record.tenantId,
    executionId: record.executionId,
    crashes: record.crashes,
    ...(inProgress !== undefined ? { inProgress } : {}),
    ...(lastCrash !== undefined ? { lastCrash } : {}),
    ...(record.quarantinedAt !== undefined ? { quarantinedAt: record.quarantinedAt.getTime() } : {}),
  };
}

function toRecord(mark: ProcessingMark): ProcessingMarkRecord {
  const event = (marked: MarkedEvent | undefined) =>
    marked === undefined
      ? undefined
      : { messageId: marked.messageId, messageType: marked.messageType, since: new Date(marked.since) };
  const inProgress = event(mark.inProgress);
  const lastCrash = event(mark.lastCrash);
  return {
    tenantId: mark.tenantId,
    executionId: mark.executionId,
    crashes: mark.crashes,
    ...(inProgress !== undefined ? { inProgress } : {}),
    ...(lastCrash !== undefined ? { lastCrash } : {}),
    ...(mark.quarantinedAt !== undefined ? { quarantinedAt: new Date(mark.quarantinedAt) } : {}),
  };
}

/**
 * Keeps one execution from crashing the executor in a loop (the rules are
 * `reviewMarksAtStart` / `parksEvent` in @lanner/state-machine).
 *
 * At start it counts the marks left set by the previous process as crashes,
 * quarantines the executions that crashed it twice (ended FAILED with the
 * reason; the event it died on is parked) and watches every execution still in
 * flight: its first processings here (`markedProcessingsAfterStart`) are marked
 * durably before and cleared after, and marked processings run one at a time,
 * so a mark left set names the one execution whose processing stopped the
 * process. Other processing gains no write: the hot path stays as it was, and a
 * crash there is counted from the replay that follows it.
 *
 * Events of a quarantined execution are parked (recorded with the reason, never
 * processed) but a restart, which a user asks for knowingly.
 */
export class CrashGuard {
  private readonly logger = new Logger(CrashGuard.name);
  /** In flight at start: how many of its processings here are still to be marked. */
  private readonly watched = new Map<string, number>();
  /** Quarantined executions, with the reason their parked events carry. */
  private readonly quarantined = new Map<string, { readonly quarantinedAt: number; readonly reason: string }>();
  /** The watched processing in progress: one at a time. */
  private turn: Promise<void> = Promise.resolve();

  /** Processings to mark per execution in flight at start. */
  private readonly marked: number;

  /** `queueKeepsMessages`: false on the in-process queue (standalone), which forgets its messages at a stop. */
  constructor(
    private readonly repositories: Pick<Repositories, 'processingMarks' | 'executions'>,
    queueKeepsMessages: boolean,
    private readonly clock: () => number = Date.now,
  ) {
    this.marked = markedProcessingsAfterStart(queueKeepsMessages);
  }

  /** Before the executor consumes: count crashes, quarantine, and note what to watch. */
  async atStart(quarantine: QuarantineExecution): Promise<void> {
    const marks = (await this.repositories.processingMarks.listAll()).map(toMark);
    const review = reviewMarksAtStart(marks, this.clock());
    await this.repositories.processingMarks.save(review.changed.map(toRecord));
    const changed = new Map(review.changed.map((mark) => [key(mark.tenantId, mark.executionId), mark]));
    for (const mark of review.changed) {
      this.logger.warn(
        {
          tenantId: mark.tenantId,
          executionId: mark.executionId,
          crashes: mark.crashes,
          messageType: mark.lastCrash?.messageType,
          messageId: mark.lastCrash?.messageId,
        },
        'the executor stopped while processing this execution',
      );
    }
    for (const order of review.quarantine) {
      const mark =
        changed.get(key(order.tenantId, order.executionId)) ??
        marks.find((m) => m.tenantId === order.tenantId && m.executionId === order.executionId);
      this.quarantined.set(key(order.tenantId, order.executionId), {
        quarantinedAt: mark?.quarantinedAt ?? this.clock(),
        reason: order.reason,
      });
      if (mark?.lastCrash !== undefined)
        await this.park(order.tenantId, order.executionId, mark.lastCrash.messageId, mark.lastCrash.messageType, order.reason);
      await quarantine(order.tenantId, order.executionId, order.reason);
      if (changed.has(key(order.tenantId, order.executionId))) {
        this.logger.error(
          { tenantId: order.tenantId, executionId: order.executionId, reason: order.reason },
          'execution quarantined',
        );
      }
    }
    for (const tenantId of await this.repositories.executions.listTenantsWithUnfinished()) {
      for (const record of await this.repositories.executions.listUnfinished(tenantId)) {
        if (!this.quarantined.has(key(tenantId, record.id))) this.watched.set(key(tenantId, record.id), this.marked);
      }
    }
  }

  /** True when the event's execution is quarantined or watched: its events go through `guard` one by one. */
  handlesAlone(event: ExecutorEvent): boolean {
    const id = key(event.payload.tenantId, event.payload.executionId);
    return this.quarantined.has(id) || this.watched.has(id);
  }

  /** Runs `process` for one event: parked when its execution is quarantined, marked when watched, else as it is. */
  async guard(event: ExecutorEvent, process: () => Promise<void>): Promise<void> {
    const { tenantId, executionId } = event.payload;
    const id = key(tenantId, executionId);
    const quarantined = this.quarantined.get(id);
    if (quarantined !== undefined) {
      if (parksEvent(quarantined, event.type)) {
        await this.park(tenantId, executionId, event.messageId, event.type, quarantined.reason);
        this.logger.warn(
          { tenantId, executionId, messageType: event.type, messageId: event.messageId },
          'event of a quarantined execution parked',
        );
        return;
      }
      await this.lift(tenantId, executionId);
    }
    if (!this.watched.has(id)) return process();
    await this.watch(id, event, process);
  }

  private async watch(id: string, event: ExecutorEvent, process: () => Promise<void>): Promise<void> {
    const previous = this.turn;
    let done!: () => void;
    this.turn = new Promise<void>((resolve) => (done = resolve));
    try {
      await previous;
      // Other events of the same execution may have used up its marked processings meanwhile.
      const remaining = this.watched.get(id);
      if (remaining === undefined) return await process();
      const { tenantId, executionId } = event.payload;
      await this.repositories.processingMarks.mark(tenantId, executionId, {
        messageId: event.messageId,
        messageType: event.type,
        since: new Date(this.clock()),
      });
      try {
        await process();
        if (remaining > 1) this.watched.set(id, remaining - 1);
        else this.watched.delete(id);
      } finally {
        // The process is alive: whatever `process` did, it did not stop it. A failure is retried, watched again.
        await this.repositories.processingMarks.clear(tenantId, executionId);
      }
    } finally {
      done();
    }
  }

  private async lift(tenantId: string, executionId: string): Promise<void> {
    const record = await this.repositories.processingMarks.get(tenantId, executionId);
    if (record !== undefined) await this.repositories.processingMarks.save([toRecord(liftQuarantine(toMark(record)))]);
    this.quarantined.delete(key(tenantId, executionId));
    this.watched.set(key(tenantId, executionId), this.marked);
    this.logger.warn({ tenantId, executionId }, 'quarantine lifted by a restart; the execution is watched again');
  }

  private async park(
    tenantId: string,
    executionId: string,
    messageId: string,
    messageType: string,
    reason: string,
  ): Promise<void> {
    await this.repositories.processingMarks.park({
      tenantId,
      executionId,
      messageId,
      messageType,
      reason,
      parkedAt: new Date(this.clock()),
    });
  }
}
