import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { encodeExecutorEvent, type ExecutorEvent } from '@lanner/frames';
import {
  coerceInputs,
  CORRELATION_ID_LABEL,
  SYSTEM_LABEL_REFUSAL,
  systemLabelKeys,
  type ExecutionRecordState,
  type ExecutionSearchQuery,
  type ExecutionStats,
  type ExecutionStatsQuery,
  type ExecutionWithTaskRuns,
  type FlowProblem,
  type RecordPage,
  type ExecutionRecord,
  type Flow,
  type NewExecution,
  type StoredJson,
} from '@lanner/model';
import type { QueuePort } from '@lanner/queue';
import { readStoredState, replayProblem, replayTrigger, resumeInputProblems, type JsonObject } from '@lanner/state-machine';
import { NotFound, type TenantRepositories } from '@lanner/repository';
import {
  executionPrefix,
  fileNameOf,
  inputFileUri,
  isUnder,
  parseStorageUri,
  StorageFileNotFound,
  StorageFileTooLarge,
  StorageUriError,
  type InternalStorage,
} from '@lanner/storage';
import { QUEUE } from '@lanner/runtime';
import { API_ROLE_OPTIONS, type ApiRoleOptions } from '../api-role.options';
import { API_TOPICS, type ApiTopics } from '../api-topics';
import { InvalidContent, InvalidRequest, PayloadTooLarge, WrongState } from '../http/api-errors';
import type { FileParts } from '../http/multipart-body';
import { FlowSourceParser } from '../flows/flow-source-parser';
import { ParsedFlowCache } from '../flows/parsed-flow-cache';
import { problemEntries } from '../flows/flows.service';
import { ExecutionUpdatesFeed } from './execution-updates.feed';
import { hasEnded } from './execution-view';

export interface NewExecutionRequest {
  readonly inputs: Record<string, unknown>;
  readonly labels: Record<string, string>;
  /** Inputs sent as file parts of a multipart request, with where each was stored (absent: nowhere to store it). */
  readonly fileInputs?: readonly { readonly name: string; readonly stored?: string }[];
  /**
   * A trigger started it (a webhook): called with the revision read here, it
   * throws to refuse, or returns the `trigger` column (`{ id, type, variables }`,
   * `trigger.*` in templates).
   */
  readonly triggeredBy?: (flow: Flow) => StoredJson;
}

/** Where the file parts of one run request go: the execution's id is chosen before its files arrive. */
export interface FileUploads {
  readonly executionId: string;
  readonly parts: FileParts;
  /** Deletes what was stored, when the execution is not created after all. */
  discard(): Promise<void>;
}

/** A file of an execution, ready to stream. */
export interface ExecutionFile {
  readonly uri: string;
  readonly name: string;
  readonly sizeBytes: number;
  readonly content: Readable;
}

export type ExecutionSearch = ExecutionSearchQuery;

const DEFAULT_FOLLOW_POLL_MS = 5000;

/** A new execution as `create` stores it, and what its `execution.created` event carries besides. */
interface PreparedExecution {
  readonly execution: NewExecution;
  readonly inputs: Record<string, unknown>;
  readonly now: Date;
}
const DEFAULT_FILE_INPUT_MAX_BYTES = 1024 * 1024 * 1024;

