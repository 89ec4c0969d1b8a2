import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { encodeQueueMessage, type ExecutorEvent, executorEventCodec } from '@lanner/frames';
import {
  coerceInputs,
  type ExecutionRecordState,
  type ExecutionWithTaskRuns,
  type RecordPage,
  type ExecutionRecord,
  type StoredJson,
} from '@lanner/model';
import type { QueuePort } from '@lanner/queue';
import type { Repositories } from '@lanner/repository';
import { QUEUE, REPOSITORIES } from '@lanner/runtime';
import { API_ROLE_OPTIONS, type ApiRoleOptions } from '../api-role.options';
import { API_TOPICS, type ApiTopics } from '../api-topics';
import { InvalidContent, WrongState } from '../http/api-errors';
import { FlowSourceParser } from '../flows/flow-source-parser';
import { ParsedFlowCache } from '../flows/parsed-flow-cache';
import { problemEntries } from '../flows/flows.service';
import { ExecutionUpdatesFeed } from './execution-updates.feed';
import { hasEnded } from './execution-view';

export interface NewExecutionRequest {
  readonly inputs: Record<string, unknown>;
  readonly labels: Record<string, string>;
  /** Inputs sent as file parts of a multipart request. */
  readonly fileInputs?: readonly string[];
}

export interface ExecutionSearch {
  readonly namespace?: string;
  readonly flowId?: string;
  readonly state?: ExecutionRecordState;
  readonly page: number;
  readonly size: number;
}

const DEFAULT_FOLLOW_POLL_MS = 5000;
const RESTARTABLE: readonly ExecutionRecordState[] = ['FAILED', 'KILLED'];

/**
 * Executions as the API handles them: created here (row first, then
 * `execution.created`), changed only by the executor, which the API asks
 * through `lanner.executor` (kill, resume, restart) and follows through
 * `lanner.execution-updates` plus the repository.
 */
