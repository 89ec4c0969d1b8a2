import { Logger } from '@nestjs/common';
import { ExpressionError } from '@lanner/expressions';
import {
  broadcastCodec,
  encodeExecutionUpdate,
  encodeQueueMessage,
  executorEventCodec,
  InvalidQueueMessageError,
  jobMessageId,
  MAX_CARRIED_EXECUTION_BYTES,
  QUEUE_SCHEMA_VERSIONS,
  type EncodedQueueMessage,
  type ExecutorEvent,
} from '@lanner/frames';
import {
  parseFlow,
  TASK_TYPES,
  type ExecutionRecord,
  type ExecutionWithTaskRuns,
  type Flow,
  type FlowRevisionRecord,
  type StoredJson,
} from '@lanner/model';
import type { QueuePort } from '@lanner/queue';
import {
  AlreadyExists,
  ConcurrentModification,
  FlowNotFound,
  NotFound,
  type ConcurrencyAdmission,
  type ExecutorGroupWriteOutcome,
  type ExecutorStateRecord,
  type Repositories,
} from '@lanner/repository';
import {
  acceptsRestart,
  createExecution,
  IllegalTransition,
  isTerminal,
  next,
  quarantineExecution,
  renderContextFor,
  replayExecution,
  replayOrigin,
  ReplayRefused,
  startSubflowChild,
  taskById,
  type Execution,
  type ExecutionAction,
  type ExecutionEvent,
  type JsonObject,
  type ParentExecutionRef,
  UnknownTask,
} from '@lanner/state-machine';
import { ExecutionCache } from './execution-cache';
import { executorStateWrite } from './execution-records';
import { loadStoredExecution, NewerStoredState, UnreadableStoredState } from './stored-state';
import {
  EXECUTION_START_TIMER_KIND,
  executionStartTimerId,
  isExecutionStartTimer,
  toExecutionEvent,
  UnusableExecutorEvent,
} from './execution-events';
import type { ExecutorOptions } from './executor-options';
import { retryOrigin, retryTrigger, triggerVariables } from './retry-execution';
import { FlowTriggers } from './flow-triggers';
import { waitsForMaintenance } from './maintenance-hold';
import { encodeWorkerJob, JobTooLarge, renderTaskForWorker, UnstorableJob } from './worker-job';
import { WorkerQueueRouting } from './worker-queue-routing';

/** A message names an execution or flow this executor cannot load; it is logged and skipped. */
class MissingExecutionData extends Error {}

/**
 * A child announces its end before its executor stores that end (the announce
 * is an action of the step, the store comes after the step): read too early,
 * the child's stored state is the one before it ended. The message is retried
 * (the queue's backoff), by then the end is stored.
 */
class ChildEndNotStoredYet extends Error {}

/** An execution the executor creates: a subflow's child or a CREATE_NEW_EXECUTION retry. */
interface NewChildExecution {
  readonly id: string;
  readonly flow: FlowRevisionRecord;
  readonly inputs: JsonObject;
  readonly labels: Readonly<Record<string, string>>;
  readonly trigger?: StoredJson;
  readonly parent?: { executionId: string; taskRunId: string };
}

/** Guards against a state-machine bug feeding the executor its own events forever. */
const MAX_EVENTS_PER_MESSAGE = 10_000;

type DispatchAction = Extract<ExecutionAction, { type: 'dispatch' }>;

/** Records to produce, by topic. */
type Outbox = Map<string, EncodedQueueMessage[]>;

/** The work on one execution (one message's, or a batch's events of it): the value read, the value reached, what it emits. */
interface Unit {
  readonly tenantId: string;
  readonly flow: Flow;
  readonly stored: Execution;
  /** The row version read; the write names it (optimistic concurrency). */
  readonly storedVersion: number;
  current: Execution;
  /** The message being applied: what the records it emits carry. */
  correlationId?: string;
  /** A replay that cannot be made (its original changed since the API checked it): it ends FAILED with this. */
  readonly refusedReplay?: string;
  /** The cache generation when the execution was loaded (see ExecutionCache). */
  readonly generation: number;
  /** Produced before the write: jobs, kills, executor events (each idempotent on its id). */
  readonly outbox: Outbox;
  /** Produced after the write: the execution update, the starts a freed concurrency slot allows. */
  readonly afterStore: Outbox;
}

/** One execution's events of a batch and the unit that applied them. */
interface Applied {
  readonly unit: Unit;
  readonly events: readonly ExecutorEvent[];
}

/**
 * Applies `lanner.executor` messages to executions: load, `next`, carry out
 * the actions (which may feed events back), store, announce.
 *
 * Order, for restart safety: the actions' side effects (jobs, timers, kills,
 * child executions) happen before the state is stored, and the message is
 * committed only after both. A crash in between redelivers the message, which
 * the state machine turns into the same actions again, and every side effect is
 * idempotent on its id (job `taskRunId:attempt`, timer id, child execution id).
 */
export class ExecutionProcessor {
  private readonly logger = new Logger(ExecutionProcessor.name);
  private readonly routing: WorkerQueueRouting;
  private readonly flows = new Map<string, Flow>();
  private readonly ensuredTopics = new Set<string>();
  private readonly flowTriggers: FlowTriggers;
  private readonly cache: ExecutionCache;

