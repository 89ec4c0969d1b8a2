import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { type BroadcastMessage, spineTopics, workerJobsTopic } from '@lanner/frames';
import { RESERVED_WORKER_QUEUE_IDS } from '@lanner/model';
import { UnknownTopicError } from '@lanner/queue';
import { eventually } from '../testing/api-spec-fixture';
import {
  call,
  connectSpecKafka,
  createSpecDatabase,
  startSpecApi,
  type SpecApi,
  type SpecDatabase,
  type SpecKafka,
} from './topology-spec-fixture';

// The worker topology routes (API.md "Worker topology") on the real api role,
// PostgreSQL and Kafka: the spec talks HTTP, reads `lanner.broadcast` as a
// controller does, and plays the controller where the registry is concerned.

const topicPrefix = `test-topology-${randomBytes(4).toString('hex')}.`;
let database: SpecDatabase;
let kafka: SpecKafka;
let api: SpecApi;
let developerToken: string;

const admin = (method: string, path: string, body?: unknown) =>
  call(api.baseUrl, api.adminToken, method, `/api/v1/instance${path}`, body);
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
type SubscriptionsChanged = Extract<BroadcastMessage, { type: 'broadcast.subscriptions-changed' }>;
type TokenRevoked = Extract<BroadcastMessage, { type: 'broadcast.token-revoked' }>;
const changesOf = (groupId: string) =>
  kafka.broadcasts.filter(
    (m): m is SubscriptionsChanged => m.type === 'broadcast.subscriptions-changed' && m.payload.workerGroupId === groupId,
  );
const revocationsOf = (groupId: string) =>
  kafka.broadcasts.filter((m): m is TokenRevoked => m.type === 'broadcast.token-revoked' && m.payload.workerGroupId === groupId);

beforeAll(async () => {
  database = await createSpecDatabase();
  kafka = await connectSpecKafka(topicPrefix);
  api = await startSpecApi({ database, topicPrefix });
  developerToken = `developer-${randomBytes(16).toString('hex')}`;
  await database.repositories.apiTokens.grant({
    tenantId: 'main',
    name: 'developer',
    tokenHash: sha256(developerToken),
    role: 'ADMIN',
    instanceAdmin: false,
  });
  // The reserved topology is seeded at start (possibly just after the server listens).
  await eventually('the reserved worker queues', async () =>
    (await admin('GET', '/worker-queues')).json?.length === 2 ? true : undefined,
  );
}, 120_000);

afterAll(async () => {
  await api?.close();
  await kafka?.close([
    ...spineTopics(RESERVED_WORKER_QUEUE_IDS, topicPrefix),
    ...['gpu', 'etl', 'arm'].map((id) => `${topicPrefix}${workerJobsTopic(id)}`),
  ]);
  await database?.drop();
}, 60_000);

describe('access', () => {
  it('answers 401 without a token and 403 to a token that is not an instance admin, on every instance route', async () => {
    expect((await call(api.baseUrl, null, 'GET', '/api/v1/instance/worker-queues')).status).toBe(401);
    for (const [method, path] of [
      ['GET', '/worker-queues'],
      ['PUT', '/worker-queues/gpu'],
      ['GET', '/worker-groups'],
      ['POST', '/worker-groups/default/tokens'],
      ['GET', '/worker-groups/default/capacity'],
      ['GET', '/services'],
    ]) {
      const answer = await call(
        api.baseUrl,
        developerToken,
        method,
        `/api/v1/instance${path}`,
        method === 'GET' ? undefined : { tags: ['gpu'], name: 'x' },
      );
      expect({ route: `${method} ${path}`, status: answer.status, type: answer.contentType }).toEqual({
        route: `${method} ${path}`,
        status: 403,
        type: expect.stringContaining('application/problem+json'),
      });
      expect(answer.json.detail).toMatch(
        /^Missing permission '(worker-topology|service-instance):(read|write)': only an instance admin holds it$/,
      );
    }
    // Nothing was written by the refused PUT.
    expect((await admin('GET', '/worker-queues/gpu')).status).toBe(404);
  });

  it('documents every instance route in the OpenAPI document', async () => {
    const doc = await call(api.baseUrl, null, 'GET', '/api/v1/openapi.json');
    expect(Object.keys(doc.json.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/instance/worker-queues',
        '/api/v1/instance/worker-queues/{id}',
        '/api/v1/instance/worker-groups',
        '/api/v1/instance/worker-groups/{id}',
        '/api/v1/instance/worker-groups/{id}/subscriptions/{queueId}',
        '/api/v1/instance/worker-groups/{id}/tokens',
        '/api/v1/instance/worker-groups/{id}/tokens/{tokenId}',
        '/api/v1/instance/worker-groups/{id}/workers',
        '/api/v1/instance/worker-groups/{id}/capacity',
        '/api/v1/instance/services',
      ]),
    );
    expect(doc.json.paths['/api/v1/instance/worker-groups/{id}/capacity'].get.description).toContain('otherwise 0');
  });
});

