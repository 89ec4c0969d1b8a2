import { Kafka, logLevel } from 'kafkajs';

/** The consumer group every executor joins (Lanner's topics and group ids are fixed, not per cluster). */
export const EXECUTOR_GROUP = 'lanner-executor';

/**
 * Who is in a consumer group right now (`clientId@host` per member). Topics and groups
 * are the same for every Lanner cluster on a broker: a second cluster on the dev Kafka
 * (another engineer's e2e run, a bench cluster) shares the executor's partitions and
 * drops this cluster's events as unknown executions. A spec about losses must know.
 */
export async function groupMembers(groupId: string): Promise<string[]> {
  const brokers = process.env['KAFKA_BROKERS']?.trim();
  if (!brokers) throw new Error('KAFKA_BROKERS is not set: run the e2e specs through apps/e2e/jest.e2e.config.js');
  const admin = new Kafka({ clientId: 'lanner-e2e-probe', brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([groupId]);
    return (groups[0]?.members ?? []).map((member) => `${member.clientId}@${member.clientHost}`);
  } finally {
    await admin.disconnect();
  }
}