  constructor(
    private readonly repositories: Repositories,
    private readonly queue: QueuePort,
    private readonly options: ExecutorOptions,
    private readonly clock: () => number = Date.now,
  ) {
    this.routing = new WorkerQueueRouting(repositories, options.routingRefresh, clock);
    this.flowTriggers = new FlowTriggers(
      repositories,
      async (tenantId, namespace, flowId, revision) => {
        try {
          return await this.flow(tenantId, namespace, flowId, revision);
        } catch (error) {
          // Deleted since the trigger was listed, or no longer parsing: that flow listens to nothing.
          if (error instanceof MissingExecutionData) return undefined;
          throw error;
        }
      },
      clock,
      options.flowTriggerIndexTtlMs,
    );
    for (const topic of options.topics.ensured) this.ensuredTopics.add(topic);
    this.cache = new ExecutionCache(options.cachedExecutions);
  }

  /** A flow of the tenant was saved or deleted, or a trigger of it enabled or disabled (`broadcast.flows-changed`). */
  flowsChanged(tenantId: string): void {
    this.flowTriggers.flowsChanged(tenantId);
  }

  /** Changes of flows may have been missed (the broadcast was not followed yet): every tenant's are read again. */
  forgetFlowTriggers(): void {
    this.flowTriggers.forgetListening();
  }

  /** The member's partitions changed: every execution is read again before its next event (see ExecutionCache). */
  forgetCachedExecutions(): void {
    this.cache.forgetAll();
  }

  /**
   * Applies a batch of one partition's messages together: each execution's
   * events one after the other on its value (from memory, else read with the
   * others missing), then one produce for what they all emit, one group write of
   * every execution changed, one produce of their updates. Answers the events
   * left for `process`, one by one: those of an execution whose work failed here
   * (an error `process` knows how to handle: log, retry, park) or whose write
   * found a newer version stored (its entry is dropped, so `process` reads it
   * again), and all of them when the produce or the group write failed (one
   * execution's data may be what the queue or the database refuses). Throws
   * only when what follows the write fails: the batch is delivered again, and
   * its stored events change nothing.
   */
  async processBatch(events: readonly ExecutorEvent[]): Promise<ExecutorEvent[]> {
    const byExecution = new Map<string, ExecutorEvent[]>();
    for (const event of events) {
      const id = `${event.payload.tenantId}\u0000${event.payload.executionId}`;
      const list = byExecution.get(id);
      if (list === undefined) byExecution.set(id, [event]);
      else list.push(event);
    }
    const applied: Applied[] = [];
    const left: ExecutorEvent[] = [];
    // A new execution the api announced with its row starts from it (see `carriedRow`); the other executions
    // not in memory are read together, with the maintenance flag (see `waitsForMaintenance`).
    const carried = new Map<string, ExecutorStateRecord>();
    for (const list of byExecution.values()) {
      const { tenantId, executionId } = list[0].payload;
      if (this.cache.get(tenantId, executionId) !== undefined) continue;
      const row = carriedRow(list);
      if (row !== undefined) carried.set(executionId, row);
    }
    const misses = [...byExecution.values()]
      .map((list) => list[0].payload)
      .filter(({ tenantId, executionId }) => this.cache.get(tenantId, executionId) === undefined && !carried.has(executionId));
    let read = new Map<string, ExecutorStateRecord>();
    /** Undefined when nothing was read (every execution is in memory) or the read failed. */
    let maintenance: boolean | undefined;
    if (misses.length > 0) {
      try {
        ({ states: read, maintenance } = await this.repositories.executions.getExecutorStatesAndMaintenance(misses));
      } catch {
        // One execution's ids may be what the database refuses: each is read on its own below, and fails on its own.
      }
    }
    for (const all of byExecution.values()) {
      const { tenantId, executionId } = all[0].payload;
      const found = carried.get(executionId) ?? read.get(executionId);
      const row = found?.execution.tenantId === tenantId ? found : undefined;
      let list = all;
      if (
        !carried.has(executionId) &&
        all.some((event) => event.type === 'execution.created') &&
        this.cache.get(tenantId, executionId) === undefined
      ) {
        // Its maintenance hold is decided one by one when the batch's read failed.
        if (maintenance === undefined) {
          left.push(...all);
          continue;
        }
        if (waitsForMaintenance(maintenance, row)) {
          this.logger.log({ tenantId, executionId }, 'maintenance mode: new execution waits until it ends');
          list = all.filter((event) => event.type !== 'execution.created');
          if (list.length === 0) continue;
        }
      }
      let unit: Unit | undefined;
      try {
        unit = await this.load(list[0], row);
        // Rare paths stay on their own: a replay refused, a state that cannot be read here.
        if (unit.refusedReplay === undefined) {
          for (const event of list) await this.applyMessage(unit, event);
        }
      } catch {
        unit = undefined;
      }
      if (unit === undefined || unit.refusedReplay !== undefined) {
        this.cache.drop(tenantId, executionId);
        left.push(...list);
      } else applied.push({ unit, events: list });
    }
    const changed = applied.filter(({ unit }) => unit.current !== unit.stored);
    let outcomes: Map<string, ExecutorGroupWriteOutcome>;
    let readBack: Map<string, ExecutionWithTaskRuns>;
    try {
      await this.produce(applied.map(({ unit }) => unit.outbox));
      ({ outcomes, readBack } = await this.repositories.executions.storeExecutorStates(
        changed.map(({ unit }) => ({
          tenantId: unit.tenantId,
          executionId: unit.current.id,
          expectedVersion: unit.storedVersion,
          write: executorStateWrite(unit.stored, unit.current),
          // An ended execution comes back as the repository reads it, for its update to carry.
          ...(isTerminal(unit.current.state) ? { readBackUpTo: MAX_CARRIED_EXECUTION_BYTES } : {}),
        })),
      ));
    } catch {
      // One execution's records or data may be what the queue or the database refuses: nothing of the batch is
      // stored, and each execution goes on its own, one event at a time, where what fails fails alone (retried,
      // or parked as a dead letter) and what was produced already is produced again under the same ids.
      for (const { unit, events: list } of applied) {
        this.cache.drop(unit.tenantId, unit.current.id);
        left.push(...list);
      }
      return left;
    }
    const settled: Unit[] = [];
    for (const { unit, events: list } of applied) {
      const outcome = unit.current === unit.stored ? 'unchanged' : outcomes.get(unit.current.id);
      if (outcome === 'stored' || outcome === 'unchanged') {
        this.keep(unit);
        if (outcome === 'stored') this.announce(unit, readBack.get(unit.current.id));
        settled.push(unit);
      } else {
        // Another writer got there first, or the row is gone: `process` reads it again and says what happened.
        this.cache.drop(unit.tenantId, unit.current.id);
        if (outcome === 'conflict') {
          this.logger.warn(
            { executionId: unit.current.id, events: list.length },
            'execution changed concurrently; applying its events again',
          );
        }
        left.push(...list);
      }
    }
    for (const unit of settled) await this.afterStored(unit);
    await this.produce(settled.map((unit) => unit.afterStore));
    return left;
  }