describe('worker queues', () => {
  it('lists the reserved default and system queues', async () => {
    const answer = await admin('GET', '/worker-queues');
    expect(answer.status).toBe(200);
    expect(answer.json.map((q: { id: string; reserved: boolean }) => [q.id, q.reserved])).toEqual([
      ['default', true],
      ['system', true],
    ]);
  });

  it('creates a queue (201) with its Kafka topic, and the same PUT again is a 200 that changes nothing', async () => {
    const topic = `${topicPrefix}${workerJobsTopic('gpu')}`;
    const probe = () => kafka.queue.publish(topic, [{ key: 'probe', value: Buffer.from('{}') }]);
    await expect(probe()).rejects.toBeInstanceOf(UnknownTopicError);

    const created = await admin('PUT', '/worker-queues/gpu', { tags: ['gpu', 'linux'], description: 'GPU boxes' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      id: 'gpu',
      tags: ['gpu', 'linux'],
      allowedTenants: [],
      description: 'GPU boxes',
      reserved: false,
    });
    await expect(probe()).resolves.toBeUndefined();

    const again = await admin('PUT', '/worker-queues/gpu', { tags: ['linux', 'gpu'], description: 'GPU boxes' });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(created.json);

    const changed = await admin('PUT', '/worker-queues/gpu', {
      tags: ['gpu', 'linux'],
      allowedTenants: ['main'],
      description: 'GPU boxes',
    });
    expect(changed.status).toBe(200);
    expect(changed.json.allowedTenants).toEqual(['main']);
    expect((await admin('GET', '/worker-queues/gpu')).json).toEqual(changed.json);
    expect((await admin('PUT', '/worker-queues/etl', { tags: ['etl'] })).status).toBe(201);
  });

  it('refuses the reserved ids with 403, and answers 404 for an unknown queue', async () => {
    for (const id of ['default', 'system']) {
      expect((await admin('PUT', `/worker-queues/${id}`, { tags: ['x'] })).status).toBe(403);
      const deleted = await admin('DELETE', `/worker-queues/${id}`);
      expect(deleted.status).toBe(403);
      expect(deleted.json.detail).toContain(`'${id}' is a reserved worker queue id`);
    }
    const unknown = await admin('GET', '/worker-queues/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.json.detail).toBe("Worker queue 'nope' does not exist");
    expect((await admin('DELETE', '/worker-queues/nope')).status).toBe(404);
  });

  it('answers 422 with one entry per problem and its JSON path', async () => {
    const badId = await admin('PUT', '/worker-queues/GPU_1', { tags: ['gpu'] });
    expect(badId.status).toBe(422);
    expect(badId.json.errors).toEqual([{ path: 'id', message: expect.stringContaining("'GPU_1' is not an RFC 1123 label") }]);

    const collision = await admin('PUT', '/worker-queues/gpu-2', { tags: ['linux', 'gpu'] });
    expect(collision.status).toBe(422);
    expect(collision.json.errors).toEqual([{ path: 'tags', message: "has the same tags as the worker queue 'gpu'" }]);

    const several = await admin('PUT', '/worker-queues/arm', { tags: ['arm', ''], allowedTenants: 'main', region: 'eu' });
    expect(several.status).toBe(422);
    expect(several.json.errors.map((e: { path: string }) => e.path)).toEqual(['region', 'tags[1]', 'allowedTenants']);
    expect((await admin('GET', '/worker-queues/arm')).status).toBe(404);
  });

  it('answers 400 to a body that is not JSON', async () => {
    const answer = await call(api.baseUrl, api.adminToken, 'PUT', '/api/v1/instance/worker-queues/arm', undefined, '{"tags": [');
    expect(answer.status).toBe(400);
    expect(answer.json.detail).toBe('The request body could not be read (malformed JSON or encoding)');
  });
});

describe('worker groups and subscriptions', () => {
  it('creates a group (201) and tells controllers its subscriptions; the same PUT again is a 200 that changes nothing', async () => {
    const body = { name: 'ML team', subscriptions: [{ workerQueueId: 'gpu', reservedPercent: 50, mode: 'ELASTIC' }] };
    const created = await admin('PUT', '/worker-groups/ml', body);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      id: 'ml',
      name: 'ML team',
      description: null,
      subscriptions: [{ workerQueueId: 'gpu', reservedPercent: 50, mode: 'ELASTIC' }],
    });
    const [first] = await eventually('subscriptions-changed for ml', () => {
      const seen = changesOf('ml');
      return seen.length > 0 ? seen : undefined;
    });
    expect(first.payload).toEqual({
      workerGroupId: 'ml',
      subscriptions: [{ workerQueueId: 'gpu', reservedPercent: 50, mode: 'ELASTIC' }],
    });

    const again = await admin('PUT', '/worker-groups/ml', body);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(created.json);
    expect((await admin('GET', '/worker-groups/ml')).json).toEqual(created.json);
    expect((await admin('GET', '/worker-groups')).json.map((g: { id: string }) => g.id)).toEqual(['default', 'ml']);
  });

  it('answers 422 with JSON paths for percentages above 100, bad values and unknown queues', async () => {
    const sum = await admin('PUT', '/worker-groups/ml', {
      name: 'ML team',
      subscriptions: [
        { workerQueueId: 'gpu', reservedPercent: 60 },
        { workerQueueId: 'etl', reservedPercent: 50 },
      ],
    });
    expect(sum.status).toBe(422);
    expect(sum.json.errors).toEqual([{ path: 'subscriptions', message: 'reserved percentages add up to 110, above 100' }]);

    const bad = await admin('PUT', '/worker-groups/ml', {
      name: 'ML team',
      subscriptions: [{ workerQueueId: 'nope' }, { workerQueueId: 'etl', reservedPercent: 0, mode: 'LOOSE' }],
    });
    expect(bad.status).toBe(422);
    expect(bad.json.errors).toEqual([
      { path: 'subscriptions[0]', message: "references the unknown worker queue 'nope'" },
      { path: 'subscriptions[1].reservedPercent', message: 'must be a whole number from 1 to 100' },
      { path: 'subscriptions[1].mode', message: 'must be one of STRICT, ELASTIC' },
    ]);
    const badGroupId = await admin('PUT', '/worker-groups/ML', { name: 'x' });
    expect(badGroupId.status).toBe(422);
    expect(badGroupId.json.errors[0].path).toBe('id');
    // Nothing changed.
    expect((await admin('GET', '/worker-groups/ml')).json.subscriptions).toEqual([
      { workerQueueId: 'gpu', reservedPercent: 50, mode: 'ELASTIC' },
    ]);
  });

  it('keeps a restart strategy per group: AFTER_TERMINATION_GRACE_PERIOD by default, kept by a PUT without one, refused with its path', async () => {
    const created = await admin('PUT', '/worker-groups/nightly', { name: 'Nightly' });
    expect(created.status).toBe(201);
    expect(created.json.restartStrategy).toBe('AFTER_TERMINATION_GRACE_PERIOD');
    const never = await admin('PUT', '/worker-groups/nightly', { name: 'Nightly', restartStrategy: 'NEVER' });
    expect([never.status, never.json.restartStrategy]).toEqual([200, 'NEVER']);
    const renamed = await admin('PUT', '/worker-groups/nightly', { name: 'Nightly jobs' });
    expect([renamed.json.name, renamed.json.restartStrategy]).toEqual(['Nightly jobs', 'NEVER']);
    const bad = await admin('PUT', '/worker-groups/nightly', { name: 'Nightly', restartStrategy: 'SOMETIMES' });
    expect(bad.status).toBe(422);
    expect(bad.json.errors).toEqual([
      { path: 'restartStrategy', message: 'must be one of NEVER, IMMEDIATELY, AFTER_TERMINATION_GRACE_PERIOD' },
    ]);
    expect((await admin('GET', '/worker-groups/nightly')).json).toMatchObject({ name: 'Nightly jobs', restartStrategy: 'NEVER' });
    expect((await admin('DELETE', '/worker-groups/nightly')).status).toBe(204);
  });

  it('refuses to delete a queue a group subscribes to (409)', async () => {
    const answer = await admin('DELETE', '/worker-queues/gpu');
    expect(answer.status).toBe(409);
    expect(answer.json.detail).toBe("Worker queue 'gpu' is still subscribed by 'ml'; remove those subscriptions first");
    expect((await admin('GET', '/worker-queues/gpu')).status).toBe(200);
  });

  it('changes one subscription (200) and broadcasts the full new list; refuses a sum above 100 with 422', async () => {
    const put = await admin('PUT', '/worker-groups/ml/subscriptions/etl', { reservedPercent: 25, mode: 'ELASTIC' });
    expect(put.status).toBe(200);
    expect(put.json).toEqual({ workerQueueId: 'etl', reservedPercent: 25, mode: 'ELASTIC' });
    const latest = await eventually('the second subscriptions-changed for ml', () => changesOf('ml')[1]);
    expect(latest.payload).toEqual({
      workerGroupId: 'ml',
      subscriptions: [
        { workerQueueId: 'etl', reservedPercent: 25, mode: 'ELASTIC' },
        { workerQueueId: 'gpu', reservedPercent: 50, mode: 'ELASTIC' },
      ],
    });
    // The idempotent group PUT of the first test published nothing: only the creation and this change are on the topic.
    expect(changesOf('ml')).toHaveLength(2);

    const tooMuch = await admin('PUT', '/worker-groups/ml/subscriptions/etl', { reservedPercent: 60 });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.json.errors).toEqual([
      { path: 'reservedPercent', message: "brings the group's reserved percentages to 110, above 100" },
    ]);
    expect((await admin('PUT', '/worker-groups/nope/subscriptions/etl', {})).status).toBe(404);
    expect((await admin('PUT', '/worker-groups/ml/subscriptions/nope', {})).status).toBe(404);
  });

  it("refuses a subscription to the 'system' queue with 422 naming the field, whichever route asks for it", async () => {
    const system = "cannot subscribe to the 'system' worker queue: it is served only by the in-process system worker";
    const one = await admin('PUT', '/worker-groups/ml/subscriptions/system', {});
    expect(one.status).toBe(422);
    expect(one.json.errors).toEqual([{ path: 'workerQueueId', message: system }]);

    const group = await admin('PUT', '/worker-groups/wants-system', {
      name: 'Wants system',
      subscriptions: [{ workerQueueId: 'gpu' }, { workerQueueId: 'system' }],
    });
    expect(group.status).toBe(422);
    expect(group.json.errors).toEqual([{ path: 'subscriptions[1]', message: system }]);
    expect((await admin('GET', '/worker-groups/wants-system')).status).toBe(404);
    expect(
      (await admin('GET', '/worker-groups/ml')).json.subscriptions.map((s: { workerQueueId: string }) => s.workerQueueId),
    ).not.toContain('system');
  });

  it('removes a subscription (204, broadcast) without deleting its queue, which can then be deleted', async () => {
    expect((await admin('DELETE', '/worker-groups/ml/subscriptions/etl')).status).toBe(204);
    const latest = await eventually('the third subscriptions-changed for ml', () => changesOf('ml')[2]);
    expect(latest.payload.subscriptions).toEqual([{ workerQueueId: 'gpu', reservedPercent: 50, mode: 'ELASTIC' }]);
    expect((await admin('DELETE', '/worker-groups/ml/subscriptions/etl')).status).toBe(404);
    expect((await admin('GET', '/worker-queues/etl')).status).toBe(200);
    expect((await admin('DELETE', '/worker-queues/etl')).status).toBe(204);
    expect((await admin('GET', '/worker-queues/etl')).status).toBe(404);
  });

  it('keeps the default group and its default subscription (403)', async () => {
    expect((await admin('DELETE', '/worker-groups/default')).status).toBe(403);
    expect((await admin('DELETE', '/worker-groups/default/subscriptions/default')).status).toBe(403);
    const renamed = await admin('PUT', '/worker-groups/default', { name: 'Everyone', subscriptions: [{ workerQueueId: 'gpu' }] });
    expect(renamed.status).toBe(200);
    expect(renamed.json.subscriptions.map((s: { workerQueueId: string }) => s.workerQueueId)).toEqual(['default', 'gpu']);
    expect((await admin('DELETE', '/worker-groups/default/subscriptions/gpu')).status).toBe(204);
    expect((await admin('DELETE', '/worker-groups/nope')).status).toBe(404);
  });
});

