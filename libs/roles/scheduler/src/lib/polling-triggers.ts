import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { renderTemplate } from '@lanner/expressions';
import {
  decodeQueueMessage,
  encodeQueueMessage,
  jobMessageId,
  QUEUE_SCHEMA_VERSIONS,
  triggerResultCodec,
  workerJobCodec,
  workerJobsTopic,
  type WorkerJobMessage,
} from '@lanner/frames';
import {
  CORRELATION_ID_LABEL,
  decidePoll,
  httpPollOutcomeOf,
  httpPollVariables,
  type Flow,
  type HttpPollingTrigger,
  type NewExecution,
  type StoredJson,
  type TriggerStateRecord,
  type WorkerSelectorSpec,
} from '@lanner/model';
import type { QueueMessage, QueuePort, QueueSubscription } from '@lanner/queue';
import { CONNECTED_WORKER_STALE_MS, type Repositories } from '@lanner/repository';
import {
  availabilitySnapshot,
  expressionTagRenderer,
  resolveSelector,
  WorkerQueueIndex,
  WorkerQueueResolver,
  type WorkerSelector,
} from '@lanner/worker-selector';
import { TRIGGER_LABEL } from './scheduled-execution';

export type PollingSources = Pick<
  Repositories,
  'triggers' | 'workerQueues' | 'workerGroups' | 'connectedWorkers' | 'namespaces' | 'tenants'
>;

export interface PollingOptions {
  /** How long a worker may take to answer one poll (the job's timeout, and its deadline on the queue). */
  readonly pollTimeoutMs: number;
  readonly topicPrefix: string;
}

/** One evaluation sent to a worker and not answered yet. */
interface InFlight {
  readonly row: TriggerStateRecord;
  readonly flow: Flow;
  readonly revision: number;
  readonly trigger: HttpPollingTrigger;
  /** When its lease ends: an answer after that is not waited for (another evaluation may have started). */
  readonly until: Date;
}

/**
 * The polling triggers (`io.kestra.plugin.core.http.Trigger`): the scheduler
 * claims a due one like a schedule, and instead of firing it sends a poll job
 * to the worker queue its `workerSelector` (else its flow's, namespace's,
 * tenant's) picks, keeping the trigger leased until the answer comes back (or
 * the poll's time is up), so a trigger is never evaluated twice at once. The
 * worker calls the endpoint and renders `responseCondition`; a controller
 * relays the outcome on `lanner.trigger-results`, which each scheduler reads
 * in its own consumer group, keeping the answers to its own polls. A poll whose
 * condition held creates one execution with the response in `trigger.*`, in the
 * same transaction that moves the trigger to its next date (one interval
 * later). While the last execution it started runs, the trigger is not polled.
 */
export class PollingTriggers {
  private readonly logger = new Logger(PollingTriggers.name);
  private readonly inFlight = new Map<string, InFlight>();
  private subscription: QueueSubscription | undefined;
  private joining: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly sources: PollingSources,
    private readonly queue: QueuePort,
    private readonly options: PollingOptions,
    private readonly holder: string,
    /** Announces executions it created, as the schedules' do. */
    private readonly announce: (tenantId: string, executions: readonly NewExecution[], now: Date) => Promise<void>,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Joins `lanner.trigger-results` in this scheduler's own group, in the
   * background (joining a Kafka group takes seconds, which the schedules do not
   * wait for); no poll is sent before it has joined, so every answer is read.
   */
  start(): void {
    this.joining ??= this.join();
  }