  /** Handles one validated message; throws only for failures worth retrying (database, queue). */
  async process(message: ExecutorEvent): Promise<void> {
    const { tenantId, executionId } = message.payload;
    try {
      try {
        await this.processOnce(message);
      } catch (error) {
        if (!(error instanceof ConcurrentModification)) throw error;
        // Another writer stored the execution in between (rare: one partition owner): apply on what it stored.
        this.cache.drop(tenantId, executionId);
        this.logger.warn({ executionId, messageType: message.type }, 'execution changed concurrently; applying the event again');
        await this.processOnce(message);
      }
    } catch (error) {
      this.cache.drop(tenantId, executionId);
      // Retrying these could never succeed and would hold every later message of the partition:
      // the execution stops where it is and the log says why. (State-machine errors are bugs to fix.)
      if (
        error instanceof MissingExecutionData ||
        error instanceof UnreadableStoredState ||
        error instanceof NotFound ||
        error instanceof UnusableExecutorEvent ||
        error instanceof IllegalTransition ||
        error instanceof UnknownTask
      ) {
        this.logger.error(
          { tenantId, executionId, messageType: message.type, messageId: message.messageId, reason: error.message },
          'executor event skipped',
        );
        return;
      }
      throw error;
    }
  }

  private async processOnce(message: ExecutorEvent): Promise<void> {
    const unit = await this.load(message);
    if (unit.refusedReplay !== undefined) {
      const result = quarantineExecution(unit.current, unit.refusedReplay, this.clock());
      unit.current = result.execution;
      for (const action of result.actions) await this.perform(unit, action);
      await this.settle(unit);
      return;
    }
    await this.applyMessage(unit, message);
    await this.settle(unit);
  }

  /** The message's event and every event its actions feed back, applied to the unit's value. */
  private async applyMessage(unit: Unit, message: ExecutorEvent): Promise<void> {
    unit.correlationId = message.correlationId;
    const first = await this.firstEvent(message, unit);
    const pending: ExecutionEvent[] = first === undefined ? [] : [first];
    let applied = 0;
    while (pending.length > 0) {
      if (++applied > MAX_EVENTS_PER_MESSAGE)
        throw new UnusableExecutorEvent(
          `more than ${MAX_EVENTS_PER_MESSAGE} events for one message of execution ${unit.current.id}`,
        );
      const event = pending.shift() as ExecutionEvent;
      const result = next(unit.flow, unit.current, event, this.clock(), this.options.environment);
      unit.current = result.execution;
      for (const action of result.actions) {
        const feedback = await this.perform(unit, action);
        if (feedback !== undefined) pending.push(feedback);
      }
    }
  }

  /**
   * Ends an execution the crash guard quarantined: FAILED with `reason`, its
   * jobs and child executions killed, nothing of its flow evaluated. An ended
   * or unknown execution is left as it is.
   */
  async quarantine(tenantId: string, executionId: string, reason: string): Promise<void> {
    let unit: Unit;
    try {
      unit = await this.load({ payload: { tenantId, executionId } });
    } catch (error) {
      if (error instanceof NotFound || error instanceof MissingExecutionData) return;
      if (error instanceof NewerStoredState || error instanceof UnreadableStoredState) {
        // Not this executor's to end: a newer one reads it, or no one can.
        this.logger.error(
          { tenantId, executionId, reason: error.message },
          'execution not quarantined: its stored state is not readable here',
        );
        return;
      }
      throw error;
    }
    const result = quarantineExecution(unit.current, reason, this.clock());
    unit.current = result.execution;
    for (const action of result.actions) await this.perform(unit, action);
    await this.settle(unit);
  }

  /** Produces what a unit of work emits, stores what it changed and announces it. */
  private async settle(unit: Unit): Promise<void> {
    await this.produce([unit.outbox]);
    if (unit.current !== unit.stored) {
      await this.repositories.executions.storeExecutorState(
        unit.tenantId,
        unit.current.id,
        unit.storedVersion,
        executorStateWrite(unit.stored, unit.current),
      );
      this.announce(unit);
    }
    this.keep(unit);
    await this.afterStored(unit);
    await this.produce([unit.afterStore]);
  }

