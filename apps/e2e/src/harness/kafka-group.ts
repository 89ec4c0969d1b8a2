import { Kafka, logLevel } from 'kafkajs';

/** The consumer group every executor joins, under the cluster's LANNER_KAFKA_NAMESPACE. */
export const EXECUTOR_GROUP = 'lanner-executor';

/**
 * Who is in a consumer group right now (`clientId@host` per member): a spec about losses
 * checks that only its own executor holds the run's partitions.
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
