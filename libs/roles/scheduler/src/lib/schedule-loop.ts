import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { type EncodedQueueMessage, encodeQueueMessage, type ExecutorEvent, executorEventCodec } from '@lanner/frames';
import {
  BACKFILL_LABEL,
  delayToNextTick,
  evaluateSchedule,
  type Flow,
  type FlowRevisionRecord,
  type HttpPollingTrigger,
  type NewExecution,
  scheduleEvaluationDate,
  type ScheduleFiring,
  type ScheduleTrigger,
  stepBackfill,
  type TriggerStateRecord,
} from '@lanner/model';
import type { QueuePort } from '@lanner/queue';
import { flowKey, type Repositories, type TriggerAdvance, type TriggerAdvanceOutcome } from '@lanner/repository';
import type { PollingTriggers } from './polling-triggers';
import { scheduledExecution } from './scheduled-execution';

import type { SchedulerOptions } from './scheduler-options';

const SCHEDULE_TYPE = 'io.kestra.plugin.core.trigger.Schedule';
const HTTP_POLLING_TYPE = 'io.kestra.plugin.core.http.Trigger';
/** A backfill steps once a second; its rate is `backfillPerSecond` dates per step. */
const BACKFILL_STEP_MS = 1000;
/** How long after each whole tick the loop looks: the due dates have passed by then. */
const TICK_OFFSET_MS = 2;

/** The steps of a claimed batch, as the loop's metrics name them. */
export type ScheduleStep = 'claim' | 'flows' | 'evaluate' | 'write' | 'announce';

/** Where the loop reports how long its steps take and how late its executions are created. */
export interface ScheduleLoopMetrics {
  /** One step of a batch took `seconds`. */
  step(step: ScheduleStep, seconds: number): void;
  /** A write created the executions of firings due at `dueDates`, committed at `writtenAt`. */
  fired(dueDates: readonly Date[], writtenAt: Date): void;
}

/** A claimed row evaluated, and what to write for it (now, or at its date when claimed ahead). */
interface Planned {
  readonly claimed: TriggerStateRecord;
  readonly advance: TriggerAdvance;
  /** The `execution.created` of each of its executions, encoded while it waits (the write's second has no time to spare). */
  readonly announcements?: readonly EncodedQueueMessage[];
}

/**
 * The scheduler's loop: every tick it claims the schedules due now or in the
 * next `aheadMs` (leased to this scheduler, so another one never evaluates
 * them at the same time), evaluates each against the flow's latest revision,
 * and writes the next date with the executions it fired in one statement
 * (one transaction when a backfill step or a stop is among the rows), which
 * succeeds only if the row is still as claimed: each date fires once,
 * whatever the number of schedulers. A schedule claimed ahead is evaluated as
 * of its date and held in memory until the clock reaches it; then the rows of
 * that date are written in chunks, side by side (an execution is never created
 * before its date, and its write also checks that the flow and the trigger did
 * not change meanwhile). Each execution is then announced to the executor as
 * `execution.created` (the same event the api sends).
 */
export class ScheduleLoop {
  private readonly logger = new Logger(ScheduleLoop.name);
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private tick: Promise<void> | undefined;
  private lastFailure: string | undefined;
  /** Rows evaluated ahead, by the date (ms) they are written at, each with its timer. */
  private readonly held = new Map<number, { readonly items: Planned[]; readonly timer: NodeJS.Timeout }>();
  /** Writes of held rows under way. */
  private readonly writes = new Set<Promise<void>>();

  constructor(
    private readonly repositories: Pick<Repositories, 'triggers' | 'flows'>,
    private readonly queue: QueuePort,
    private readonly executorTopic: string,
    private readonly options: SchedulerOptions,
    /** Names this scheduler in the leases it holds (the trigger API shows it). */
    readonly holder: string,
    private readonly clock: () => Date = () => new Date(),
    /** Evaluates the claimed polling triggers on workers; without it they are left alone. */
    private readonly polling?: PollingTriggers,
    private readonly metrics?: ScheduleLoopMetrics,
  ) {}