  /** The unit's value is what is stored now: kept for the execution's next event, unless it ended. */
  private keep(unit: Unit): void {
    this.cache.keep(
      { tenantId: unit.tenantId, flow: unit.flow, execution: unit.current },
      unit.generation,
      isTerminal(unit.current.state),
    );
  }

  private async afterStored(unit: Unit): Promise<void> {
    // Once an ended execution's end is stored, its concurrency slot is free. Done again for any later
    // message of the ended execution (a redelivery after a crash right after the store), so no slot is lost.
    if (isTerminal(unit.current.state) && unit.flow.concurrency !== undefined) await this.releaseConcurrencySlot(unit);
  }

  /** One produce for every record of the outboxes (one request per broker: the queue merges concurrent publishes). */
  private async produce(outboxes: readonly Outbox[]): Promise<void> {
    const byTopic: Outbox = new Map();
    for (const outbox of outboxes) {
      for (const [topic, records] of outbox) byTopic.set(topic, [...(byTopic.get(topic) ?? []), ...records]);
      outbox.clear();
    }
    await Promise.all([...byTopic].map(([topic, records]) => this.queue.publish(topic, records)));
  }

  // ---- Loading ---------------------------------------------------------------------

  private async load(
    message: {
      readonly payload: { readonly tenantId: string; readonly executionId: string };
      readonly correlationId?: string;
    },
    /** The row when it was read already (with others of a batch). */
    read?: ExecutorStateRecord,
  ): Promise<Unit> {
    const { tenantId, executionId } = message.payload;
    const generation = this.cache.generation;
    const outboxes = { outbox: new Map(), afterStore: new Map() };
    const cached = this.cache.get(tenantId, executionId);
    if (cached !== undefined) {
      return {
        tenantId,
        flow: cached.flow,
        stored: cached.execution,
        storedVersion: cached.execution.version,
        current: cached.execution,
        generation,
        ...outboxes,
        ...(message.correlationId !== undefined ? { correlationId: message.correlationId } : {}),
      };
    }
    const { execution: record, stateData } = read ?? (await this.repositories.executions.getExecutorState(tenantId, executionId));
    const flow = await this.flow(tenantId, record.namespace, record.flowId, record.flowRevision);
    let stored: Execution;
    let current: Execution | undefined;
    let refusedReplay: string | undefined;
    const replay = stateData === null ? replayOrigin(record.trigger) : undefined;
    if (stateData !== null) {
      stored = loadStoredExecution(executionId, stateData);
    } else if (replay !== undefined) {
      // A replay starts as a copy of what its original carried over; all of it is written with its first change.
      stored = createExecution(flow, { id: record.id, tenant: tenantId, labels: record.labels }, record.createdAt.getTime());
      const original = await this.repositories.executions.getExecutorState(tenantId, replay.executionId);
      if (original.stateData === null) refusedReplay = `Execution '${replay.executionId}' has no state to replay from`;
      else {
        try {
          current = replayExecution(flow, loadStoredExecution(replay.executionId, original.stateData), {
            id: record.id,
            ...(replay.taskRunId !== undefined ? { taskRunId: replay.taskRunId } : {}),
            now: record.createdAt.getTime(),
          });
        } catch (error) {
          if (!(error instanceof ReplayRefused)) throw error;
          refusedReplay = error.message;
        }
      }
    } else {
      // Created by the API (or as a child by this executor): the state machine's value starts here.
      stored = createExecution(
        flow,
        {
          id: record.id,
          tenant: tenantId,
          inputs: (record.inputs ?? {}) as JsonObject,
          labels: record.labels,
          ...retryOrigin(record.trigger),
          ...triggerVariables(record.trigger),
          ...(record.parentExecutionId !== null && record.parentTaskRunId !== null
            ? { parent: await this.parentRef(tenantId, record.parentExecutionId, record.parentTaskRunId) }
            : {}),
        },
        record.createdAt.getTime(),
      );
    }
    // The row's version is the one writes name; should another writer have bumped it, the state machine counts on from there.
    if (stored.version !== record.version) stored = { ...stored, version: record.version };
    return {
      tenantId,
      flow,
      stored,
      storedVersion: record.version,
      current: current === undefined ? stored : { ...current, version: stored.version },
      generation,
      ...outboxes,
      ...(message.correlationId !== undefined ? { correlationId: message.correlationId } : {}),
      ...(refusedReplay !== undefined ? { refusedReplay } : {}),
    };
  }

  /**
   * The state machine's event for the message. `execution.created` (and the start
   * timer of a retry execution) asks for the execution to start: under a flow
   * concurrency limit it takes a slot first or waits in QUEUED; a QUEUED execution
   * asked again starts once it gets one (`concurrency-slot-freed`). Undefined
   * when there is nothing to apply.
   */
  private async firstEvent(message: ExecutorEvent, unit: Unit): Promise<ExecutionEvent | undefined> {
    if (message.type === 'execution.restart') return this.restartEvent(message, unit);
    if (message.type === 'subflow.ended') return this.subflowEndedEvent(message, unit);
    const startRequest =
      message.type === 'execution.created' || (message.type === 'timer.fired' && isExecutionStartTimer(message.payload.timerId));
    if (!startRequest) return toExecutionEvent(message);
    const state = unit.current.state;
    const concurrency = unit.flow.concurrency;
    if (state !== 'CREATED' && state !== 'QUEUED') return undefined; // started already: a redelivery
    if (concurrency === undefined) return state === 'CREATED' ? { type: 'created' } : { type: 'concurrency-slot-freed' };
    const admitted = await this.repositories.executions.admitUnderConcurrencyLimit(
      unit.tenantId,
      this.admission(unit, concurrency),
    );
    if (state === 'QUEUED') return admitted ? { type: 'concurrency-slot-freed' } : undefined;
    return { type: 'created', runningExecutions: admitted ? 0 : concurrency.limit };
  }

