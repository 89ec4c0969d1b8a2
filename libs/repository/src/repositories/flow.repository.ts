import {
  declaredTriggers,
  type FlowRevisionRecord,
  type FlowSearchQuery,
  type NewFlowRevision,
  type RecordPage,
} from '@lanner/model';
import { AlreadyExists, ConcurrentModification, FlowNotFound } from '../errors';
import { type Db, type DbOrTx, prismaErrorCode, storedJson, UNIQUE_VIOLATION } from '../prisma';
import type { FlowRevision, Prisma } from '../generated/prisma/client';
import { FlowTriggerEvaluationRepository } from './flow-trigger-evaluation.repository';
import { TriggerRepository } from './trigger.repository';

/** Flows and their revisions, per tenant. A delete is a revision too, so history survives it. */
export class FlowRepository {
  constructor(private readonly db: Db) {}

  /** POST: the first revision, or the next one after a delete; AlreadyExists when the flow is live. */
  async create(tenantId: string, flow: NewFlowRevision): Promise<FlowRevisionRecord> {
    return this.appendRevision(tenantId, flow, (latest) => {
      if (latest !== null && !latest.deleted) throw new AlreadyExists('flow', `${flow.namespace}.${flow.flowId}`);
    });
  }

  /** PUT: a new revision (revision + 1), creating the flow when absent. */
  async saveRevision(tenantId: string, flow: NewFlowRevision): Promise<FlowRevisionRecord> {
    return this.appendRevision(tenantId, flow, () => undefined);
  }

  /** The live flow: its latest revision, unless that revision deleted it. */
  async getLatest(tenantId: string, namespace: string, flowId: string): Promise<FlowRevisionRecord> {
    const latest = await latestRevision(this.db, tenantId, namespace, flowId);
    if (latest === null || latest.deleted) throw new FlowNotFound(namespace, flowId);
    return toFlowRevisionRecord(latest);
  }

  /**
   * The live (latest, not deleted) revision of each flow named, in one
   * statement; a flow deleted or unknown is absent from the answer. Keyed by
   * `flowKey(tenantId, namespace, flowId)`.
   */
  async getLatestMany(
    flows: readonly { readonly tenantId: string; readonly namespace: string; readonly flowId: string }[],
  ): Promise<Map<string, FlowRevisionRecord>> {
    const found = new Map<string, FlowRevisionRecord>();
    if (flows.length === 0) return found;
    const rows = await this.db.$queryRaw<
      {
        tenant_id: string;
        namespace: string;
        flow_id: string;
        revision: number;
        source: string;
        definition: Prisma.JsonValue;
        deleted: boolean;
        created_at: Date;
      }[]
    >`
      SELECT DISTINCT ON (f.tenant_id, f.namespace, f.flow_id)
        f.tenant_id, f.namespace, f.flow_id, f.revision, f.source, f.definition, f.deleted, f.created_at
      FROM flows f
      JOIN unnest(${flows.map((flow) => flow.tenantId)}::text[], ${flows.map((flow) => flow.namespace)}::text[],
                  ${flows.map((flow) => flow.flowId)}::text[]) AS k(tenant_id, namespace, flow_id)
        ON f.tenant_id = k.tenant_id AND f.namespace = k.namespace AND f.flow_id = k.flow_id
      ORDER BY f.tenant_id, f.namespace, f.flow_id, f.revision DESC`;
    for (const row of rows) {
      if (row.deleted) continue;
      found.set(flowKey(row.tenant_id, row.namespace, row.flow_id), {
        tenantId: row.tenant_id,
        namespace: row.namespace,
        flowId: row.flow_id,
        revision: row.revision,
        source: row.source,
        definition: storedJson(row.definition),
        deleted: false,
        createdAt: row.created_at,
      });
    }
    return found;
  }

  /** A specific stored revision (also of a since deleted flow). */
  async getRevision(tenantId: string, namespace: string, flowId: string, revision: number): Promise<FlowRevisionRecord> {
    const row = await this.db.flowRevision.findUnique({
      where: { tenantId_namespace_flowId_revision: { tenantId, namespace, flowId, revision } },
    });
    if (row === null || row.deleted) throw new FlowNotFound(namespace, flowId, revision);
    return toFlowRevisionRecord(row);
  }

  async listRevisions(tenantId: string, namespace: string, flowId: string): Promise<FlowRevisionRecord[]> {
    const rows = await this.db.flowRevision.findMany({
      where: { tenantId, namespace, flowId, deleted: false },
      orderBy: { revision: 'asc' },
    });
    return rows.map(toFlowRevisionRecord);
  }