  /** Announces executions a trigger created to the executor, as `execution.created`. */
  async announce(tenantId: string, executions: readonly NewExecution[], now: Date): Promise<void> {
    if (executions.length === 0) return;
    await this.queue.publish(
      this.executorTopic,
      executions.map((execution) => encodeQueueMessage(executorEventCodec, createdEvent(tenantId, execution, now))),
    );
  }

  /**
   * Announces again the executions a killed scheduler committed but never
   * announced (the announce follows the commit). Those created in the last
   * minute are left alone: their scheduler may be announcing them right now.
   * The event id is stable per execution, so one announced twice is one start.
   */
  async announceLeftovers(): Promise<number> {
    const now = this.clock();
    const before = new Date(now.getTime() - 60_000);
    const leftovers = [
      ...(await this.repositories.triggers.unannouncedExecutions(SCHEDULE_TYPE, before, 10_000)),
      ...(await this.repositories.triggers.unannouncedExecutions(HTTP_POLLING_TYPE, before, 10_000)),
    ];
    if (leftovers.length > 0) {
      await this.queue.publish(
        this.executorTopic,
        leftovers.map(({ tenantId, ...execution }) =>
          encodeQueueMessage(executorEventCodec, createdEvent(tenantId, execution, now)),
        ),
      );
    }
    return leftovers.length;
  }