  /**
   * A restart under a flow concurrency limit asks for a slot as a new execution
   * does (same admission, same lock and count), so a restarted execution never
   * runs beside the limit's worth of others: refused, the state machine queues,
   * cancels or fails it per `behavior`. A restart that does not apply (not ended,
   * or a late duplicate) goes to the state machine as it is, which ignores it,
   * and never touches a slot.
   */
  private async restartEvent(
    message: Extract<ExecutorEvent, { type: 'execution.restart' }>,
    unit: Unit,
  ): Promise<ExecutionEvent> {
    const expectedVersion = message.payload.expectedVersion;
    const event: ExecutionEvent = { type: 'restart-requested', ...(expectedVersion !== undefined ? { expectedVersion } : {}) };
    const concurrency = unit.flow.concurrency;
    if (concurrency === undefined || !acceptsRestart(unit.current, expectedVersion)) return event;
    const admitted = await this.repositories.executions.admitRestartUnderConcurrencyLimit(
      unit.tenantId,
      this.admission(unit, concurrency),
    );
    return { ...event, runningExecutions: admitted ? 0 : concurrency.limit };
  }

  /**
   * A child execution ended. For a Subflow with Kestra's deprecated `outputs`
   * map whose child flow declares no outputs, the event carries the ended
   * child's render context: the state machine renders the map against it.
   */
  private async subflowEndedEvent(
    message: Extract<ExecutorEvent, { type: 'subflow.ended' }>,
    unit: Unit,
  ): Promise<ExecutionEvent | undefined> {
    const event = toExecutionEvent(message);
    if (event?.type !== 'subflow-ended' || event.outputs !== undefined) return event;
    const run = unit.current.taskRuns.get(event.taskRunId);
    let task;
    try {
      task = run === undefined ? undefined : taskById(unit.flow, run.taskId);
    } catch (error) {
      if (error instanceof UnknownTask) return event;
      throw error;
    }
    if (task?.kind !== 'Subflow' || task.outputs === undefined) return event;
    try {
      const { execution: record, stateData } = await this.repositories.executions.getExecutorState(
        unit.tenantId,
        event.executionId,
      );
      if (stateData === null) return event;
      const childFlow = await this.flow(unit.tenantId, record.namespace, record.flowId, record.flowRevision);
      if (childFlow.outputs.length > 0) return event;
      const child = loadStoredExecution(event.executionId, stateData);
      if (!isTerminal(child.state)) {
        throw new ChildEndNotStoredYet(`child execution ${event.executionId} has announced its end but not stored it yet`);
      }
      return { ...event, childContext: renderContextFor(childFlow, child, undefined, this.options.environment) };
    } catch (error) {
      // A child that can no longer be read (deleted, its flow gone) still ends the task: without the map's outputs.
      if (error instanceof NotFound || error instanceof MissingExecutionData || error instanceof UnreadableStoredState) {
        this.logger.warn(
          { executionId: unit.current.id, childExecutionId: event.executionId, reason: error.message },
          'subflow outputs map not rendered: the child execution cannot be read',
        );
        return event;
      }
      throw error;
    }
  }

  /** What the repository needs to decide a slot of the flow's concurrency limit for this execution, now. */
  private admission(unit: Unit, concurrency: NonNullable<Flow['concurrency']>): ConcurrencyAdmission {
    return {
      namespace: unit.current.namespace,
      flowId: unit.current.flowId,
      executionId: unit.current.id,
      limit: concurrency.limit,
      queueWhenFull: concurrency.behavior === 'QUEUE',
      at: new Date(this.clock()),
    };
  }

  private async parentRef(tenantId: string, parentExecutionId: string, parentTaskRunId: string): Promise<ParentExecutionRef> {
    const { execution: parent } = await this.repositories.executions.getExecutorState(tenantId, parentExecutionId);
    return { executionId: parent.id, taskRunId: parentTaskRunId, namespace: parent.namespace, flowId: parent.flowId };
  }

  /** A stored revision never changes, so parsed flows are kept (bounded). */
  private async flow(tenantId: string, namespace: string, flowId: string, revision: number): Promise<Flow> {
    const key = JSON.stringify([tenantId, namespace, flowId, revision]);
    const cached = this.flows.get(key);
    if (cached !== undefined) return cached;
    let record: FlowRevisionRecord;
    try {
      record = await this.repositories.flows.getRevision(tenantId, namespace, flowId, revision);
    } catch (error) {
      if (error instanceof FlowNotFound) throw new MissingExecutionData(error.message);
      throw error;
    }
    const parsed = parseFlow(record.source);
    if (!parsed.ok) throw new MissingExecutionData(`flow ${namespace}.${flowId} revision ${revision} no longer parses`);
    const flow: Flow = { ...parsed.flow, revision: record.revision };
    if (this.flows.size >= 500) this.flows.delete(this.flows.keys().next().value as string);
    this.flows.set(key, flow);
    return flow;
  }

