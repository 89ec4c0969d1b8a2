import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { ExpressionError, renderFinal, renderValue } from '@lanner/expressions';
import {
  coerceInputs,
  CORRELATION_ID_LABEL,
  flowTriggerListens,
  flowTriggerVariables,
  formatProblem,
  metPreconditions,
  stepPreconditions,
  type Flow,
  type FlowTrigger,
  type NewExecution,
  type StoredJson,
  type UpstreamExecution,
} from '@lanner/model';
import { FLOW_TRIGGER_EVALUATION_RETENTION_MS, type Repositories } from '@lanner/repository';
import { renderContextFor, type Execution } from '@lanner/state-machine';
import { DEFAULT_FLOW_TRIGGER_INDEX_TTL_MS, FlowTriggerIndex } from './flow-trigger-index';

/** The label every execution a trigger started carries, naming the trigger (as the scheduler's). */
export const TRIGGER_LABEL = 'system.triggerId';

/** How often a process forgets the evaluations past their retention. */
const PURGE_EVERY_MS = 3_600_000;

/** An execution a Flow trigger started, to announce to the executor. */
export interface TriggeredExecution {
  readonly id: string;
  readonly namespace: string;
  readonly flowId: string;
  readonly flowRevision: number;
  readonly inputs: Record<string, unknown>;
  readonly labels: Record<string, string>;
}

/** Loads a parsed flow revision; undefined when it is gone or no longer parses (other failures throw, and are retried). */
export type FlowLoader = (tenantId: string, namespace: string, flowId: string, revision: number) => Promise<Flow | undefined>;

/**
 * Flow triggers, evaluated by the executor when an execution ends: every Flow
 * trigger of the tenant's live flows (their latest revision) that listens to
 * the ended execution, with its preconditions counted in their window, starts
 * one execution. Which triggers listen is known from memory (FlowTriggerIndex):
 * `flowsChanged` drops a tenant's, as a flow of it changes. Each trigger evaluates an ended execution once
 * (`flowTriggerEvaluations.evaluateOnce`): an end handled again after a crash
 * or a redelivery announces the execution the first evaluation started and
 * starts no other.
 */
export class FlowTriggers {
  private readonly logger = new Logger(FlowTriggers.name);
  private lastPurge = 0;
  private readonly index: FlowTriggerIndex;

  constructor(
    private readonly repositories: Repositories,
    private readonly flowOf: FlowLoader,
    private readonly clock: () => number,
    indexTtlMs: number = DEFAULT_FLOW_TRIGGER_INDEX_TTL_MS,
  ) {
    this.index = new FlowTriggerIndex((tenantId) => repositories.flowTriggerEvaluations.listening(tenantId), clock, indexTtlMs);
  }

  /** A flow of the tenant changed (`broadcast.flows-changed`): the triggers listening are read again at the next end. */
  flowsChanged(tenantId: string): void {
    this.index.changed(tenantId);
  }

  /** Every tenant's listening triggers are read again at their next end (changes may have been missed). */
  forgetListening(): void {
    this.index.forgetAll();
  }