  /** Live flows (latest revision of each, not deleted), ordered by namespace then id. */
  async search(tenantId: string, query: FlowSearchQuery): Promise<RecordPage<FlowRevisionRecord>> {
    const namespace = query.namespace ?? null;
    const text = query.text === undefined || query.text === '' ? null : `%${escapeLike(query.text)}%`;
    const size = Math.max(1, Math.floor(query.size));
    const offset = (Math.max(1, Math.floor(query.page)) - 1) * size;
    // DISTINCT ON picks each flow's latest revision in the database, so paging and the total stay exact.
    const rows = await this.db.$queryRaw<(FlowRevisionRow & { total: bigint })[]>`
      WITH latest AS (
        SELECT DISTINCT ON (namespace, flow_id) *
        FROM flows
        WHERE tenant_id = ${tenantId}
          AND (${namespace}::text IS NULL OR namespace = ${namespace} OR starts_with(namespace, ${namespace} || '.'))
        ORDER BY namespace, flow_id, revision DESC
      ), live AS (
        SELECT * FROM latest
        WHERE NOT deleted AND (${text}::text IS NULL OR flow_id ILIKE ${text} OR namespace ILIKE ${text})
      )
      SELECT page.*, (SELECT count(*) FROM live) AS total
      FROM (SELECT 1) AS one
      LEFT JOIN LATERAL (SELECT * FROM live ORDER BY namespace, flow_id LIMIT ${size} OFFSET ${offset}) AS page ON true`;
    // The LEFT JOIN keeps one row (with NULL columns) when the page is empty, so the total is always known.
    const total = rows.length > 0 ? Number(rows[0].total) : 0;
    return { results: rows.filter((row) => row.flow_id !== null).map(fromRawRow), total };
  }

  /** Deletes the live flow by appending a deleted revision; FlowNotFound if it is not live. */
  async softDelete(tenantId: string, namespace: string, flowId: string): Promise<FlowRevisionRecord> {
    return this.appendRevision(
      tenantId,
      { namespace, flowId, source: '', definition: null },
      (latest) => {
        if (latest === null || latest.deleted) throw new FlowNotFound(namespace, flowId);
      },
      true,
    );
  }

  private async appendRevision(
    tenantId: string,
    flow: NewFlowRevision,
    check: (latest: FlowRevision | null) => void,
    deleted = false,
  ): Promise<FlowRevisionRecord> {
    try {
      const row = await this.db.$transaction(async (tx) => {
        const latest = await latestRevision(tx, tenantId, flow.namespace, flow.flowId);
        check(latest);
        // The trigger table follows the revision in its transaction: a delete stops every trigger of the flow.
        const declared = deleted ? [] : declaredTriggers(flow.definition);
        await TriggerRepository.syncFlow(tx, tenantId, flow.namespace, flow.flowId, declared);
        await FlowTriggerEvaluationRepository.forgetRemoved(
          tx,
          tenantId,
          flow.namespace,
          flow.flowId,
          declared.map((trigger) => trigger.triggerId),
        );
        return tx.flowRevision.create({
          data: {
            tenantId,
            namespace: flow.namespace,
            flowId: flow.flowId,
            revision: (latest?.revision ?? 0) + 1,
            // A delete keeps the last source, so the deleted revision still shows what was removed.
            source: deleted ? (latest?.source ?? '') : flow.source,
            definition: deleted ? (latest?.definition ?? {}) : ((flow.definition ?? {}) as Prisma.InputJsonValue),
            deleted,
          },
        });
      });
      return toFlowRevisionRecord(row);
    } catch (error) {
      // Two writers computed the same next revision; the loser re-reads and retries.
      if (prismaErrorCode(error) === UNIQUE_VIOLATION) {
        throw new ConcurrentModification('flow', `${flow.namespace}.${flow.flowId}`, -1);
      }
      throw error;
    }
  }
}

/** The key of `getLatestMany`'s answer. */
export function flowKey(tenantId: string, namespace: string, flowId: string): string {
  return JSON.stringify([tenantId, namespace, flowId]);
}

function latestRevision(db: DbOrTx | Db, tenantId: string, namespace: string, flowId: string): Promise<FlowRevision | null> {
  return db.flowRevision.findFirst({ where: { tenantId, namespace, flowId }, orderBy: { revision: 'desc' } });
}

function toFlowRevisionRecord(row: FlowRevision): FlowRevisionRecord {
  return {
    tenantId: row.tenantId,
    namespace: row.namespace,
    flowId: row.flowId,
    revision: row.revision,
    source: row.source,
    definition: storedJson(row.definition),
    deleted: row.deleted,
    createdAt: row.createdAt,
  };
}

interface FlowRevisionRow {
  tenant_id: string;
  namespace: string;
  flow_id: string;
  revision: number;
  source: string;
  definition: Prisma.JsonValue;
  deleted: boolean;
  created_at: Date;
}

function fromRawRow(row: FlowRevisionRow): FlowRevisionRecord {
  return {
    tenantId: row.tenant_id,
    namespace: row.namespace,
    flowId: row.flow_id,
    revision: row.revision,
    source: row.source,
    definition: storedJson(row.definition),
    deleted: row.deleted,
    createdAt: row.created_at,
  };
}

/** `%` and `_` in user text match themselves. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