  // ---- Actions -----------------------------------------------------------------------

  /** Carries out one action; returns the event it feeds back, if any. */
  private async perform(unit: Unit, action: ExecutionAction): Promise<ExecutionEvent | undefined> {
    const execution = unit.current;
    switch (action.type) {
      case 'dispatch':
        return this.dispatch(unit, action);
      case 'kill-job':
        this.publish(unit.outbox, this.options.topics.broadcast, [
          encodeQueueMessage(broadcastCodec, {
            schemaVersion: QUEUE_SCHEMA_VERSIONS['broadcast.kill'],
            messageId: `${jobMessageId(action.taskRunId, action.attempt)}:kill`,
            type: 'broadcast.kill',
            occurredAt: this.nowIso(),
            ...this.correlation(unit),
            payload: {
              tenantId: unit.tenantId,
              executionId: execution.id,
              taskRunId: action.taskRunId,
              attempt: action.attempt,
              reason: 'execution killed',
            },
          }),
        ]);
        return undefined;
      case 'schedule-timer':
        await this.repositories.timers.schedule({
          id: action.timer.id,
          tenantId: unit.tenantId,
          executionId: execution.id,
          taskRunId: action.timer.taskRunId,
          kind: action.timer.kind,
          attempt: action.timer.attempt,
          dueAt: new Date(action.timer.at),
        });
        return undefined;
      case 'cancel-timer':
        await this.repositories.timers.cancel(action.timerId);
        return undefined;
      case 'start-subflow':
        return this.startSubflow(unit, action);
      case 'kill-subflow':
        this.publishExecutorEvent(unit.outbox, {
          schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.kill'],
          messageId: `${action.executionId}:kill-from-parent`,
          type: 'execution.kill',
          occurredAt: this.nowIso(),
          ...this.correlation(unit),
          payload: { tenantId: unit.tenantId, executionId: action.executionId, requestedBy: execution.id },
        });
        return undefined;
      case 'create-retry-execution':
        await this.createRetryExecution(unit, action);
        return undefined;
      case 'set-labels':
        // The labels are part of the execution value and stored with it.
        return undefined;
      case 'end':
        if (execution.parent !== undefined) await this.announceEndToParent(unit, execution.parent, action.state);
        await this.startFlowTriggers(unit);
        return undefined;
    }
  }

  private async dispatch(unit: Unit, action: DispatchAction): Promise<ExecutionEvent> {
    const execution = unit.current;
    const now = this.clock();
    const refused = (reason: string, state: 'FAILED' | 'CANCELLED' = 'FAILED', attemptFailed = false): ExecutionEvent => ({
      type: 'task-run-dispatch-refused',
      taskRunId: action.taskRunId,
      attempt: action.attempt,
      state,
      reason,
      ...(attemptFailed ? { attemptFailed } : {}),
    });
    try {
      const context = renderContextFor(unit.flow, execution, action.taskRunId, this.options.environment);
      let workerQueueId = action.workerQueueId;
      let waitingReason: string | undefined;
      let reason: string | undefined;
      if (workerQueueId === undefined) {
        const decision = await this.routing.route(
          { selector: action.selector, namespace: execution.namespace, tenant: unit.tenantId, variables: context },
          now,
        );
        if (decision.action === 'FAIL' || decision.action === 'CANCEL' || decision.queueId === null) {
          return refused(decision.reason, decision.action === 'CANCEL' ? 'CANCELLED' : 'FAILED');
        }
        workerQueueId = decision.queueId;
        if (decision.action === 'WAIT_AND_DISPATCH') waitingReason = decision.reason;
        // A plain match needs no words (the queue says it all); a fallback that routed elsewhere does.
        else if (decision.cause !== 'SERVED' && decision.cause !== 'NO_TAGS') reason = decision.reason;
        else if (decision.level === 'NAMESPACE' || decision.level === 'TENANT') reason = decision.reason;
      } else {
        // A re-dispatched job keeps its queue (Kestra #7730); it says so when no worker can take it now.
        waitingReason = await this.routing.waitingReason(workerQueueId, now);
      }
      const attempts = execution.taskRuns.get(action.taskRunId)?.attempts;
      const submittedAt = attempts?.find((attempt) => attempt.attempt === action.attempt)?.submittedAt ?? now;
      // The next attempt of a job whose worker was lost goes ahead of the queue's new work.
      const resubmitted = attempts?.find((attempt) => attempt.attempt === action.attempt - 1)?.state === 'RESUBMITTED';
      const job = encodeWorkerJob({
        execution,
        taskRunId: action.taskRunId,
        attempt: action.attempt,
        task: action.task,
        workerQueueId,
        taskDefinition: renderTaskForWorker(action.task, context, new Date(now), this.options.environment.random),
        now,
        // Once the executor's timeout fired, starting the job is pointless: a worker that takes it later refuses it.
        ...(action.task.timeoutMs !== undefined ? { deadline: submittedAt + action.task.timeoutMs } : {}),
        ...(unit.correlationId !== undefined ? { correlationId: unit.correlationId } : {}),
      });
      const topic = resubmitted
        ? this.options.topics.resubmittedJobs(workerQueueId)
        : this.options.topics.workerJobs(workerQueueId);
      await this.ensureTopic(topic);
      this.publish(unit.outbox, topic, [job]);
      return {
        type: 'task-run-queued',
        taskRunId: action.taskRunId,
        attempt: action.attempt,
        workerQueueId,
        ...(waitingReason !== undefined ? { waitingReason } : {}),
        ...(reason !== undefined ? { reason } : {}),
      };
    } catch (error) {
      // What the user must fix in the flow fails the task run with a message that says so.
      // It is a failed attempt, as in Kestra: the task's retry and allowFailure apply.
      if (error instanceof ExpressionError || error instanceof JobTooLarge || error instanceof UnstorableJob)
        return refused(error.message, 'FAILED', true);
      // A job the contract refuses (its problems name paths, never values) would be refused on every retry.
      if (error instanceof InvalidQueueMessageError) return refused(`the job could not be produced: ${error.message}`);
      throw error;
    }
  }

