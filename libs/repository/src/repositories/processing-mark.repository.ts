import type { Db } from '../prisma';

/** The event an executor was processing when it marked an execution. */
export interface MarkedEventRecord {
  readonly messageId: string;
  readonly messageType: string;
  readonly since: Date;
}

/** One execution's crash-loop record (execution_processing_marks). */
export interface ProcessingMarkRecord {
  readonly tenantId: string;
  readonly executionId: string;
  readonly inProgress?: MarkedEventRecord;
  readonly crashes: number;
  readonly lastCrash?: MarkedEventRecord;
  readonly quarantinedAt?: Date;
}

export interface ParkedExecutorEventRecord {
  readonly tenantId: string;
  readonly executionId: string;
  readonly messageId: string;
  readonly messageType: string;
  readonly reason: string;
  readonly parkedAt: Date;
}

type MarkRow = Awaited<ReturnType<Db['executionProcessingMark']['findMany']>>[number];

function event(messageId: string | null, messageType: string | null, since: Date | null): MarkedEventRecord | undefined {
  return messageId !== null && messageType !== null && since !== null ? { messageId, messageType, since } : undefined;
}

function toRecord(row: MarkRow): ProcessingMarkRecord {
  const inProgress = event(row.messageId, row.messageType, row.processingSince);
  const lastCrash = event(row.lastCrashMessageId, row.lastCrashMessageType, row.lastCrashSince);
  return {
    tenantId: row.tenantId,
    executionId: row.executionId,
    crashes: row.crashes,
    ...(inProgress !== undefined ? { inProgress } : {}),
    ...(lastCrash !== undefined ? { lastCrash } : {}),
    ...(row.quarantinedAt !== null ? { quarantinedAt: row.quarantinedAt } : {}),
  };
}

/**
 * The executor's crash-loop records: a mark set durably before it processes an
 * event that may stop the process and cleared after; the crashes counted at
 * start; the quarantines; the events parked for quarantined executions. Rows
 * exist only for executions with a mark set or a crash counted, so the table
 * stays small and is read whole at start.
 */
export class ProcessingMarkRepository {
  constructor(private readonly db: Db) {}

  async mark(tenantId: string, executionId: string, marked: MarkedEventRecord): Promise<void> {
    const fields = { messageId: marked.messageId, messageType: marked.messageType, processingSince: marked.since };
    await this.db.executionProcessingMark.upsert({
      where: { tenantId_executionId: { tenantId, executionId } },
      create: { tenantId, executionId, ...fields },
      update: fields,
    });
  }

  /** The event was processed: the mark goes, and the row with it unless a crash was counted. */
  async clear(tenantId: string, executionId: string): Promise<void> {
    await this.db.$transaction([
      this.db.executionProcessingMark.deleteMany({ where: { tenantId, executionId, crashes: 0, quarantinedAt: null } }),
      this.db.executionProcessingMark.updateMany({
        where: { tenantId, executionId },
        data: { messageId: null, messageType: null, processingSince: null },
      }),
    ]);
  }

  async listAll(): Promise<ProcessingMarkRecord[]> {
    const rows = await this.db.executionProcessingMark.findMany({ orderBy: [{ tenantId: 'asc' }, { executionId: 'asc' }] });
    return rows.map(toRecord);
  }

  async get(tenantId: string, executionId: string): Promise<ProcessingMarkRecord | undefined> {
    const row = await this.db.executionProcessingMark.findUnique({ where: { tenantId_executionId: { tenantId, executionId } } });
    return row === null ? undefined : toRecord(row);
  }

  /** Stores reviewed marks whole (crashes counted, quarantine decided or lifted). */
  async save(records: readonly ProcessingMarkRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.db.$transaction(
      records.map((record) => {
        const fields = {
          messageId: record.inProgress?.messageId ?? null,
          messageType: record.inProgress?.messageType ?? null,
          processingSince: record.inProgress?.since ?? null,
          crashes: record.crashes,
          lastCrashMessageId: record.lastCrash?.messageId ?? null,
          lastCrashMessageType: record.lastCrash?.messageType ?? null,
          lastCrashSince: record.lastCrash?.since ?? null,
          quarantinedAt: record.quarantinedAt ?? null,
        };
        return this.db.executionProcessingMark.upsert({
          where: { tenantId_executionId: { tenantId: record.tenantId, executionId: record.executionId } },
          create: { tenantId: record.tenantId, executionId: record.executionId, ...fields },
          update: fields,
        });
      }),
    );
  }

  /** Idempotent on the message id: a redelivered parked event is recorded once. */
  async park(parked: ParkedExecutorEventRecord): Promise<void> {
    await this.db.parkedExecutorEvent.createMany({ data: [parked], skipDuplicates: true });
  }

  /** The parked events of one execution, oldest first. */
  async listParked(tenantId: string, executionId: string): Promise<ParkedExecutorEventRecord[]> {
    const rows = await this.db.parkedExecutorEvent.findMany({ where: { tenantId, executionId }, orderBy: { parkedAt: 'asc' } });
    return rows.map((row) => ({
      tenantId: row.tenantId,
      executionId: row.executionId,
      messageId: row.messageId,
      messageType: row.messageType,
      reason: row.reason,
      parkedAt: row.parkedAt,
    }));
  }
}
