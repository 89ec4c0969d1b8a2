import type { NewExecution, PreconditionWindow, TriggerKey } from '@lanner/model';
import { type Db, type DbOrTx } from '../prisma';
import { newExecutionRow } from './execution.repository';

/** A Flow trigger of a live flow, with the flow's latest revision (the one it is evaluated with). */
export interface ListeningFlowTrigger {
  readonly namespace: string;
  readonly flowId: string;
  readonly triggerId: string;
  readonly revision: number;
}

/** What `evaluateOnce` asks the caller to decide, given the stored window of the trigger's preconditions. */
export interface FlowTriggerDecision {
  /** The window to keep: a value is written, null deletes it, undefined leaves it as it is. */
  readonly window?: PreconditionWindow | null;
  /** The execution the trigger starts, inserted in the same transaction. */
  readonly execution?: NewExecution;
}

export interface FlowTriggerOutcome {
  /** False when this upstream execution was evaluated before (a redelivery): nothing was written. */
  readonly first: boolean;
  /** The execution the (first) evaluation started, if any. */
  readonly executionId: string | null;
}

interface WindowRow {
  window_start: Date;
  window_end: Date;
  met: Record<string, string>;
}

/** How long an evaluation is remembered: longer than any redelivery of the execution's end. */
export const FLOW_TRIGGER_EVALUATION_RETENTION_MS = 7 * 86_400_000;

/**
 * The executor's record of Flow triggers: which trigger evaluated which ended
 * execution (once), the open windows of their preconditions, and the flows that
 * listen. Time is always an argument, never read here.
 */
export class FlowTriggerEvaluationRepository {
  constructor(private readonly db: Db) {}

  /** Drops the evaluations and windows of the triggers of a flow not in `keep` (inside the flow revision's transaction). */
  static async forgetRemoved(
    tx: DbOrTx,
    tenantId: string,
    namespace: string,
    flowId: string,
    keep: readonly string[],
  ): Promise<void> {
    const where = { tenantId, namespace, flowId, triggerId: { notIn: [...keep] } };
    await tx.flowTriggerEvaluation.deleteMany({ where });
    await tx.flowTriggerWindow.deleteMany({ where });
  }

  /** The Flow triggers of the tenant's live flows not disabled through the API, each with its flow's latest revision. */
  async listening(tenantId: string): Promise<ListeningFlowTrigger[]> {
    const rows = await this.db.$queryRaw<{ namespace: string; flow_id: string; trigger_id: string; revision: number }[]>`
      SELECT t.namespace, t.flow_id, t.trigger_id,
        (SELECT max(f.revision) FROM flows f WHERE f.tenant_id = t.tenant_id AND f.namespace = t.namespace AND f.flow_id = t.flow_id) AS revision
      FROM flow_triggers t
      WHERE t.tenant_id = ${tenantId} AND t.kind = 'Flow' AND NOT t.disabled`;
    return rows
      .filter((row) => row.revision !== null)
      .map((row) => ({
        namespace: row.namespace,
        flowId: row.flow_id,
        triggerId: row.trigger_id,
        revision: Number(row.revision),
      }));
  }

  /**
   * Evaluates trigger `key` against one ended execution, once: in one
   * transaction it records the evaluation, hands `decide` the trigger's stored
   * window (under a lock on the trigger, so executions ending at the same time
   * are counted one after the other), writes the window `decide` returns and
   * inserts the execution it starts. Called again for the same upstream
   * execution (a redelivered end), it writes nothing and answers what the first
   * call started.
   */
  async evaluateOnce(
    key: TriggerKey,
    upstreamExecutionId: string,
    now: Date,
    decide: (window: PreconditionWindow | undefined) => FlowTriggerDecision,
  ): Promise<FlowTriggerOutcome> {
    const { tenantId, namespace, flowId, triggerId } = key;
    return this.db.$transaction(async (tx) => {
      const inserted = await tx.$executeRaw`
        INSERT INTO flow_trigger_evaluations (tenant_id, namespace, flow_id, trigger_id, upstream_execution_id, evaluated_at)
        VALUES (${tenantId}, ${namespace}, ${flowId}, ${triggerId}, ${upstreamExecutionId}, ${now})
        ON CONFLICT DO NOTHING`;
      const evaluation = { tenantId, namespace, flowId, triggerId, upstreamExecutionId };
      if (inserted === 0) {
        const earlier = await tx.flowTriggerEvaluation.findUnique({
          where: { tenantId_namespace_flowId_triggerId_upstreamExecutionId: evaluation },
        });
        return { first: false, executionId: earlier?.executionId ?? null };
      }
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${JSON.stringify([tenantId, namespace, flowId, triggerId])}, 0))`;
      const rows = await tx.$queryRaw<WindowRow[]>`
        SELECT window_start, window_end, met FROM flow_trigger_windows
        WHERE tenant_id = ${tenantId} AND namespace = ${namespace} AND flow_id = ${flowId} AND trigger_id = ${triggerId}`;
      const stored =
        rows.length === 0
          ? undefined
          : { start: rows[0].window_start.getTime(), end: rows[0].window_end.getTime(), met: rows[0].met };
      const decision = decide(stored);
      const windowKey = { tenantId, namespace, flowId, triggerId };
      if (decision.window === null && stored !== undefined) {
        await tx.flowTriggerWindow.deleteMany({ where: windowKey });
      } else if (decision.window !== undefined && decision.window !== null) {
        const data = {
          windowStart: new Date(decision.window.start),
          windowEnd: new Date(decision.window.end),
          met: { ...decision.window.met },
        };
        await tx.flowTriggerWindow.upsert({
          where: { tenantId_namespace_flowId_triggerId: windowKey },
          create: { ...windowKey, ...data },
          update: data,
        });
      }
      if (decision.execution === undefined) return { first: true, executionId: null };
      await tx.execution.create({ data: newExecutionRow(tenantId, decision.execution) });
      await tx.flowTriggerEvaluation.update({
        where: { tenantId_namespace_flowId_triggerId_upstreamExecutionId: evaluation },
        data: { executionId: decision.execution.id },
      });
      // What the trigger API shows as the trigger's last firing.
      await tx.flowTriggerState.updateMany({
        where: windowKey,
        data: { lastDate: now, lastExecutionId: decision.execution.id },
      });
      return { first: true, executionId: decision.execution.id };
    });
  }

  /** Forgets the evaluations older than `before` (their executions' ends are long past any redelivery). */
  async purgeEvaluations(before: Date): Promise<number> {
    const { count } = await this.db.flowTriggerEvaluation.deleteMany({ where: { evaluatedAt: { lt: before } } });
    return count;
  }
}