  /** The executions `ended` (of flow `upstreamFlow`) starts; created, not yet announced. */
  async onEnd(tenantId: string, upstreamFlow: Flow, ended: Execution): Promise<TriggeredExecution[]> {
    const listening = await this.index.listening(tenantId);
    if (listening.length === 0) return [];
    const upstream: UpstreamExecution = {
      id: ended.id,
      namespace: ended.namespace,
      flowId: ended.flowId,
      flowRevision: ended.flowRevision,
      state: ended.state,
      labels: ended.labels,
      ...(ended.outputs !== undefined ? { outputs: ended.outputs } : {}),
    };
    const now = this.clock();
    // As in Kestra, templates see the upstream execution (`outputs.<task>`, `execution.*`) and `trigger.*`.
    const context = { ...renderContextFor(upstreamFlow, ended), trigger: flowTriggerVariables(upstream) };
    const started: TriggeredExecution[] = [];
    for (const row of listening) {
      const flow = await this.flowOf(tenantId, row.namespace, row.flowId, row.revision);
      if (flow === undefined) continue;
      const trigger = flow.triggers.find(
        (candidate): candidate is FlowTrigger => candidate.kind === 'Flow' && candidate.id === row.triggerId,
      );
      if (flow.disabled || trigger === undefined) continue;
      const where = { namespace: flow.namespace, flowId: flow.id, triggerId: trigger.id, upstreamExecutionId: ended.id };
      const render = (template: string): string => {
        try {
          return renderFinal(template, context, { now: new Date(now) });
        } catch (error) {
          if (!(error instanceof ExpressionError)) throw error;
          // A condition that does not render does not hold; the flow's author reads why in the log.
          this.logger.warn({ ...where, reason: error.message }, 'flow trigger condition did not render');
          return '';
        }
      };
      if (!flowTriggerListens(flow, trigger, upstream, render)) continue;
      const met = trigger.preconditions === undefined ? [] : metPreconditions(trigger.preconditions, upstream, render);
      if (trigger.preconditions !== undefined && met.length === 0) continue;
      const execution = this.executionFor(flow, row.revision, trigger, context, upstream, now, where);
      const outcome = await this.repositories.flowTriggerEvaluations.evaluateOnce(
        { tenantId, namespace: flow.namespace, flowId: flow.id, triggerId: trigger.id },
        ended.id,
        new Date(now),
        (window) => {
          if (trigger.preconditions === undefined) return execution !== undefined ? { execution } : {};
          const step = stepPreconditions(trigger.preconditions, window, met, ended.id, now);
          return { window: step.window, ...(step.fire && execution !== undefined ? { execution } : {}) };
        },
      );
      if (outcome.executionId === null) continue;
      if (outcome.first && execution !== undefined) {
        started.push(announced(execution));
        this.logger.log({ ...where, executionId: execution.id }, 'flow trigger started an execution');
      } else {
        // Evaluated before this end was handled again: announce what it started (a second announce starts nothing).
        const { execution: record } = await this.repositories.executions.getExecutorState(tenantId, outcome.executionId);
        started.push({
          id: record.id,
          namespace: record.namespace,
          flowId: record.flowId,
          flowRevision: record.flowRevision,
          inputs: (record.inputs ?? {}) as Record<string, unknown>,
          labels: record.labels,
        });
      }
    }
    await this.purgeNowAndThen(now);
    return started;
  }

  /** The execution the trigger starts: its inputs rendered and checked against the flow's; undefined (logged) when they do not fit. */
  private executionFor(
    flow: Flow,
    revision: number,
    trigger: FlowTrigger,
    context: Record<string, unknown>,
    upstream: UpstreamExecution,
    now: number,
    where: Record<string, string>,
  ): NewExecution | undefined {
    let rendered: Record<string, unknown>;
    try {
      rendered = (renderValue(trigger.inputs ?? {}, context, { now: new Date(now) }) ?? {}) as Record<string, unknown>;
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      this.logger.warn({ ...where, reason: error.message }, 'flow trigger started no execution: its inputs did not render');
      return undefined;
    }
    const inputs = coerceInputs(flow.inputs, rendered);
    if (!inputs.ok) {
      this.logger.warn(
        { ...where, reason: inputs.problems.map(formatProblem).join('; ') },
        'flow trigger started no execution: its inputs do not match the flow',
      );
      return undefined;
    }
    const id = randomUUID();
    return {
      id,
      namespace: flow.namespace,
      flowId: flow.id,
      flowRevision: revision,
      state: 'CREATED',
      stateHistories: [{ state: 'CREATED', date: new Date(now) }],
      inputs: inputs.values as StoredJson,
      labels: { ...flow.labels, [TRIGGER_LABEL]: trigger.id, [CORRELATION_ID_LABEL]: id },
      trigger: { id: trigger.id, type: trigger.type, variables: flowTriggerVariables(upstream) as StoredJson },
    };
  }

  private async purgeNowAndThen(now: number): Promise<void> {
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    await this.repositories.flowTriggerEvaluations.purgeEvaluations(new Date(now - FLOW_TRIGGER_EVALUATION_RETENTION_MS));
  }
}

function announced(execution: NewExecution): TriggeredExecution {
  return {
    id: execution.id,
    namespace: execution.namespace,
    flowId: execution.flowId,
    flowRevision: execution.flowRevision,
    inputs: (execution.inputs ?? {}) as Record<string, unknown>,
    labels: { ...(execution.labels ?? {}) },
  };
}