  private async join(): Promise<void> {
    while (!this.stopped) {
      try {
        const subscription = await this.queue.subscribe({
          groupId: `lanner-scheduler-${this.holder}`,
          topics: [`${this.options.topicPrefix}${triggerResultCodec.topic}`],
          handler: (message) => this.answered(message),
        });
        if (this.stopped) {
          await subscription.close();
          return;
        }
        this.subscription = subscription;
        return;
      } catch (error) {
        this.logger.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          `trigger results not followed; polling triggers wait; trying again in ${JOIN_RETRY_MS} ms`,
        );
        await new Promise((resolve) => setTimeout(resolve, JOIN_RETRY_MS));
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.joining;
    await this.subscription?.close();
    this.subscription = undefined;
    this.inFlight.clear();
  }

  /** Polls in flight from this scheduler. */
  get pending(): number {
    return this.inFlight.size;
  }

  /** A claimed polling trigger of the flow's latest revision. */
  async evaluate(row: TriggerStateRecord, flow: Flow, revision: number, trigger: HttpPollingTrigger, now: Date): Promise<void> {
    const triggers = this.sources.triggers;
    if (this.subscription === undefined) {
      // Not following the answers yet: a poll sent now could never fire.
      await triggers.advance(row, this.holder, { nextDate: new Date(now.getTime() + NOT_FOLLOWING_RETRY_MS), executions: [] });
      return;
    }
    const later = new Date(now.getTime() + trigger.intervalMs);
    const decision = decidePoll(trigger, row.lastExecutionState ?? undefined, now);
    if (decision.action === 'STOP') {
      await triggers.advance(row, this.holder, { nextDate: null, executions: [], disable: true });
      return;
    }
    if (decision.action === 'WAIT') {
      await triggers.advance(row, this.holder, { nextDate: decision.nextDate, executions: [] });
      return;
    }
    const queueId = await this.route(row.tenantId, flow, trigger, now);
    const job = queueId === undefined ? undefined : this.pollJob(row, flow, trigger, queueId, now);
    if (queueId === undefined || job === undefined) {
      await triggers.advance(row, this.holder, { nextDate: later, executions: [] });
      return;
    }
    // Leased for the time the poll may wait on its queue and then run, plus a margin.
    const until = new Date(now.getTime() + 2 * this.options.pollTimeoutMs + 5000);
    if (!(await triggers.holdLease(row, this.holder, until))) return;
    for (const [id, sent] of this.inFlight) if (sent.until <= now) this.inFlight.delete(id);
    this.inFlight.set(job.payload.taskRunId, { row, flow, revision, trigger, until });
    try {
      await this.queue.publish(`${this.options.topicPrefix}${workerJobsTopic(queueId)}`, [
        encodeQueueMessage(workerJobCodec, job),
      ]);
    } catch (error) {
      this.inFlight.delete(job.payload.taskRunId);
      throw error;
    }
  }

  private pollJob(
    row: TriggerStateRecord,
    flow: Flow,
    trigger: HttpPollingTrigger,
    queueId: string,
    now: Date,
  ): WorkerJobMessage | undefined {
    // The request's templates read the flow; secret() calls are resolved on the worker.
    const context = { flow: { id: flow.id, namespace: flow.namespace, tenantId: row.tenantId } };
    const render = (property: string, template: string): string => {
      try {
        return renderTemplate(template, context, { now });
      } catch (error) {
        throw new PollNotSent(`triggers.${trigger.id}.${property}: ${error instanceof Error ? error.message : String(error)}`);
      }
    };
    let definition: Record<string, StoredJson>;
    try {
      definition = {
        id: trigger.id,
        uri: render('uri', trigger.uri),
        method: trigger.method,
        responseCondition: trigger.responseCondition ?? '{{ response.statusCode < 400 }}',
        ...(trigger.headers !== undefined
          ? {
              headers: Object.fromEntries(
                Object.entries(trigger.headers).map(([name, value]) => [name, render(`headers.${name}`, value)]),
              ),
            }
          : {}),
        ...(trigger.body !== undefined ? { body: render('body', trigger.body) } : {}),
        ...(trigger.contentType !== undefined ? { contentType: render('contentType', trigger.contentType) } : {}),
      };
    } catch (error) {
      if (!(error instanceof PollNotSent)) throw error;
      this.logger.warn(
        { namespace: row.namespace, flowId: row.flowId, triggerId: row.triggerId, reason: error.message },
        'polling trigger not evaluated: a property does not render',
      );
      return undefined;
    }
    const evaluationId = `poll-${randomUUID()}`;
    return {
      schemaVersion: QUEUE_SCHEMA_VERSIONS['worker.job'],
      messageId: jobMessageId(evaluationId, 1),
      type: 'worker.job',
      occurredAt: now.toISOString(),
      correlationId: evaluationId,
      payload: {
        tenantId: row.tenantId,
        executionId: evaluationId,
        taskRunId: evaluationId,
        attempt: 1,
        workerQueueId: queueId,
        namespace: row.namespace,
        flowId: row.flowId,
        taskId: trigger.id,
        taskType: trigger.type,
        taskDefinition: definition,
        timeoutMs: this.options.pollTimeoutMs,
        deadline: new Date(now.getTime() + this.options.pollTimeoutMs).toISOString(),
        triggerEvaluation: true,
      },
    };
  }

  /** The worker queue of the poll, as a task's is chosen; undefined (logged) when none can take it. */
  private async route(tenantId: string, flow: Flow, trigger: HttpPollingTrigger, now: Date): Promise<string | undefined> {
    const own = trigger.workerSelector ?? flow.workerSelector;
    const [queues, groups, workers, namespaces, tenantSelector] = await Promise.all([
      this.sources.workerQueues.list(),
      this.sources.workerGroups.list(),
      this.sources.connectedWorkers.listLive(new Date(now.getTime() - CONNECTED_WORKER_STALE_MS)),
      this.sources.namespaces.listWorkerSelectors(tenantId),
      this.sources.tenants.getWorkerSelector(tenantId),
    ]);
    const resolved = resolveSelector({
      task: own === undefined ? null : toWorkerSelector(own),
      namespace: flow.namespace,
      namespaces: new Map(namespaces.map((entry) => [entry.namespace, entry.workerSelector as unknown as WorkerSelector])),
      tenant: tenantSelector === null ? null : (tenantSelector as unknown as WorkerSelector),
    });
    const resolver = new WorkerQueueResolver(
      WorkerQueueIndex.build(queues.map((queue) => ({ id: queue.id, tags: queue.tags, allowedTenants: queue.allowedTenants }))),
      expressionTagRenderer(now),
    );
    const decision = resolver.resolve(
      resolved.selector,
      { tenant: tenantId, variables: { flow: { id: flow.id, namespace: flow.namespace } } },
      availabilitySnapshot({
        subscriptions: groups.flatMap((group) =>
          group.subscriptions.map((subscription) => ({ groupId: group.id, workerQueueId: subscription.workerQueueId })),
        ),
        workers: workers.map((worker) => ({
          workerId: worker.workerId,
          groupId: worker.workerGroupId,
          draining: worker.draining,
        })),
      }),
    );
    if (decision.queueId !== null && (decision.action === 'DISPATCH' || decision.action === 'WAIT_AND_DISPATCH')) {
      return decision.queueId;
    }
    this.logger.warn(
      { namespace: flow.namespace, flowId: flow.id, triggerId: trigger.id, reason: decision.reason },
      'polling trigger not evaluated: no worker queue takes it; trying again in one interval',
    );
    return undefined;
  }

  /** A worker's answer to one of this scheduler's polls (answers to other schedulers' polls are skipped). */
  private async answered(message: QueueMessage): Promise<void> {
    let result;
    try {
      result = decodeQueueMessage(triggerResultCodec, message.value);
    } catch (error) {
      this.logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'trigger result dropped');
      return;
    }
    const { payload } = result;
    const sent = this.inFlight.get(payload.taskRunId);
    if (sent === undefined) return;
    this.inFlight.delete(payload.taskRunId);
    const { row, flow, revision, trigger } = sent;
    const now = this.clock();
    const outcome = payload.state === 'SUCCESS' ? httpPollOutcomeOf(payload.outputs) : undefined;
    if (outcome === undefined) {
      this.logger.warn(
        {
          namespace: row.namespace,
          flowId: row.flowId,
          triggerId: row.triggerId,
          reason: payload.errorMessage ?? `the poll ended ${payload.state}`,
        },
        'polling trigger evaluation failed; polling again in one interval',
      );
    }
    const executions = outcome?.fire === true ? [polledExecution(flow, revision, trigger, httpPollVariables(outcome), now)] : [];
    const { written } = await this.sources.triggers.advance(row, this.holder, {
      nextDate: new Date(now.getTime() + trigger.intervalMs),
      executions,
      ...(executions.length > 0 ? { lastDate: now } : {}),
    });
    if (written && executions.length > 0) await this.announce(row.tenantId, executions, now);
  }
}

class PollNotSent extends Error {}

const JOIN_RETRY_MS = 2000;
/** How soon a polling trigger due before this scheduler follows the answers is looked at again. */
const NOT_FOLLOWING_RETRY_MS = 1000;

function toWorkerSelector(spec: WorkerSelectorSpec): WorkerSelector {
  return { tags: [...spec.tags], match: spec.match, ...(spec.fallback !== undefined ? { fallback: spec.fallback } : {}) };
}

/** The execution a poll whose condition held starts: labelled with the trigger, the response in `trigger.*`. */
export function polledExecution(
  flow: Flow,
  revision: number,
  trigger: HttpPollingTrigger,
  variables: Record<string, unknown>,
  now: Date,
  id: string = randomUUID(),
): NewExecution {
  return {
    id,
    namespace: flow.namespace,
    flowId: flow.id,
    flowRevision: revision,
    state: 'CREATED',
    stateHistories: [{ state: 'CREATED', date: now }],
    inputs: {},
    labels: { ...flow.labels, [TRIGGER_LABEL]: trigger.id, [CORRELATION_ID_LABEL]: id },
    trigger: { id: trigger.id, type: trigger.type, variables: variables as StoredJson },
  };
}
