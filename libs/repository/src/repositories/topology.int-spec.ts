import { createHash, randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { AlreadyExists, InUse, InvalidRecord, NotFound, ReservedEntity } from '../errors';
import { useTestRepositories } from '../testing/test-database';

describe('worker topology: queues, groups, registration tokens', () => {
  const fixture = useTestRepositories();

  it('seeds the reserved queues and the default group, idempotently', async () => {
    await fixture.repositories.workerGroups.seedReserved();
    await fixture.repositories.workerGroups.seedReserved();
    const queues = await fixture.repositories.workerQueues.list();
    expect(queues.map((q) => [q.id, q.reserved])).toEqual([
      ['default', true],
      ['system', true],
    ]);
    const group = await fixture.repositories.workerGroups.get('default');
    expect(group).toMatchObject({
      reserved: true,
      subscriptions: [{ workerGroupId: 'default', workerQueueId: 'default', reservedPercent: null, mode: 'STRICT' }],
    });
    await expect(fixture.repositories.workerQueues.put({ id: 'system', tags: ['x'] })).rejects.toBeInstanceOf(ReservedEntity);
    await expect(fixture.repositories.workerQueues.delete('default')).rejects.toBeInstanceOf(ReservedEntity);
    await expect(fixture.repositories.workerGroups.delete('default')).rejects.toBeInstanceOf(ReservedEntity);
    await expect(fixture.repositories.workerGroups.removeSubscription('default', 'default')).rejects.toBeInstanceOf(
      ReservedEntity,
    );
  });

  it('puts queues and groups idempotently and refuses to delete a subscribed queue', async () => {
    expect((await fixture.repositories.workerQueues.put({ id: 'gpu', tags: ['gpu', 'linux'] })).created).toBe(true);
    const again = await fixture.repositories.workerQueues.put({ id: 'gpu', tags: ['gpu', 'linux'], description: 'GPU boxes' });
    expect(again).toMatchObject({
      created: false,
      record: { tags: ['gpu', 'linux'], description: 'GPU boxes', allowedTenants: [] },
    });

    const group = await fixture.repositories.workerGroups.put({
      id: 'ml',
      name: 'ML team',
      subscriptions: [{ workerQueueId: 'gpu', reservedPercent: 50, mode: 'ELASTIC' }],
    });
    expect(group.created).toBe(true);
    expect(group.record.subscriptions).toEqual([
      { workerGroupId: 'ml', workerQueueId: 'gpu', reservedPercent: 50, mode: 'ELASTIC' },
    ]);
    await expect(
      fixture.repositories.workerGroups.put({ id: 'ml', name: 'ML', subscriptions: [{ workerQueueId: 'nope' }] }),
    ).rejects.toBeInstanceOf(NotFound);

    await expect(fixture.repositories.workerQueues.delete('gpu')).rejects.toBeInstanceOf(InUse);
    await fixture.repositories.workerGroups.removeSubscription('ml', 'gpu');
    expect(await fixture.repositories.workerQueues.find('gpu')).not.toBeNull();
    await fixture.repositories.workerQueues.delete('gpu');
    await expect(fixture.repositories.workerQueues.get('gpu')).rejects.toBeInstanceOf(NotFound);
  });

  it('stores registration tokens only as hashes and finds them by hash', async () => {
    await fixture.repositories.workerGroups.put({ id: 'etl', name: 'ETL' });
    const token = randomBytes(32).toString('base64url');
    const tokenHash = createHash('sha256').update(token).digest('hex');

    await expect(fixture.repositories.registrationTokens.create('etl', 'raw', token)).rejects.toBeInstanceOf(InvalidRecord);
    const created = await fixture.repositories.registrationTokens.create('etl', 'ci', tokenHash);
    expect(created).toEqual({
      id: expect.any(String),
      workerGroupId: 'etl',
      name: 'ci',
      createdAt: expect.any(Date),
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(JSON.stringify(created)).not.toContain(tokenHash);
    await expect(fixture.repositories.registrationTokens.create('default', 'elsewhere', tokenHash)).rejects.toBeInstanceOf(
      AlreadyExists,
    );

    const client = new Client({ connectionString: fixture.database.url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT * FROM registration_tokens');
      expect(JSON.stringify(rows)).not.toContain(token);
      expect(rows.map((row) => row.token_hash)).toEqual([tokenHash]);
    } finally {
      await client.end();
    }

    expect(await fixture.repositories.registrationTokens.findByHash(tokenHash)).toEqual(created);
    expect(await fixture.repositories.registrationTokens.findByHash(token)).toBeNull();
    const revokedAt = new Date('2026-11-30T12:00:00.000Z');
    expect((await fixture.repositories.registrationTokens.revoke('etl', created.id, revokedAt)).revokedAt).toEqual(revokedAt);
    expect((await fixture.repositories.registrationTokens.findByHash(tokenHash))?.revokedAt).toEqual(revokedAt);
    await expect(fixture.repositories.registrationTokens.revoke('default', created.id, revokedAt)).rejects.toBeInstanceOf(
      NotFound,
    );
  });

  it('writes nothing for a PUT that asks for what is stored, and says whether the subscriptions changed', async () => {
    await fixture.repositories.workerGroups.seedReserved();
    const reserved = await fixture.repositories.workerQueues.get('default');
    await fixture.repositories.workerGroups.seedReserved();
    expect((await fixture.repositories.workerQueues.get('default')).updatedAt).toEqual(reserved.updatedAt);

    const queue = await fixture.repositories.workerQueues.put({ id: 'arm', tags: ['arm', 'linux'] });
    expect(queue).toMatchObject({ created: true, changed: true });
    const same = await fixture.repositories.workerQueues.put({ id: 'arm', tags: ['linux', 'arm'], allowedTenants: [] });
    expect(same).toEqual({ record: queue.record, created: false, changed: false });

    const group = await fixture.repositories.workerGroups.put({
      id: 'builds',
      name: 'Builds',
      subscriptions: [{ workerQueueId: 'arm', reservedPercent: 40 }],
    });
    expect(group).toMatchObject({ created: true, changed: true, subscriptionsChanged: true });
    const again = await fixture.repositories.workerGroups.put({
      id: 'builds',
      name: 'Builds',
      subscriptions: [{ workerQueueId: 'arm', reservedPercent: 40, mode: 'STRICT' }],
    });
    expect(again).toEqual({ record: group.record, created: false, changed: false, subscriptionsChanged: false });
    const renamed = await fixture.repositories.workerGroups.put({ id: 'builds', name: 'CI builds' });
    expect(renamed).toMatchObject({
      changed: true,
      subscriptionsChanged: false,
      record: { name: 'CI builds', subscriptions: [{ workerQueueId: 'arm', reservedPercent: 40 }] },
    });
    const resubscribed = await fixture.repositories.workerGroups.put({
      id: 'builds',
      name: 'CI builds',
      subscriptions: [{ workerQueueId: 'arm', reservedPercent: 40, mode: 'ELASTIC' }],
    });
    expect(resubscribed).toMatchObject({ changed: true, subscriptionsChanged: true });
  });

  it('creates a seeded group with its subscriptions and token hashes all at once, or nothing', async () => {
    await fixture.repositories.workerGroups.seedReserved();
    await fixture.repositories.workerQueues.put({ id: 'batch', tags: ['batch'] });
    const hash = (value: string) => createHash('sha256').update(value).digest('hex');
    const token = randomBytes(32).toString('base64url');

    const created = await fixture.repositories.workerGroups.createWithTokens(
      { id: 'batch-team', name: 'Batch', subscriptions: [{ workerQueueId: 'batch', reservedPercent: 30, mode: 'ELASTIC' }] },
      [{ name: 'rack', tokenHash: hash(token) }],
    );
    expect(created.subscriptions).toEqual([
      { workerGroupId: 'batch-team', workerQueueId: 'batch', reservedPercent: 30, mode: 'ELASTIC' },
    ]);
    expect(await fixture.repositories.registrationTokens.findByHash(hash(token))).toMatchObject({
      workerGroupId: 'batch-team',
      name: 'rack',
    });

    await expect(
      fixture.repositories.workerGroups.createWithTokens({ id: 'batch-team', name: 'Again' }, []),
    ).rejects.toBeInstanceOf(AlreadyExists);
    await expect(
      fixture.repositories.workerGroups.createWithTokens({ id: 'raw', name: 'Raw' }, [{ name: 'x', tokenHash: token }]),
    ).rejects.toBeInstanceOf(InvalidRecord);
    // A token already registered elsewhere: the group is not created either.
    await expect(
      fixture.repositories.workerGroups.createWithTokens(
        { id: 'copycat', name: 'Copycat', subscriptions: [{ workerQueueId: 'batch' }] },
        [{ name: 'same', tokenHash: hash(token) }],
      ),
    ).rejects.toBeInstanceOf(AlreadyExists);
    await expect(fixture.repositories.workerGroups.get('copycat')).rejects.toBeInstanceOf(NotFound);
    await expect(fixture.repositories.workerGroups.get('raw')).rejects.toBeInstanceOf(NotFound);
  });
});