  private async startSubflow(
    unit: Unit,
    action: Extract<ExecutionAction, { type: 'start-subflow' }>,
  ): Promise<ExecutionEvent | undefined> {
    let child: FlowRevisionRecord;
    try {
      child =
        action.revision === undefined
          ? await this.repositories.flows.getLatest(unit.tenantId, action.namespace, action.flowId)
          : await this.repositories.flows.getRevision(unit.tenantId, action.namespace, action.flowId, action.revision);
    } catch (error) {
      if (!(error instanceof FlowNotFound)) throw error;
      this.logger.warn(
        { executionId: unit.current.id, taskRunId: action.taskRunId, reason: error.message },
        'subflow cannot start',
      );
      return { type: 'subflow-ended', taskRunId: action.taskRunId, executionId: action.executionId, state: 'FAILED' };
    }
    const start = startSubflowChild(await this.flow(unit.tenantId, child.namespace, child.flowId, child.revision), action);
    if (!start.ok) return start.refused;
    await this.createExecution(unit, {
      id: action.executionId,
      flow: child,
      inputs: start.inputs,
      labels: action.labels,
      // As Kestra records a Subflow's child: started by the task, the variables it reads as `trigger`.
      trigger: { id: action.trigger.taskId, type: TASK_TYPES.Subflow, variables: action.trigger },
      parent: { executionId: action.parent.executionId, taskRunId: action.parent.taskRunId },
    });
    return undefined;
  }

  /**
   * CREATE_NEW_EXECUTION: the new execution is created at once, in CREATED (users
   * see it and may kill it), and starts when its durable start timer fires at
   * the retry delay. Its row names the execution it retries and its attempt.
   */
  private async createRetryExecution(
    unit: Unit,
    action: Extract<ExecutionAction, { type: 'create-retry-execution' }>,
  ): Promise<void> {
    const flow = await this.repositories.flows.getRevision(
      unit.tenantId,
      unit.current.namespace,
      unit.current.flowId,
      unit.current.flowRevision,
    );
    await this.insertExecution(unit.tenantId, {
      id: action.executionId,
      flow,
      inputs: unit.current.inputs,
      labels: unit.current.labels,
      trigger: retryTrigger({
        retriedExecutionId: unit.current.id,
        originalExecutionId: action.originalExecutionId,
        retryAttempt: action.retryAttempt,
      }),
    });
    await this.repositories.timers.schedule({
      id: executionStartTimerId(action.executionId),
      tenantId: unit.tenantId,
      executionId: action.executionId,
      taskRunId: action.executionId,
      kind: EXECUTION_START_TIMER_KIND,
      attempt: action.retryAttempt,
      dueAt: new Date(action.at),
    });
  }

  /**
   * The execution ended: its flow's concurrency slot is free. The oldest QUEUED
   * executions the free slots admit are asked to start again (`execution.created`
   * once more: the admission runs under the flow's lock, so one that lost the slot
   * to a newer execution simply stays QUEUED until the next end).
   */
  private async releaseConcurrencySlot(unit: Unit): Promise<void> {
    const waiting = await this.repositories.executions.releaseConcurrencySlot(unit.tenantId, {
      namespace: unit.current.namespace,
      flowId: unit.current.flowId,
      executionId: unit.current.id,
      limit: unit.flow.concurrency?.limit ?? 0,
    });
    for (const queued of waiting) this.announceCreated(unit, queued, `${queued.id}:slot-freed-by:${unit.current.id}`);
  }

  private announceCreated(unit: Unit, execution: ExecutionRecord, messageId: string): void {
    this.publishExecutorEvent(unit.afterStore, {
      schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.created'],
      messageId,
      type: 'execution.created',
      occurredAt: this.nowIso(),
      ...this.correlation(unit),
      payload: {
        tenantId: execution.tenantId,
        executionId: execution.id,
        namespace: execution.namespace,
        flowId: execution.flowId,
        flowRevision: execution.flowRevision,
        inputs: (execution.inputs ?? {}) as Record<string, unknown>,
        labels: execution.labels,
      },
    });
  }

  /** Creates the row (idempotent on the id) and announces `execution.created` to its partition. */
  private async createExecution(unit: Unit, child: NewChildExecution): Promise<void> {
    const now = this.clock();
    await this.insertExecution(unit.tenantId, child);
    this.publishExecutorEvent(unit.outbox, {
      schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.created'],
      messageId: `${child.id}:created`,
      type: 'execution.created',
      occurredAt: new Date(now).toISOString(),
      ...this.correlation(unit),
      payload: {
        tenantId: unit.tenantId,
        executionId: child.id,
        namespace: child.flow.namespace,
        flowId: child.flow.flowId,
        flowRevision: child.flow.revision,
        inputs: child.inputs,
        labels: { ...child.labels },
      },
    });
  }