describe('registration tokens', () => {
  let token: { id: string; name: string; token: string };

  it('shows a new token once, lists it without its value, and stores only its SHA-256 hash', async () => {
    const created = await admin('POST', '/worker-groups/ml/tokens', { name: 'rack-1' });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      id: expect.any(String),
      name: 'rack-1',
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      createdAt: expect.any(String),
    });
    token = created.json;

    const listed = await admin('GET', '/worker-groups/ml/tokens');
    expect(listed.json).toEqual([
      { id: token.id, name: 'rack-1', createdAt: created.json.createdAt, lastUsedAt: null, revokedAt: null },
    ]);
    expect(listed.text).not.toContain(token.token);
    expect(listed.text).not.toContain(sha256(token.token));

    const rows = await database.rows('registration_tokens');
    expect(rows.map((row) => row['token_hash'])).toEqual([sha256(token.token)]);
    expect(JSON.stringify(rows)).not.toContain(token.token);
  });

  it('refuses a second token of the same name (409), a missing name (422) and an unknown group (404)', async () => {
    expect((await admin('POST', '/worker-groups/ml/tokens', { name: 'rack-1' })).status).toBe(409);
    const unnamed = await admin('POST', '/worker-groups/ml/tokens', { label: 'x' });
    expect(unnamed.status).toBe(422);
    expect(unnamed.json.errors).toEqual([
      { path: 'label', message: 'is not a known field of a registration token' },
      { path: 'name', message: 'is required' },
    ]);
    for (const [body, errors] of [
      [{ name: '   ' }, [{ path: 'name', message: 'must be a non-blank string' }]],
      [{ name: 7 }, [{ path: 'name', message: 'must be a non-blank string' }]],
      [{ name: 'r'.repeat(201) }, [{ path: 'name', message: 'must be at most 200 characters' }]],
      [['rack-2'], [{ path: '$', message: 'must be an object describing a registration token' }]],
    ] as const) {
      const refused = await admin('POST', '/worker-groups/ml/tokens', body);
      expect({ status: refused.status, errors: refused.json.errors }).toEqual({ status: 422, errors });
    }
    expect((await admin('POST', '/worker-groups/nope/tokens', { name: 'x' })).status).toBe(404);
  });

  it('revokes a token at once (204), ends the refresh tokens of its workers, and tells controllers', async () => {
    const familyId = randomUUID();
    await database.repositories.workerCredentials.createWorker(
      { id: `worker-${randomUUID()}`, workerGroupId: 'ml', registrationTokenId: token.id, name: 'rack-1-node' },
      { tokenHash: sha256(randomBytes(32).toString('base64url')), familyId, expiresAt: new Date(Date.now() + 3_600_000) },
      new Date(),
    );
    expect((await admin('DELETE', `/worker-groups/ml/tokens/${token.id}`)).status).toBe(204);
    const [refreshToken] = await database.repositories.workerCredentials.listFamily(familyId);
    expect(refreshToken.revokedAt).toBeInstanceOf(Date);
    const revoked = await eventually('token-revoked for ml', () => revocationsOf('ml')[0]);
    expect(revoked.payload).toEqual({ workerGroupId: 'ml', registrationTokenId: token.id });
    expect(JSON.stringify(revoked)).not.toContain(token.token);
    expect((await admin('GET', '/worker-groups/ml/tokens')).json[0].revokedAt).toEqual(expect.any(String));
    expect((await database.repositories.registrationTokens.findByHash(sha256(token.token)))?.revokedAt).toBeInstanceOf(Date);
    expect((await admin('DELETE', `/worker-groups/ml/tokens/${randomUUID()}`)).status).toBe(404);
    expect((await admin('DELETE', '/worker-groups/ml/tokens/not-a-token-id')).status).toBe(404);
  });
});

