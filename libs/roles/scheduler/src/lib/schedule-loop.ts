import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { encodeQueueMessage, type ExecutorEvent, executorEventCodec } from '@lanner/frames';
import {
  BACKFILL_LABEL,
  delayToNextTick,
  evaluateSchedule,
  type Flow,
  type FlowRevisionRecord,
  type HttpPollingTrigger,
  type NewExecution,
  type ScheduleFiring,
  type ScheduleTrigger,
  stepBackfill,
  type TriggerStateRecord,
} from '@lanner/model';
import type { QueuePort } from '@lanner/queue';
import { flowKey, type Repositories, type TriggerAdvance } from '@lanner/repository';
import type { PollingTriggers } from './polling-triggers';
import { scheduledExecution } from './scheduled-execution';

import type { SchedulerOptions } from './scheduler-options';

const SCHEDULE_TYPE = 'io.kestra.plugin.core.trigger.Schedule';
const HTTP_POLLING_TYPE = 'io.kestra.plugin.core.http.Trigger';
/** A backfill steps once a second; its rate is `backfillPerSecond` dates per step. */
const BACKFILL_STEP_MS = 1000;
/** How long after each whole tick the loop looks: the due dates have passed by then. */
const TICK_OFFSET_MS = 2;

/**
 * The scheduler's loop: every tick it claims the due schedules (leased to
 * this scheduler, so another one never evaluates them at the same time),
 * evaluates each against the flow's latest revision, and writes the next
 * date with the executions it fired in one transaction, which succeeds only
 * if the row is still as claimed: each date fires once, whatever the number
 * of schedulers. Each execution is then announced to the executor as
 * `execution.created` (the same event the api sends).
 */
export class ScheduleLoop {
  private readonly logger = new Logger(ScheduleLoop.name);
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private tick: Promise<void> | undefined;
  private lastFailure: string | undefined;

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

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.tick;
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

  /** Claims and evaluates batches until a claim comes back short (nothing more due now). */
  private async drain(): Promise<void> {
    for (;;) {
      const now = this.clock();
      const claimed = await this.repositories.triggers.claimDue(this.holder, now, this.options.leaseMs, this.options.claimBatch);
      await this.evaluateBatch(claimed, now);
      if (claimed.length < this.options.claimBatch) return;
    }
  }

  /**
   * Evaluates claimed rows and writes them in one transaction (each row still
   * only if it is as claimed), then announces what was inserted in one publish.
   */
  private async evaluateBatch(claimed: readonly TriggerStateRecord[], now: Date): Promise<void> {
    // Each claimed row is evaluated against its flow's latest revision, all read in one statement.
    const flows = await this.repositories.flows.getLatestMany(claimed);
    const planned: { claimed: TriggerStateRecord; advance: TriggerAdvance }[] = [];
    const polls: { row: TriggerStateRecord; flow: Flow; revision: number; trigger: HttpPollingTrigger }[] = [];
    for (const row of claimed) {
      const record = flows.get(flowKey(row.tenantId, row.namespace, row.flowId));
      const flow = record?.definition as unknown as Flow | undefined;
      const trigger = flow?.triggers.find((candidate) => candidate.id === row.triggerId);
      if (record !== undefined && flow !== undefined && trigger?.kind === 'HttpPolling' && !flow.disabled && !trigger.disabled) {
        polls.push({ row, flow, revision: record.revision, trigger });
        continue;
      }
      const advance = this.evaluate(row, record, now);
      if (advance !== undefined) planned.push({ claimed: row, advance });
    }
    const outcomes = await this.repositories.triggers.advanceMany(this.holder, planned);
    const announced = outcomes.flatMap((outcome, index) =>
      outcome.inserted.map((execution) =>
        encodeQueueMessage(executorEventCodec, createdEvent(planned[index].claimed.tenantId, execution, now)),
      ),
    );
    if (announced.length > 0) await this.queue.publish(this.executorTopic, announced);
    // A poll is a job for a worker; the trigger stays leased until its answer.
    for (const poll of polls) await this.polling?.evaluate(poll.row, poll.flow, poll.revision, poll.trigger, now);
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