@Injectable()
export class ExecutionsService {
  private readonly pollMs: number;

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(API_TOPICS) private readonly topics: ApiTopics,
    private readonly updates: ExecutionUpdatesFeed,
    private readonly parser: FlowSourceParser,
    private readonly parsedFlows: ParsedFlowCache,
    @Inject(API_ROLE_OPTIONS) options: ApiRoleOptions,
  ) {
    this.pollMs = options.followPollMs ?? DEFAULT_FOLLOW_POLL_MS;
  }

  async create(
    tenantId: string,
    namespace: string,
    flowId: string,
    request: NewExecutionRequest,
    correlationId: string,
  ): Promise<ExecutionWithTaskRuns> {
    const revision = await this.repositories.flows.getLatest(tenantId, namespace, flowId);
    // Parsed once per revision, not once per execution.
    const parsed = await this.parsedFlows.get(revision, revision.source, (source) => this.parser.parse(source));
    // A stored revision was valid when saved; a newer parser may disagree, and the user must see why.
    if (!parsed.ok)
      throw new InvalidContent(
        `Flow ${namespace}.${flowId} revision ${revision.revision} is no longer valid`,
        problemEntries(parsed.problems),
      );
    if (parsed.flow.disabled) throw new WrongState(`Flow ${namespace}.${flowId} is disabled`);
    // The api has no internal storage yet: a file is refused, never dropped.
    if (request.fileInputs !== undefined && request.fileInputs.length > 0) {
      throw new InvalidContent(
        'File inputs are not supported yet',
        request.fileInputs.map((name) => ({ path: `inputs.${name}`, message: 'file inputs are not supported yet' })),
      );
    }
    const inputs = coerceInputs(parsed.flow.inputs, request.inputs);
    if (!inputs.ok) throw new InvalidContent('The inputs do not match the flow', problemEntries(inputs.problems));

    const now = new Date();
    const executionId = randomUUID();
    const labels = { ...parsed.flow.labels, ...request.labels };
    const created = await this.repositories.executions.create(tenantId, {
      id: executionId,
      namespace,
      flowId,
      flowRevision: revision.revision,
      state: 'CREATED',
      stateHistories: [{ state: 'CREATED', date: now }],
      inputs: inputs.values as StoredJson,
      labels,
    });
    await this.publish({
      schemaVersion: 1,
      // Stable per execution: a retried publish is recognised as the same event.
      messageId: `${executionId}:created`,
      type: 'execution.created',
      occurredAt: now.toISOString(),
      correlationId,
      payload: {
        tenantId,
        executionId,
        namespace,
        flowId,
        flowRevision: revision.revision,
        inputs: inputs.values as Record<string, unknown>,
        labels,
      },
    });
    return { ...created, taskRuns: [] };
  }

  get(tenantId: string, executionId: string): Promise<ExecutionWithTaskRuns> {
    return this.repositories.executions.get(tenantId, executionId);
  }

  search(tenantId: string, query: ExecutionSearch): Promise<RecordPage<ExecutionRecord>> {
    return this.repositories.executions.search(tenantId, query);
  }

  async kill(tenantId: string, executionId: string, requestedBy: string, correlationId: string): Promise<void> {
    const execution = await this.get(tenantId, executionId);
    if (hasEnded(execution)) throw new WrongState(`Execution '${executionId}' has already ended (${execution.state})`);
    await this.publish({
      schemaVersion: 1,
      messageId: randomUUID(),
      type: 'execution.kill',
      occurredAt: new Date().toISOString(),
      correlationId,
      payload: { tenantId, executionId, requestedBy },
    });
  }

  async resume(
    tenantId: string,
    executionId: string,
    inputs: Record<string, unknown> | undefined,
    correlationId: string,
  ): Promise<void> {
    const execution = await this.get(tenantId, executionId);
    if (execution.state !== 'PAUSED') throw new WrongState(`Execution '${executionId}' is ${execution.state}, not PAUSED`);
    await this.publish({
      schemaVersion: 1,
      messageId: randomUUID(),
      type: 'execution.resume',
      occurredAt: new Date().toISOString(),
      correlationId,
      payload: { tenantId, executionId, ...(inputs === undefined ? {} : { inputs }) },
    });
  }

  async restart(
    tenantId: string,
    executionId: string,
    requestedBy: string,
    correlationId: string,
  ): Promise<ExecutionWithTaskRuns> {
    const execution = await this.get(tenantId, executionId);
    if (!RESTARTABLE.includes(execution.state))
      throw new WrongState(`Execution '${executionId}' is ${execution.state}; only FAILED or KILLED executions restart`);
    await this.publish({
      schemaVersion: 1,
      // The version the requester saw: a duplicate restart of the same failure is one restart.
      messageId: `${executionId}:restart:${execution.version}`,
      type: 'execution.restart',
      occurredAt: new Date().toISOString(),
      correlationId,
      payload: { tenantId, executionId, expectedVersion: execution.version, requestedBy },
    });
    return execution;
  }

  /**
   * Calls `onChange` with the execution now and after each stored change
   * (seen through an update, or the slow poll), until it ends, `signal` aborts
   * or `timeoutMs` passes. Resolves with the last execution read.
   */
  async follow(
    tenantId: string,
    executionId: string,
    options: { signal?: AbortSignal; timeoutMs?: number; onChange?: (execution: ExecutionWithTaskRuns) => void },
  ): Promise<ExecutionWithTaskRuns> {
    let wake: () => void = () => undefined;
    let changed = false;
    const stopListening = this.updates.listen(executionId, () => {
      changed = true;
      wake();
    });
    const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
    try {
      let seen: ExecutionWithTaskRuns | undefined;
      for (;;) {
        changed = false;
        const current = await this.get(tenantId, executionId);
        if (seen === undefined || current.version !== seen.version || current.state !== seen.state) {
          seen = current;
          options.onChange?.(current);
        }
        if (hasEnded(current) || options.signal?.aborted) return current;
        const left = deadline === undefined ? this.pollMs : Math.min(this.pollMs, deadline - Date.now());
        if (left <= 0) return current;
        // An update that arrived while reading is not lost: `changed` is checked before sleeping.
        if (!changed) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, left);
            const onAbort = () => done();
            options.signal?.addEventListener('abort', onAbort, { once: true });
            function done() {
              clearTimeout(timer);
              options.signal?.removeEventListener('abort', onAbort);
              resolve();
            }
            wake = done;
          });
          wake = () => undefined;
        }
      }
    } finally {
      stopListening();
    }
  }

  private async publish(event: ExecutorEvent): Promise<void> {
    await this.queue.publish(this.topics.executor, [encodeQueueMessage(executorEventCodec, event)]);
  }
}