describe('connected workers, capacity and services', () => {
  it('lists the live workers of a group and their capacity ledgers; rows of a dead controller are not shown', async () => {
    const now = new Date();
    const base = {
      workerGroupId: 'ml',
      controllerInstanceId: 'controller-a',
      registrationTokenId: null,
      labels: null,
      connectedAt: now,
    };
    await database.repositories.connectedWorkers.upsert(
      {
        ...base,
        workerId: 'w-1',
        workerName: 'gpu-box-1',
        slots: 16,
        draining: false,
        queueIds: ['gpu'],
        capacity: {
          slots: 16,
          reserved: 8,
          shared: 8,
          used: 3,
          free: 13,
          sharedUsed: 1,
          borrowed: 0,
          lent: 0,
          subscriptions: [
            {
              workerQueueId: 'gpu',
              mode: 'ELASTIC',
              subscribed: true,
              reservedPercent: 50,
              reserved: 8,
              used: 3,
              reservedUsed: 2,
              sharedUsed: 1,
              borrowed: 0,
              lent: 0,
              idleReserved: 6,
            },
          ],
        },
      },
      now,
    );
    await database.repositories.connectedWorkers.upsert(
      { ...base, workerId: 'w-2', workerName: 'gpu-box-2', slots: 4, draining: true, queueIds: ['gpu'], capacity: null },
      now,
    );
    await database.repositories.connectedWorkers.upsert(
      {
        ...base,
        workerId: 'w-3',
        workerName: 'gone',
        controllerInstanceId: 'controller-dead',
        slots: 4,
        draining: false,
        queueIds: ['gpu'],
        capacity: null,
      },
      new Date(now.getTime() - 60_000),
    );

    const workers = await admin('GET', '/worker-groups/ml/workers');
    expect(workers.status).toBe(200);
    expect(workers.json).toEqual([
      {
        id: 'w-1',
        name: 'gpu-box-1',
        controller: 'controller-a',
        slots: 16,
        state: 'CONNECTED',
        draining: false,
        queues: ['gpu'],
        connectedAt: now.toISOString(),
        lastHeartbeatAt: now.toISOString(),
      },
      {
        id: 'w-2',
        name: 'gpu-box-2',
        controller: 'controller-a',
        slots: 4,
        state: 'DRAINING',
        draining: true,
        queues: ['gpu'],
        connectedAt: now.toISOString(),
        lastHeartbeatAt: now.toISOString(),
      },
    ]);

    const capacity = await admin('GET', '/worker-groups/ml/capacity');
    expect(capacity.status).toBe(200);
    expect(capacity.json).toEqual({
      workerGroupId: 'ml',
      workers: [
        {
          workerId: 'w-1',
          name: 'gpu-box-1',
          slots: 16,
          state: 'CONNECTED',
          reported: true,
          reserved: 8,
          used: 3,
          borrowed: 0,
          lent: 0,
          waiting: 0,
          subscriptions: [
            {
              workerQueueId: 'gpu',
              mode: 'ELASTIC',
              reservedPercent: 50,
              reserved: 8,
              used: 3,
              borrowed: 0,
              lent: 0,
              waiting: 0,
            },
          ],
        },
        {
          workerId: 'w-2',
          name: 'gpu-box-2',
          slots: 4,
          state: 'DRAINING',
          reported: false,
          reserved: 0,
          used: 0,
          borrowed: 0,
          lent: 0,
          waiting: 0,
          subscriptions: [],
        },
      ],
    });
    expect((await admin('GET', '/worker-groups/default/workers')).json).toEqual([]);
    expect((await admin('GET', '/worker-groups/nope/workers')).status).toBe(404);
    expect((await admin('GET', '/worker-groups/nope/capacity')).status).toBe(404);
  });

  it('lists the service instances of every role with state and last heartbeat', async () => {
    const at = new Date('2026-11-30T04:00:00.000Z');
    await database.repositories.serviceInstances.register({ id: 'executor-spec-1', role: 'EXECUTOR', host: 'node-a' }, at);
    const answer = await admin('GET', '/services');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual(
      expect.arrayContaining([
        {
          id: 'executor-spec-1',
          role: 'EXECUTOR',
          host: 'node-a',
          state: 'RUNNING',
          startedAt: at.toISOString(),
          heartbeatAt: at.toISOString(),
          stateChangedAt: at.toISOString(),
        },
      ]),
    );
  });
});

describe('deleting a group', () => {
  it('removes it with its tokens (204) and tells controllers it has no subscriptions and no usable token left', async () => {
    const second = await admin('POST', '/worker-groups/ml/tokens', { name: 'rack-2' });
    expect(second.status).toBe(201);
    expect((await admin('DELETE', '/worker-groups/ml')).status).toBe(204);
    expect((await admin('GET', '/worker-groups/ml')).status).toBe(404);
    const emptied = await eventually('the last subscriptions-changed for ml', () =>
      changesOf('ml').find((m) => m.payload.subscriptions.length === 0),
    );
    expect(emptied.payload).toEqual({ workerGroupId: 'ml', subscriptions: [] });
    const revoked = await eventually('token-revoked for the second token', () =>
      revocationsOf('ml').find((m) => m.payload.registrationTokenId === second.json.id),
    );
    expect(revoked.payload.workerGroupId).toBe('ml');
    expect(await database.rows('registration_tokens')).toEqual([]);
    // Now nothing subscribes to gpu.
    expect((await admin('DELETE', '/worker-queues/gpu')).status).toBe(204);
  });
});
