import { createHash, randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { AlreadyExists, InUse, InvalidRecord, NotFound, ReservedEntity } from '../errors';
import { openRepositories, type Repositories } from '../repositories';
import { createTestDatabase, type TestDatabase } from '../testing/test-database';

describe('worker topology: queues, groups, registration tokens', () => {
  let database: TestDatabase;
  let repositories: Repositories;
  beforeAll(async () => {
    database = await createTestDatabase();
    repositories = await openRepositories(database.url);
  });
  afterAll(async () => {
    await repositories?.close();
    await database?.drop();
  });

  it('seeds the reserved queues and the default group, idempotently', async () => {
    await repositories.workerGroups.seedReserved();
    await repositories.workerGroups.seedReserved();
    const queues = await repositories.workerQueues.list();
    expect(queues.map((q) => [q.id, q.reserved])).toEqual([
      ['default', true],
      ['system', true],
    ]);
    const group = await repositories.workerGroups.get('default');
    expect(group).toMatchObject({ reserved: true, subscriptions: [{ workerGroupId: 'default', workerQueueId: 'default', reservedPercent: null, mode: 'STRICT' }] });
    await expect(repositories.workerQueues.put({ id: 'system', tags: ['x'] })).rejects.toBeInstanceOf(ReservedEntity);
    await expect(repositories.workerQueues.delete('default')).rejects.toBeInstanceOf(ReservedEntity);
    await expect(repositories.workerGroups.delete('default')).rejects.toBeInstanceOf(ReservedEntity);
    await expect(repositories.workerGroups.removeSubscription('default', 'default')).rejects.toBeInstanceOf(ReservedEntity);
  });

  it('puts queues and groups idempotently and refuses to delete a subscribed queue', async () => {
    expect((await repositories.workerQueues.put({ id: 'gpu', tags: ['gpu', 'linux'] })).created).toBe(true);
    const again = await repositories.workerQueues.put({ id: 'gpu', tags: ['gpu', 'linux'], description: 'GPU boxes' });
    expect(again).toMatchObject({ created: false, record: { tags: ['gpu', 'linux'], description: 'GPU boxes', allowedTenants: [] } });

    const group = await repositories.workerGroups.put({
      id: 'ml',
      name: 'ML team',
      subscriptions: [{ workerQueueId: 'gpu', reservedPercent: 50, mode: 'ELASTIC' }],
    });
    expect(group.created).toBe(true);
    expect(group.record.subscriptions).toEqual([{ workerGroupId: 'ml', workerQueueId: 'gpu', reservedPercent: 50, mode: 'ELASTIC' }]);
    await expect(repositories.workerGroups.put({ id: 'ml', name: 'ML', subscriptions: [{ workerQueueId: 'nope' }] })).rejects.toBeInstanceOf(NotFound);

    await expect(repositories.workerQueues.delete('gpu')).rejects.toBeInstanceOf(InUse);
    await repositories.workerGroups.removeSubscription('ml', 'gpu');
    expect(await repositories.workerQueues.find('gpu')).not.toBeNull();
    await repositories.workerQueues.delete('gpu');
    await expect(repositories.workerQueues.get('gpu')).rejects.toBeInstanceOf(NotFound);
  });

  it('stores registration tokens only as hashes and finds them by hash', async () => {
    await repositories.workerGroups.put({ id: 'etl', name: 'ETL' });
    const token = randomBytes(32).toString('base64url');
    const tokenHash = createHash('sha256').update(token).digest('hex');

    await expect(repositories.registrationTokens.create('etl', 'raw', token)).rejects.toBeInstanceOf(InvalidRecord);
    const created = await repositories.registrationTokens.create('etl', 'ci', tokenHash);
    expect(created).toEqual({ id: expect.any(String), workerGroupId: 'etl', name: 'ci', createdAt: expect.any(Date), lastUsedAt: null, revokedAt: null });
    expect(JSON.stringify(created)).not.toContain(tokenHash);
    await expect(repositories.registrationTokens.create('default', 'elsewhere', tokenHash)).rejects.toBeInstanceOf(AlreadyExists);

    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT * FROM registration_tokens');
      expect(JSON.stringify(rows)).not.toContain(token);
      expect(rows.map((row) => row.token_hash)).toEqual([tokenHash]);
    } finally {
      await client.end();
    }

    expect(await repositories.registrationTokens.findByHash(tokenHash)).toEqual(created);
    expect(await repositories.registrationTokens.findByHash(token)).toBeNull();
    const revokedAt = new Date('2026-11-30T12:00:00.000Z');
    expect((await repositories.registrationTokens.revoke('etl', created.id, revokedAt)).revokedAt).toEqual(revokedAt);
    expect((await repositories.registrationTokens.findByHash(tokenHash))?.revokedAt).toEqual(revokedAt);
    await expect(repositories.registrationTokens.revoke('default', created.id, revokedAt)).rejects.toBeInstanceOf(NotFound);
  });
});