/** The api's internal storage (`null` when none is configured). */
export const INTERNAL_STORAGE = Symbol('lanner.api-internal-storage');
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
  private readonly storage: InternalStorage | undefined;
  private readonly fileInputMaxBytes: number;

  constructor(
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(API_TOPICS) private readonly topics: ApiTopics,
    private readonly updates: ExecutionUpdatesFeed,
    private readonly parser: FlowSourceParser,
    private readonly parsedFlows: ParsedFlowCache,
    @Inject(API_ROLE_OPTIONS) options: ApiRoleOptions,
    @Inject(INTERNAL_STORAGE) storage: InternalStorage | null,
  ) {
    this.pollMs = options.followPollMs ?? DEFAULT_FOLLOW_POLL_MS;
    this.storage = storage ?? undefined;
    this.fileInputMaxBytes = options.fileInputMaxBytes ?? DEFAULT_FILE_INPUT_MAX_BYTES;
  }

  async create(
    tenant: TenantRepositories,
    namespace: string,
    flowId: string,
    request: NewExecutionRequest,
    correlationId: string,
    presetExecutionId?: string,
  ): Promise<ExecutionWithTaskRuns> {
    // The revision this instance saw last, parsed: written only while it is still the
    // latest, in one statement, without reading the flow again. Anything else (no such
    // revision held, a newer one saved or a delete since, a request that revision would
    // refuse) is judged against the latest revision, read now.
    const known = this.parsedFlows.lastKnown(tenant.tenantId, namespace, flowId);
    const knownParse = known === undefined ? undefined : await known.result.catch(() => undefined);
    if (known !== undefined && knownParse?.ok === true) {
      const prepared = this.tryPrepare(namespace, flowId, known.revision, knownParse.flow, request, presetExecutionId);
      const created = prepared === undefined ? undefined : await tenant.executions.createIfLatest(prepared.execution);
      if (prepared !== undefined && created !== undefined) {
        // Outside maintenance the executor starts it from the row carried, without reading it.
        return this.announce(tenant, prepared, created.execution, correlationId, !created.maintenance);
      }
    }
    const revision = await tenant.flows.getLatest(namespace, flowId);
    // Parsed once per revision, not once per execution.
    const parsed = await this.parsedFlows.get(revision, revision.source, (source) => this.parser.parse(source));
    // A stored revision was valid when saved; a newer parser may disagree, and the user must see why.
    if (!parsed.ok)
      throw new InvalidContent(
        `Flow ${namespace}.${flowId} revision ${revision.revision} is no longer valid`,
        problemEntries(parsed.problems),
      );
    const prepared = this.prepare(namespace, flowId, revision.revision, parsed.flow, request, presetExecutionId);
    const created = await tenant.executions.create(prepared.execution);
    return this.announce(tenant, prepared, created, correlationId);
  }

  /** `prepare`, or undefined where it refuses the request (to be judged again against the latest revision). */
  private tryPrepare(...args: Parameters<ExecutionsService['prepare']>): PreparedExecution | undefined {
    try {
      return this.prepare(...args);
    } catch {
      return undefined;
    }
  }

  /** The new execution of `flow` at `revision` for the request, or the refusal that names what is wrong. */
  private prepare(
    namespace: string,
    flowId: string,
    revision: number,
    flow: Flow,
    request: NewExecutionRequest,
    presetExecutionId: string | undefined,
  ): PreparedExecution {
    const trigger = request.triggeredBy?.(flow);
    if (flow.disabled) throw new WrongState(`Flow ${namespace}.${flowId} is disabled`);
    const files = request.fileInputs ?? [];
    // Without internal storage a file is refused, never dropped.
    if (files.some((file) => file.stored === undefined)) {
      throw new InvalidContent(
        'File inputs need internal storage, and this API has none configured',
        files.map((file) => ({
          path: `inputs.${file.name}`,
          message: 'file inputs need internal storage (LANNER_STORAGE_TYPE)',
        })),
      );
    }
    const reserved = systemLabelKeys(request.labels);
    if (reserved.length > 0) {
      throw new InvalidContent(
        'The labels are not valid',
        reserved.map((key) => ({ path: `labels.${key}`, message: SYSTEM_LABEL_REFUSAL })),
      );
    }
    const fileTypes = new Set(flow.inputs.filter((input) => input.type === 'FILE').map((input) => input.id));
    const problems: { path: string; message: string }[] = [];
    const fileValues: Record<string, string> = {};
    for (const file of files) {
      if (!fileTypes.has(file.name)) problems.push({ path: `inputs.${file.name}`, message: 'is not a FILE input of the flow' });
      else if (fileValues[file.name] !== undefined)
        problems.push({ path: `inputs.${file.name}`, message: 'was sent more than once' });
      else fileValues[file.name] = file.stored ?? '';
    }
    // A FILE input's value is a URI this API stored: one written as text could name any file.
    for (const name of Object.keys(request.inputs)) {
      if (fileTypes.has(name))
        problems.push({ path: `inputs.${name}`, message: 'is a FILE input: send it as a file part of a multipart body' });
    }
    if (problems.length > 0) throw new InvalidContent('The inputs do not match the flow', problems);
    const inputs = coerceInputs(flow.inputs, { ...request.inputs, ...fileValues });
    if (!inputs.ok) throw new InvalidContent('The inputs do not match the flow', problemEntries(inputs.problems));

    const now = new Date();
    const executionId = presetExecutionId ?? randomUUID();
    // Every execution carries its correlation id; its subflow children and retries inherit it.
    const labels = { ...flow.labels, ...request.labels, [CORRELATION_ID_LABEL]: executionId };
    const execution: NewExecution = {
      id: executionId,
      namespace,
      flowId,
      flowRevision: revision,
      state: 'CREATED',
      stateHistories: [{ state: 'CREATED', date: now }],
      inputs: inputs.values as StoredJson,
      labels,
      ...(trigger !== undefined ? { trigger } : {}),
    };
    return { execution, inputs: inputs.values as Record<string, unknown>, now };
  }

  /** Tells the executor of the stored execution; with the row when `carryRow` (see ExecutionCreatedSchema). */
  private async announce(
    tenant: TenantRepositories,
    prepared: PreparedExecution,
    created: ExecutionRecord,
    correlationId: string,
    carryRow = false,
  ): Promise<ExecutionWithTaskRuns> {
    const { execution, now } = prepared;
    const stored: ExecutionWithTaskRuns = { ...created, taskRuns: [] };
    await this.publish({
      schemaVersion: 1,
      // Stable per execution: a retried publish is recognised as the same event.
      messageId: `${execution.id}:created`,
      type: 'execution.created',
      occurredAt: now.toISOString(),
      correlationId,
      payload: {
        tenantId: tenant.tenantId,
        executionId: execution.id,
        namespace: execution.namespace,
        flowId: execution.flowId,
        flowRevision: execution.flowRevision,
        inputs: prepared.inputs,
        labels: execution.labels ?? {},
        ...(carryRow ? { execution: stored } : {}),
      },
    });
    return stored;
  }

  async fileUploads(tenant: TenantRepositories, namespace: string, flowId: string): Promise<FileUploads | undefined> {
    const storage = this.storage;
    if (!storage) return undefined;
    await tenant.flows.getLatest(namespace, flowId);
    const executionId = randomUUID();
    const scope = { namespace, flowId, executionId };
    const maxBytes = this.fileInputMaxBytes;
    return {
      executionId,
      parts: {
        maxBytes,
        store: async ({ name, filename, content }) => {
          let uri;
          try {
            uri = inputFileUri(scope, name, basename(filename.replace(/\\/g, '/')) || name);
          } catch (error) {
            content.resume();
            throw new InvalidRequest('A file part cannot be stored', [
              {
                path: `inputs.${name}`,
                message: error instanceof StorageUriError ? error.message : 'has a name that cannot be stored',
              },
            ]);
          }
          try {
            const stored = await storage.put(tenant.tenantId, uri, content, { maxBytes });
            return { stored: stored.uri, sizeBytes: stored.size };
          } catch (error) {
            if (error instanceof StorageFileTooLarge) throw new PayloadTooLarge(maxBytes);
            throw error;
          }
        },
      },
      discard: async () => {
        await storage.deletePrefix(tenant.tenantId, executionPrefix(scope)).catch(() => undefined);
      },
    };
  }

  /**
   * A file of the execution, by its `kestra:///` URI: only a file under that execution's own
   * folder, in the caller's tenant; anything else (another execution's, another tenant's,
   * a missing file) is the same 404.
   */
  async openFile(tenant: TenantRepositories, executionId: string, path: string): Promise<ExecutionFile> {
    const execution = await this.get(tenant, executionId);
    const storage = this.storage;
    let uri;
    try {
      uri = parseStorageUri(path);
    } catch (error) {
      throw new InvalidRequest('The query is not valid', [
        { path: 'path', message: error instanceof StorageUriError ? error.message : 'is not an internal storage URI' },
      ]);
    }
    const prefix = executionPrefix({ namespace: execution.namespace, flowId: execution.flowId, executionId: execution.id });
    const found = storage && isUnder(uri, prefix) ? await storage.stat(tenant.tenantId, uri) : undefined;
    if (!storage || !found) throw new NotFound('file', uri.uri);
    const content = await storage.get(tenant.tenantId, uri).catch((error: unknown) => {
      if (error instanceof StorageFileNotFound) throw new NotFound('file', uri.uri);
      throw error;
    });
    return { uri: uri.uri, name: fileNameOf(uri), sizeBytes: found.size, content };
  }

  get(tenant: TenantRepositories, executionId: string): Promise<ExecutionWithTaskRuns> {
    return tenant.executions.get(executionId);
  }

  search(tenant: TenantRepositories, query: ExecutionSearch): Promise<RecordPage<ExecutionRecord>> {
    return tenant.executions.search(query);
  }

  stats(tenant: TenantRepositories, query: ExecutionStatsQuery): Promise<ExecutionStats> {
    return tenant.executions.stats(query);
  }

  async kill(tenant: TenantRepositories, executionId: string, requestedBy: string, correlationId: string): Promise<void> {
    const execution = await this.get(tenant, executionId);
    if (hasEnded(execution)) throw new WrongState(`Execution '${executionId}' has already ended (${execution.state})`);
    await this.publish({
      schemaVersion: 1,
      messageId: randomUUID(),
      type: 'execution.kill',
      occurredAt: new Date().toISOString(),
      correlationId,
      payload: { tenantId: tenant.tenantId, executionId, requestedBy },
    });
  }

  async resume(
    tenant: TenantRepositories,
    executionId: string,
    inputs: Record<string, unknown> | undefined,
    correlationId: string,
  ): Promise<void> {
    const execution = await this.get(tenant, executionId);
    if (execution.state !== 'PAUSED') throw new WrongState(`Execution '${executionId}' is ${execution.state}, not PAUSED`);
    const problems = await this.resumeProblems(tenant, execution, inputs ?? {});
    if (problems.length > 0) throw new InvalidContent('The resume inputs do not match the paused task', problemEntries(problems));
    await this.publish({
      schemaVersion: 1,
      messageId: randomUUID(),
      type: 'execution.resume',
      occurredAt: new Date().toISOString(),
      correlationId,
      payload: { tenantId: tenant.tenantId, executionId, ...(inputs === undefined ? {} : { inputs }) },
    });
  }

  /** What is wrong with resume inputs against the `onResume` of the paused tasks (Kestra refuses such a resume). */
  private async resumeProblems(
    tenant: TenantRepositories,
    execution: ExecutionWithTaskRuns,
    inputs: Record<string, unknown>,
  ): Promise<FlowProblem[]> {
    const revision = await tenant.flows.getRevision(execution.namespace, execution.flowId, execution.flowRevision);
    const parsed = await this.parser.parse(revision.source);
    if (!parsed.ok) return [];
    const paused = execution.taskRuns.filter((run) => run.state === 'PAUSED').map((run) => run.taskId);
    return resumeInputProblems(parsed.flow, paused, inputs as JsonObject);
  }

  async restart(
    tenant: TenantRepositories,
    executionId: string,
    requestedBy: string,
    correlationId: string,
  ): Promise<ExecutionWithTaskRuns> {
    const execution = await this.get(tenant, executionId);
    if (!RESTARTABLE.includes(execution.state))
      throw new WrongState(`Execution '${executionId}' is ${execution.state}; only FAILED or KILLED executions restart`);
    await this.publish({
      schemaVersion: 1,
      // The version the requester saw: a duplicate restart of the same failure is one restart.
      messageId: `${executionId}:restart:${execution.version}`,
      type: 'execution.restart',
      occurredAt: new Date().toISOString(),
      correlationId,
      payload: { tenantId: tenant.tenantId, executionId, expectedVersion: execution.version, requestedBy },
    });
    return execution;
  }

  /**
   * Replay (Kestra's): a new execution of the same flow revision, inputs and
   * labels. From `taskRunId`, the task runs before it are carried over with their
   * outputs and the flow runs again from it; without one, the whole flow runs
   * again. The executor builds it from the original's stored state; refused
   * here (409, or 400 naming `taskRunId`) when it could not be built.
   */
  async replay(
    tenant: TenantRepositories,
    executionId: string,
    taskRunId: string | undefined,
    correlationId: string,
  ): Promise<ExecutionWithTaskRuns> {
    const { execution: original, stateData } = await tenant.executions.getExecutorState(executionId);
    if (!hasEnded(original))
      throw new WrongState(`Execution '${executionId}' is ${original.state}; only an ended execution replays`);
    if (taskRunId !== undefined) {
      const reading = stateData === null ? undefined : readStoredState(stateData);
      if (reading === undefined || !reading.ok)
        throw new WrongState(`Execution '${executionId}' has no state this API can replay from`);
      const revision = await tenant.flows.getRevision(original.namespace, original.flowId, original.flowRevision);
      const parsed = await this.parsedFlows.get(revision, revision.source, (source) => this.parser.parse(source));
      if (!parsed.ok)
        throw new InvalidContent(
          `Flow ${original.namespace}.${original.flowId} revision ${revision.revision} is no longer valid`,
          problemEntries(parsed.problems),
        );
      const problem = replayProblem({ ...parsed.flow, revision: revision.revision }, reading.execution, taskRunId);
      if (problem !== undefined)
        throw new InvalidRequest('The replay cannot start there', [{ path: 'taskRunId', message: problem }]);
    }
    const now = new Date();
    const id = randomUUID();
    // The labels are the original's, its correlation id included: a replay belongs to the same story, as a retry does.
    const labels = original.labels;
    const inputs = (original.inputs ?? {}) as StoredJson;
    const created = await tenant.executions.create({
      id,
      namespace: original.namespace,
      flowId: original.flowId,
      flowRevision: original.flowRevision,
      state: 'CREATED',
      stateHistories: [{ state: 'CREATED', date: now }],
      inputs,
      labels,
      trigger: replayTrigger(executionId, taskRunId) as unknown as StoredJson,
    });
    await this.publish({
      schemaVersion: 1,
      messageId: `${id}:created`,
      type: 'execution.created',
      occurredAt: now.toISOString(),
      correlationId,
      payload: {
        tenantId: tenant.tenantId,
        executionId: id,
        namespace: original.namespace,
        flowId: original.flowId,
        flowRevision: original.flowRevision,
        inputs: inputs as Record<string, unknown>,
        labels,
      },
    });
    return { ...created, taskRuns: [] };
  }

  /**
   * Calls `onChange` with the execution now and after each stored change
   * (seen through an update, or the slow poll), until it ends, `signal` aborts
   * or `timeoutMs` passes. Resolves with the last execution read.
   *
   * Without `onChange` only the end matters: an update that does not end the
   * execution is not worth a read, so a `?wait=true` reads the execution once
   * when it ends (plus once per slow poll while it runs) rather than after
   * every change. `known` is the execution as the caller just stored it (a
   * create), so it is not read back first. When the update of the end carries
   * the ended execution (of this tenant, not older than what was seen), that is
   * the answer, with no read at all.
   */
  async follow(
    tenant: TenantRepositories,
    executionId: string,
    options: {
      signal?: AbortSignal;
      timeoutMs?: number;
      onChange?: (execution: ExecutionWithTaskRuns) => void;
      known?: ExecutionWithTaskRuns;
    },
  ): Promise<ExecutionWithTaskRuns> {
    const everyChange = options.onChange !== undefined;
    let wake: () => void = () => undefined;
    // An update worth a read arrived since the last one.
    let changed = false;
    // Updates arrived since the last read that were not worth one.
    let skipped = false;
    // The ended execution an update carried, the answer instead of a read.
    let carried: ExecutionWithTaskRuns | undefined;
    const stopListening = this.updates.listen(executionId, (change) => {
      if (!everyChange && !change.ended) {
        skipped = true;
        return;
      }
      const execution = change.execution;
      if (!everyChange && execution?.id === executionId && execution.tenantId === tenant.tenantId) carried = execution;
      changed = true;
      wake();
    });
    const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
    let current: ExecutionWithTaskRuns | undefined = options.known;
    const read = async (): Promise<ExecutionWithTaskRuns> => {
      changed = false;
      skipped = false;
      const ended = carried;
      carried = undefined;
      if (ended !== undefined && ended.version >= (current?.version ?? 0)) return ended;
      return this.get(tenant, executionId);
    };
    try {
      let seen: ExecutionWithTaskRuns | undefined;
      current ??= await read();
      for (;;) {
        if (seen === undefined || current.version !== seen.version || current.state !== seen.state) {
          seen = current;
          options.onChange?.(current);
        }
        if (hasEnded(current) || options.signal?.aborted) return current;
        const left = deadline === undefined ? this.pollMs : Math.min(this.pollMs, deadline - Date.now());
        if (left <= 0) return skipped ? read() : current;
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
        if (options.signal?.aborted) return current;
        current = await read();
      }
    } finally {
      stopListening();
    }
  }

  private async publish(event: ExecutorEvent): Promise<void> {
    await this.queue.publish(this.topics.executor, [encodeExecutorEvent(event)]);
  }
}
