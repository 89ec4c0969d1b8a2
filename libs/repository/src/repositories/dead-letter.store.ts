import { toStorableText } from '@lanner/model';
import type { Db } from '../prisma';
import { NotFound } from '../errors';

/** A message parked by the consumer group that could not handle it. */
export interface DeadLetterRecord {
  readonly id: string;
  readonly consumerGroup: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly reason: string;
  readonly attempts: number;
  readonly tenantId: string | null;
  readonly executionId: string | null;
  readonly createdAt: Date;
  /** Size of the payload in bytes (the payload itself is read with `payload`). */
  readonly bytes: number;
}

export interface DeadLetterWrite {
  readonly consumerGroup: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string;
  readonly value: Buffer;
  readonly headers: Readonly<Record<string, string>>;
  readonly reason: string;
  readonly attempts: number;
  readonly tenantId?: string;
  readonly executionId?: string;
  readonly at: Date;
}

/** What a replay publishes: the message as its producer wrote it. */
export interface DeadLetterMessage {
  readonly topic: string;
  readonly key: string;
  readonly value: Buffer;
  readonly headers: Record<string, string>;
}

/**
 * Poison messages in `dead_letters`. Recording is idempotent on the message's
 * position for its consumer group, so a consumer that parks a message, then
 * crashes before committing it, records it once. Everything written is made
 * storable first: a reason, key or header holding a NUL must not make the
 * dead-letter write itself the next poison.
 */
export class DeadLetterStore {
  constructor(private readonly db: Db) {}

  /** True when the message was recorded now, false when it was already there. */
  async record(letter: DeadLetterWrite): Promise<boolean> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(letter.headers)) headers[toStorableText(name)] = toStorableText(value);
    const rows = await this.db.$queryRaw<{ id: string }[]>`
      INSERT INTO dead_letters (id, consumer_group, topic, partition, "offset", key, value, headers, reason, attempts, tenant_id, execution_id, created_at)
      VALUES (gen_random_uuid(), ${letter.consumerGroup}, ${letter.topic}, ${letter.partition}, ${letter.offset}, ${toStorableText(letter.key)},
              ${letter.value}, ${JSON.stringify(headers)}::jsonb, ${toStorableText(letter.reason)}, ${letter.attempts},
              ${letter.tenantId === undefined ? null : toStorableText(letter.tenantId)}, ${letter.executionId === undefined ? null : toStorableText(letter.executionId)}, ${letter.at})
      ON CONFLICT (consumer_group, topic, partition, "offset") DO NOTHING
      RETURNING id`;
    return rows.length === 1;
  }

  /** Newest first. */
  async list(options: {
    readonly limit: number;
    readonly offset: number;
    readonly topic?: string;
  }): Promise<{ results: DeadLetterRecord[]; total: number }> {
    const where = options.topic === undefined ? {} : { topic: options.topic };
    const [rows, total] = await Promise.all([
      this.db.deadLetter.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
        skip: options.offset,
        take: options.limit,
      }),
      this.db.deadLetter.count({ where }),
    ]);
    return { results: rows.map(toRecord), total };
  }

  async get(id: string): Promise<DeadLetterRecord> {
    const row = await this.findRow(id);
    return toRecord(row);
  }

  async payload(id: string): Promise<DeadLetterMessage> {
    const row = await this.findRow(id);
    return {
      topic: row.topic,
      key: row.key,
      value: Buffer.from(row.value),
      headers: { ...(row.headers as Record<string, string>) },
    };
  }

  /** Drops it; NotFound when it is not (or no longer) there. */
  async remove(id: string): Promise<void> {
    const { count } = await this.db.deadLetter.deleteMany({ where: { id: asUuid(id) } });
    if (count === 0) throw new NotFound('dead letter', id);
  }

  private async findRow(id: string) {
    const row = await this.db.deadLetter.findUnique({ where: { id: asUuid(id) } });
    if (row === null) throw new NotFound('dead letter', id);
    return row;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id that is not a UUID names no dead letter (and must not reach the uuid column as an error). */
function asUuid(id: string): string {
  if (!UUID.test(id)) throw new NotFound('dead letter', id);
  return id;
}

function toRecord(row: {
  id: string;
  consumerGroup: string;
  topic: string;
  partition: number;
  offset: string;
  key: string;
  value: Uint8Array;
  headers: unknown;
  reason: string;
  attempts: number;
  tenantId: string | null;
  executionId: string | null;
  createdAt: Date;
}): DeadLetterRecord {
  return {
    id: row.id,
    consumerGroup: row.consumerGroup,
    topic: row.topic,
    partition: row.partition,
    offset: row.offset,
    key: row.key,
    headers: row.headers as Record<string, string>,
    reason: row.reason,
    attempts: row.attempts,
    tenantId: row.tenantId,
    executionId: row.executionId,
    createdAt: row.createdAt,
    bytes: row.value.length,
  };
}