  /**
   * Ticks on the clock's whole multiples of `tickMs` (a few ms after each
   * second, by default), where the dates of a cron schedule fall: a schedule
   * due at 12:00:00 is evaluated at 12:00:00.00x, not up to a tick later.
   */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.scheduleTick();
  }

  /**
   * Stops looking; the rows evaluated ahead and not written yet are not
   * written: their leases are dropped, so another scheduler claims them at once.
   */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.tick;
    const left: Planned[] = [];
    for (const { items, timer } of this.held.values()) {
      clearTimeout(timer);
      left.push(...items);
    }
    this.held.clear();
    await Promise.all([...this.writes]);
    if (left.length > 0) {
      await this.repositories.triggers
        .releaseLeases(
          this.holder,
          left.map(({ claimed }) => claimed),
        )
        .catch((error: unknown) =>
          this.logger.warn(
            { reason: error instanceof Error ? error.message : String(error), schedules: left.length },
            'leases of schedules evaluated ahead not dropped; they are taken over when they expire',
          ),
        );
    }
  }

  private scheduleTick(): void {
    if (!this.running) return;
    this.timer = setTimeout(
      () => {
        this.tick ??= this.runOnce().finally(() => (this.tick = undefined));
        this.scheduleTick();
      },
      delayToNextTick(this.clock().getTime(), this.options.tickMs, TICK_OFFSET_MS),
    );
  }

  /**
   * Evaluates every schedule due now; resolves when none is left (or on an
   * error, retried next tick). `claimLanes` rounds run side by side, each
   * claiming its own batch (the claims skip each other's rows), so one
   * batch's writes overlap the next one's claim and evaluation.
   */
  async runOnce(): Promise<void> {
    try {
      await Promise.all(Array.from({ length: this.options.claimLanes }, () => this.drain()));
      this.lastFailure = undefined;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (reason !== this.lastFailure) this.logger.warn({ reason }, 'due schedules not evaluated; trying again at each tick');
      this.lastFailure = reason;
    }
  }

  /** Claims and evaluates batches until a claim comes back short (nothing more due now or ahead). */
  private async drain(): Promise<void> {
    for (;;) {
      const now = this.clock();
      const claimed = await this.timed('claim', () =>
        this.repositories.triggers.claimDue(
          this.holder,
          now,
          this.options.leaseMs,
          this.options.claimBatch,
          this.options.aheadMs,
        ),
      );
      await this.evaluateBatch(claimed, now);
      if (claimed.length < this.options.claimBatch) return;
    }
  }

  /**
   * Evaluates claimed rows: those due now are written at once (each row still
   * only if it is as claimed) and announced in one publish; those claimed
   * ahead of their date are held until it.
   */
  private async evaluateBatch(claimed: readonly TriggerStateRecord[], now: Date): Promise<void> {
    if (claimed.length === 0) return;
    // Each claimed row is evaluated against its flow's latest revision, all read in one statement.
    const flows = await this.timed('flows', () => this.repositories.flows.getLatestMany(claimed));
    const evaluated = this.clock();
    const planned: Planned[] = [];
    const ahead = new Map<number, Planned[]>();
    const polls: { row: TriggerStateRecord; flow: Flow; revision: number; trigger: HttpPollingTrigger }[] = [];
    for (const row of claimed) {
      const record = flows.get(flowKey(row.tenantId, row.namespace, row.flowId));
      const flow = record?.definition as unknown as Flow | undefined;
      const trigger = flow?.triggers.find((candidate) => candidate.id === row.triggerId);
      if (record !== undefined && flow !== undefined && trigger?.kind === 'HttpPolling' && !flow.disabled && !trigger.disabled) {
        polls.push({ row, flow, revision: record.revision, trigger });
        continue;
      }
      const backfillRunning = row.backfill !== null && row.backfill.dueAt !== null && !row.backfill.paused;
      const at = scheduleEvaluationDate({ pending: row.pending, nextDate: row.nextDate, backfillRunning }, now);
      const advance = this.evaluate(row, record, at);
      if (advance === undefined) continue;
      if (at > now && advance.executions.length > 0 && advance.backfill === undefined && advance.disable !== true) {
        const held = ahead.get(at.getTime()) ?? [];
        // Announced as occurring at its date, when it is written.
        const announcements = advance.executions.map((execution) =>
          encodeQueueMessage(executorEventCodec, createdEvent(row.tenantId, execution, at)),
        );
        held.push({ claimed: row, advance, announcements });
        ahead.set(at.getTime(), held);
      } else planned.push({ claimed: row, advance });
    }
    this.metrics?.step('evaluate', (this.clock().getTime() - evaluated.getTime()) / 1000);
    for (const [at, items] of ahead) this.hold(at, items);
    await (
      await this.write(planned, now)
    )();
    // A poll is a job for a worker; the trigger stays leased until its answer.
    for (const poll of polls) await this.polling?.evaluate(poll.row, poll.flow, poll.revision, poll.trigger, now);
  }

  /** Keeps rows evaluated ahead until `at`, when they are written. */
  private hold(at: number, items: readonly Planned[]): void {
    const existing = this.held.get(at);
    if (existing !== undefined) {
      existing.items.push(...items);
      return;
    }
    const fire = (): void => {
      const due = this.held.get(at);
      if (due === undefined || !this.running) return;
      // A timer may run a little before its time on the wall clock: never write before the date.
      const early = at - this.clock().getTime();
      if (early > 0) {
        this.held.set(at, { items: due.items, timer: setTimeout(fire, early) });
        return;
      }
      this.held.delete(at);
      const write = this.writeHeld(due.items).finally(() => this.writes.delete(write));
      this.writes.add(write);
    };
    this.held.set(at, { items: [...items], timer: setTimeout(fire, Math.max(0, at - this.clock().getTime())) });
  }

  /**
   * Writes the rows of a date that has come, in chunks of `writeChunk` rows,
   * `claimLanes` chunks side by side, each announced once written. The
   * executions' CREATED date is the write's. A chunk the database refused is
   * tried again a second later (its write is conditional, so at most once).
   */
  private async writeHeld(items: readonly Planned[]): Promise<void> {
    const chunks: Planned[][] = [];
    for (let index = 0; index < items.length; index += this.options.writeChunk) {
      chunks.push(items.slice(index, index + this.options.writeChunk));
    }
    let next = 0;
    const followUps: Promise<void>[] = [];
    const lane = async (): Promise<void> => {
      for (let index = next++; index < chunks.length; index = next++) {
        const now = this.clock();
        const chunk = chunks[index].map(({ claimed, advance, announcements }) => ({
          claimed,
          announcements,
          advance: {
            ...advance,
            executions: advance.executions.map((execution) => ({
              ...execution,
              stateHistories: [{ state: 'CREATED' as const, date: now }],
            })),
          },
        }));
        try {
          const followUp = await this.write(chunk, now);
          // Announced while the lane writes its next chunk.
          followUps.push(
            followUp().catch((error: unknown) =>
              this.logger.warn(
                { reason: error instanceof Error ? error.message : String(error), schedules: chunk.length },
                'executions created but not announced; a scheduler announces them again when it starts',
              ),
            ),
          );
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          this.logger.warn({ reason, schedules: chunk.length }, 'schedules due now not written; trying again in a second');
          if (this.running) this.hold(now.getTime() + 1000, chunks[index]);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.claimLanes, chunks.length) }, lane));
    await Promise.all(followUps);
  }

  /**
   * Writes evaluated rows (one statement when all are plain advances); resolves
   * once they are written, with the follow-up: announcing what was inserted in
   * one publish, and releasing each row evaluated ahead whose write was refused
   * because its flow or trigger changed since (the next claim evaluates it
   * afresh). A caller with more rows to write starts the next write meanwhile.
   */
  private async write(planned: readonly Planned[], now: Date): Promise<() => Promise<void>> {
    if (planned.length === 0) return () => Promise.resolve();
    const outcomes: TriggerAdvanceOutcome[] = await this.timed('write', () =>
      this.repositories.triggers.advanceMany(this.holder, planned),
    );
    this.metrics?.fired(
      planned.flatMap(({ advance }, index) =>
        outcomes[index].written && advance.lastDate !== undefined && advance.executions.length > 0 ? [advance.lastDate] : [],
      ),
      this.clock(),
    );
    return async () => {
      const refused: TriggerStateRecord[] = [];
      const announced = outcomes.flatMap((outcome, index) => {
        const { claimed, advance, announcements } = planned[index];
        if (!outcome.written && advance.flowRevision !== undefined) refused.push(claimed);
        // A plain advance written inserted exactly its executions, already encoded when it was held.
        if (outcome.written && announcements !== undefined && outcome.inserted.length === announcements.length)
          return announcements;
        return outcome.inserted.map((execution) =>
          encodeQueueMessage(executorEventCodec, createdEvent(claimed.tenantId, execution, now)),
        );
      });
      if (announced.length > 0) await this.timed('announce', () => this.queue.publish(this.executorTopic, announced));
      // Refused for a change since the evaluation (or taken over): only the rows still held as claimed are released.
      if (refused.length > 0) await this.repositories.triggers.releaseLeases(this.holder, refused);
    };
  }

  private async timed<T>(step: ScheduleStep, work: () => Promise<T>): Promise<T> {
    if (this.metrics === undefined) return work();
    const started = this.clock().getTime();
    try {
      return await work();
    } finally {
      this.metrics.step(step, (this.clock().getTime() - started) / 1000);
    }
  }

  /** What to write for one claimed row; undefined when its flow or trigger is gone (the write would find nothing). */
  private evaluate(row: TriggerStateRecord, record: FlowRevisionRecord | undefined, now: Date): TriggerAdvance | undefined {
    // Deleted meanwhile: the delete removed the row too, and a write would find nothing.
    if (record === undefined) return undefined;
    // The stored definition is the parsed flow as JSON.
    const flow = record.definition as unknown as Flow;
    const revision = record.revision;
    const trigger = flow.triggers.find((candidate) => candidate.id === row.triggerId);
    if (trigger === undefined || (trigger.kind !== 'Schedule' && trigger.kind !== 'HttpPolling')) return undefined;
    if (flow.disabled || trigger.disabled) {
      // Parked until a revision enables it again (which restarts it from that date); a backfill waits meanwhile.
      return {
        nextDate: null,
        executions: [],
        ...(row.backfill !== null && row.backfill.dueAt !== null
          ? {
              backfill: {
                claimed: row.backfill,
                step: { currentDate: row.backfill.currentDate, dueAt: new Date(now.getTime() + BACKFILL_STEP_MS) },
                executions: [],
              },
            }
          : {}),
      };
    }
    // A polling trigger reaches this point only when no evaluator polls it: left alone, its lease runs out.
    if (trigger.kind !== 'Schedule') return undefined;
    const result =
      !row.pending && (row.nextDate === null || row.nextDate > now)
        ? // Claimed for its backfill only: the schedule itself is not due (or has no date left).
          { firings: [], nextDate: row.nextDate, stopped: false }
        : evaluateSchedule(
            trigger,
            {
              ...(row.pending || row.nextDate === null ? {} : { nextDate: row.nextDate }),
              ...(row.lastExecutionState !== null ? { lastExecutionState: row.lastExecutionState } : {}),
            },
            now,
          );
    const executions = this.build(flow, revision, trigger, result.firings, now, row);
    const backfill = row.backfill;
    const step =
      backfill === null
        ? undefined
        : stepBackfill(trigger, backfill, now, { maxPerStep: this.options.backfillPerSecond, stepMs: BACKFILL_STEP_MS });
    const backfilled =
      backfill === null || step === undefined
        ? []
        : this.build(flow, revision, trigger, step.firings, now, row, {
            inputs: backfill.inputs,
            labels: { ...backfill.labels, [BACKFILL_LABEL]: 'true' },
          });
    return {
      nextDate: result.nextDate ?? null,
      executions,
      // Written only while the flow, the trigger and its last execution are as evaluated (it may be written later, at its date).
      flowRevision: revision,
      ...(trigger.stopAfter.length > 0 ? { stopAfter: trigger.stopAfter } : {}),
      ...(result.firings.length > 0 ? { lastDate: result.firings[result.firings.length - 1].date } : {}),
      ...(result.stopped ? { disable: true } : {}),
      // A backfill step dropped at the write (paused meanwhile) inserts nothing, and so announces nothing.
      ...(backfill !== null && step !== undefined ? { backfill: { claimed: backfill, step, executions: backfilled } } : {}),
    };
  }

  /** The executions of `firings`; a firing whose inputs do not fit the flow is logged and skipped. */
  private build(
    flow: Flow,
    revision: number,
    trigger: ScheduleTrigger,
    firings: readonly ScheduleFiring[],
    now: Date,
    row: TriggerStateRecord,
    extra: { readonly inputs?: Record<string, unknown>; readonly labels?: Record<string, string> } = {},
  ): NewExecution[] {
    const executions: NewExecution[] = [];
    for (const firing of firings) {
      const built = scheduledExecution(flow, revision, trigger, firing, randomUUID(), now, extra);
      if (built.ok) executions.push(built.execution);
      else
        this.logger.warn(
          {
            namespace: row.namespace,
            flowId: row.flowId,
            triggerId: row.triggerId,
            date: firing.date.toISOString(),
            reason: built.reason,
          },
          'schedule not fired: its inputs do not match the flow',
        );
    }
    return executions;
  }
}

/** `execution.created`, as the api announces an execution it created. */
function createdEvent(tenantId: string, execution: NewExecution, now: Date): ExecutorEvent {
  return {
    schemaVersion: 1,
    // Stable per execution: a retried publish is recognised as the same event.
    messageId: `${execution.id}:created`,
    type: 'execution.created',
    occurredAt: now.toISOString(),
    correlationId: execution.id,
    payload: {
      tenantId,
      executionId: execution.id,
      namespace: execution.namespace,
      flowId: execution.flowId,
      flowRevision: execution.flowRevision,
      inputs: (execution.inputs ?? {}) as Record<string, unknown>,
      labels: execution.labels ?? {},
    },
  };
}