  /** The row in CREATED; one that exists already was created before a redelivery of this message. */
  private async insertExecution(tenantId: string, child: NewChildExecution): Promise<void> {
    try {
      await this.repositories.executions.create(tenantId, {
        id: child.id,
        namespace: child.flow.namespace,
        flowId: child.flow.flowId,
        flowRevision: child.flow.revision,
        state: 'CREATED',
        stateHistories: [{ state: 'CREATED', date: new Date(this.clock()) }],
        inputs: child.inputs as StoredJson,
        labels: { ...child.labels },
        ...(child.trigger !== undefined ? { trigger: child.trigger } : {}),
        parentExecutionId: child.parent?.executionId ?? null,
        parentTaskRunId: child.parent?.taskRunId ?? null,
      });
    } catch (error) {
      if (!(error instanceof AlreadyExists)) throw error;
    }
  }

  /**
   * The executions the Flow triggers listening to this ended execution start:
   * created once (see FlowTriggers), announced before the end is stored, so a
   * crash in between handles the end again and announces them again.
   */
  private async startFlowTriggers(unit: Unit): Promise<void> {
    const started = await this.flowTriggers.onEnd(unit.tenantId, unit.flow, unit.current);
    for (const execution of started) {
      this.publishExecutorEvent(unit.outbox, {
        schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.created'],
        messageId: `${execution.id}:created`,
        type: 'execution.created',
        occurredAt: this.nowIso(),
        ...this.correlation(unit),
        payload: {
          tenantId: unit.tenantId,
          executionId: execution.id,
          namespace: execution.namespace,
          flowId: execution.flowId,
          flowRevision: execution.flowRevision,
          inputs: execution.inputs,
          labels: execution.labels,
        },
      });
    }
  }

  private async announceEndToParent(unit: Unit, parent: ParentExecutionRef, state: string): Promise<void> {
    const outputs = unit.current.outputs;
    this.publishExecutorEvent(unit.outbox, {
      schemaVersion: QUEUE_SCHEMA_VERSIONS['subflow.ended'],
      messageId: `${unit.current.id}:ended:${state}`,
      type: 'subflow.ended',
      occurredAt: this.nowIso(),
      ...this.correlation(unit),
      payload: {
        tenantId: unit.tenantId,
        executionId: parent.executionId,
        taskRunId: parent.taskRunId,
        childExecutionId: unit.current.id,
        state,
        ...(outputs !== undefined ? { outputs } : {}),
      },
    });
  }

  /**
   * After every stored change: what the API follows for SSE and `?wait=true`; an ended
   * execution's carries it as stored (`stored`, read back by the write) when given.
   */
  private announce(unit: Unit, stored?: ExecutionWithTaskRuns): void {
    const execution = unit.current;
    this.publish(unit.afterStore, this.options.topics.executionUpdates, [
      encodeExecutionUpdate({
        schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.updated'],
        messageId: `${execution.id}:${execution.version}`,
        type: 'execution.updated',
        occurredAt: this.nowIso(),
        ...this.correlation(unit),
        payload: {
          tenantId: unit.tenantId,
          executionId: execution.id,
          namespace: execution.namespace,
          flowId: execution.flowId,
          state: execution.state,
          version: execution.version,
          ended: isTerminal(execution.state),
          ...(stored !== undefined && isTerminal(execution.state) ? { execution: stored } : {}),
        },
      }),
    ]);
  }

  // ---- Queue helpers -------------------------------------------------------------------

  private publishExecutorEvent(outbox: Outbox, message: ExecutorEvent): void {
    this.publish(outbox, this.options.topics.executor, [encodeQueueMessage(executorEventCodec, message)]);
  }

  /** Held in the outbox until the unit's produce (before or after its write, by outbox). */
  private publish(outbox: Outbox, topic: string, records: EncodedQueueMessage[]): void {
    const held = outbox.get(topic);
    if (held === undefined) outbox.set(topic, [...records]);
    else held.push(...records);
  }

  /** Queues other than `default` and `system` get their topic when created; make sure it exists anyway. */
  private async ensureTopic(topic: string): Promise<void> {
    if (this.ensuredTopics.has(topic)) return;
    await this.queue.createTopics([{ topic, partitions: this.options.partitions }]);
    this.ensuredTopics.add(topic);
  }

  private correlation(unit: Unit): { correlationId?: string } {
    return unit.correlationId !== undefined ? { correlationId: unit.correlationId } : {};
  }

  private nowIso(): string {
    return new Date(this.clock()).toISOString();
  }
}

/**
 * The row an `execution.created` of the batch carries (the api inserted it outside
 * maintenance mode, so no maintenance hold applies), as the executor would read it
 * before the execution first started: the execution starts from it without a read.
 * A redelivery after the execution moved on (a crash, a hand-over) is applied to this
 * row too: its write names the row's version, finds a newer one and is refused, and
 * the events go one by one on what is stored, where they change nothing; the jobs
 * produced before that write are of attempts already recorded, which the controller
 * does not send again.
 */
function carriedRow(events: readonly ExecutorEvent[]): ExecutorStateRecord | undefined {
  const created = events.find((event) => event.type === 'execution.created');
  if (created?.type !== 'execution.created') return undefined;
  const { tenantId, executionId, execution } = created.payload;
  if (execution === undefined || execution.id !== executionId || execution.tenantId !== tenantId) return undefined;
  const { taskRuns: _none, ...row } = execution;
  return { execution: row as ExecutionRecord, stateData: null };
}
