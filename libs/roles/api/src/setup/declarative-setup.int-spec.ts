import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spineTopics, workerJobsTopic } from '@lanner/frames';
import { RESERVED_WORKER_QUEUE_IDS } from '@lanner/model';
import { eventually } from '../testing/api-spec-fixture';
import {
  call,
  connectSpecKafka,
  createSpecDatabase,
  startSpecApi,
  type SpecDatabase,
  type SpecKafka,
} from '../topology/topology-spec-fixture';

// The declarative setup (WORKERS.md) applied by the real api role at start,
// on the real PostgreSQL and Kafka: a valid file seeds queues, groups and
// tokens; a second start skips all of it; an invalid file stops the start
// with every problem named by its path, and nothing is written.

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const newToken = () => randomBytes(32).toString('base64url');
const topicPrefix = `test-setup-${randomBytes(4).toString('hex')}.`;
const folder = mkdtempSync(join(tmpdir(), 'lanner-setup-spec-'));
let kafka: SpecKafka;

beforeAll(async () => {
  kafka = await connectSpecKafka(topicPrefix);
}, 60_000);

afterAll(async () => {
  await kafka?.close([
    ...spineTopics(RESERVED_WORKER_QUEUE_IDS, topicPrefix),
    ...['gpu', 'etl'].map((id) => `${topicPrefix}${workerJobsTopic(id)}`),
  ]);
  rmSync(folder, { recursive: true, force: true });
  delete process.env['LANNER_SPEC_ETL_TOKEN'];
}, 60_000);

describe('a valid setup file', () => {
  const fileToken = newToken();
  const envToken = newToken();
  let database: SpecDatabase;
  const setupFile = join(folder, 'lanner.yml');

  beforeAll(async () => {
    database = await createSpecDatabase();
    writeFileSync(join(folder, 'gpu-rack.token'), `${fileToken}\n`, { mode: 0o600 });
    process.env['LANNER_SPEC_ETL_TOKEN'] = envToken;
    writeFileSync(
      setupFile,
      `# Lanner setup for the spec
setup:
  workerQueues:
    - id: gpu
      tags: [gpu, linux]
      description: GPU boxes
    - id: etl
      tags: [etl]
      allowedTenants: [main]
  workerGroups:
    - id: gpu-team
      name: GPU team
      subscriptions:
        - { workerQueueId: gpu, reservedPercent: 50, mode: ELASTIC }
        - { workerQueueId: etl }
      registrationTokens:
        - { name: rack-1, tokenFile: gpu-rack.token }
    - id: etl-team
      subscriptions:
        - { workerQueueId: etl, reservedPercent: 100 }
      registrationTokens:
        - { name: ci, token: "\${LANNER_SPEC_ETL_TOKEN}" }
    - id: default
      name: Everyone
`,
    );
  }, 60_000);

  afterAll(async () => {
    await database?.drop();
  }, 60_000);

  it('is applied at start: queues with their topics, groups with subscriptions, tokens stored by hash; one log line each and a summary', async () => {
    const api = await startSpecApi({ database, topicPrefix, setupFile });
    try {
      const admin = (path: string) => call(api.baseUrl, api.adminToken, 'GET', `/api/v1/instance${path}`);
      expect((await admin('/worker-queues')).json.map((q: { id: string; tags: string[] }) => [q.id, q.tags])).toEqual([
        ['default', []],
        ['etl', ['etl']],
        ['gpu', ['gpu', 'linux']],
        ['system', []],
      ]);
      expect((await admin('/worker-groups/gpu-team')).json).toMatchObject({
        name: 'GPU team',
        subscriptions: [
          { workerQueueId: 'etl', reservedPercent: null, mode: 'STRICT' },
          { workerQueueId: 'gpu', reservedPercent: 50, mode: 'ELASTIC' },
        ],
      });
      expect((await admin('/worker-groups/etl-team')).json).toMatchObject({
        name: 'etl-team',
        subscriptions: [{ workerQueueId: 'etl', reservedPercent: 100 }],
      });
      // `default` existed (it always does): skipped whole, its name unchanged.
      expect((await admin('/worker-groups/default')).json.name).toBe('Default');

      expect((await database.repositories.registrationTokens.findByHash(sha256(fileToken)))?.workerGroupId).toBe('gpu-team');
      expect((await database.repositories.registrationTokens.findByHash(sha256(envToken)))?.workerGroupId).toBe('etl-team');
      const rows = JSON.stringify(await database.rows('registration_tokens'));
      expect(rows).not.toContain(fileToken);
      expect(rows).not.toContain(envToken);
      expect((await admin('/worker-groups/gpu-team/tokens')).json.map((t: { name: string }) => t.name)).toEqual(['rack-1']);

      for (const id of ['gpu', 'etl']) {
        await expect(
          kafka.queue.publish(`${topicPrefix}${workerJobsTopic(id)}`, [{ key: 'probe', value: Buffer.from('{}') }]),
        ).resolves.toBeUndefined();
      }

      const setupLines = api.logs.lines.filter((line) => /worker (queue|group) '|setup: worker queues/.test(line));
      expect(setupLines).toEqual([
        expect.stringContaining("created worker queue 'gpu' (tags gpu, linux; all tenants)"),
        expect.stringContaining("created worker queue 'etl' (tags etl; tenants main)"),
        expect.stringContaining(
          "created worker group 'gpu-team' with 2 subscriptions (gpu 50% ELASTIC, etl STRICT) and 1 registration token ('rack-1' from file gpu-rack.token)",
        ),
        expect.stringContaining(
          "created worker group 'etl-team' with 1 subscription (etl 100% STRICT) and 1 registration token ('ci' from config)",
        ),
        expect.stringContaining("skipped worker group 'default': it already exists"),
        expect.stringContaining('setup: worker queues 2 created, 0 skipped; worker groups 2 created, 1 skipped'),
      ]);
      const everything = api.logs.lines.join('\n');
      expect(everything).not.toContain(fileToken);
      expect(everything).not.toContain(envToken);
    } finally {
      await api.close();
    }
  }, 120_000);

  it('is skipped whole at the next start, even where the file changed, and changes nothing', async () => {
    const before = {
      queues: await database.rows('worker_queues'),
      groups: await database.rows('worker_groups'),
      tokens: await database.rows('registration_tokens'),
    };
    // A changed declaration of existing ids (seed, not desired state): still skipped.
    process.env['LANNER_SPEC_ETL_TOKEN'] = newToken();
    const api = await startSpecApi({ database, topicPrefix, setupFile });
    try {
      const summary = await eventually('the setup summary', () =>
        api.logs.lines.find((line) => line.includes('setup: worker queues')),
      );
      expect(summary).toContain('setup: worker queues 0 created, 2 skipped; worker groups 0 created, 3 skipped');
      expect(api.logs.lines.filter((line) => line.includes('skipped worker '))).toHaveLength(5);
      expect(await database.rows('worker_queues')).toEqual(before.queues);
      expect(await database.rows('worker_groups')).toEqual(before.groups);
      expect(await database.rows('registration_tokens')).toEqual(before.tokens);
    } finally {
      await api.close();
    }
  }, 120_000);
});

describe('an invalid setup file', () => {
  let database: SpecDatabase;
  const elsewhereToken = newToken();

  beforeAll(async () => {
    database = await createSpecDatabase();
    await database.repositories.workerGroups.seedReserved();
    await database.repositories.workerGroups.put({ id: 'legacy', name: 'Legacy' });
    await database.repositories.registrationTokens.create('legacy', 'old', sha256(elsewhereToken));
    await database.repositories.workerQueues.put({ id: 'arm', tags: ['arm'] });
  }, 60_000);

  afterAll(async () => {
    await database?.drop();
  }, 60_000);

  it('stops the start with every problem named by its path, without a stack trace or a token value, and writes nothing', async () => {
    const malformed = 'short-token';
    const setupFile = join(folder, 'invalid.yml');
    writeFileSync(
      setupFile,
      `setup:
  workerQueues:
    - id: GPU
      tags: [gpu]
    - id: arm-too
      tags: [arm]
    - id: empty
      tags: []
  workerGroups:
    - id: data
      subscriptions:
        - { workerQueueId: empty, reservedPercent: 60 }
        - { workerQueueId: etl, reservedPercent: 50 }
      registrationTokens:
        - { name: a, tokenFile: missing.token }
        - { name: b, token: ${malformed} }
        - { name: c, token: ${elsewhereToken} }
`,
    );
    const before = {
      queues: await database.rows('worker_queues'),
      groups: await database.rows('worker_groups'),
      tokens: await database.rows('registration_tokens'),
    };

    const failure: Error = await startSpecApi({ database, topicPrefix, setupFile }).then(
      (api) =>
        api.close().then(() => {
          throw new Error('the api started with an invalid setup');
        }),
      (error: Error) => error,
    );
    expect(failure.name).toBe('InvalidSetup');
    const lines = failure.message.split('\n');
    expect(lines[0]).toBe(`the declarative setup in ${setupFile} is invalid, nothing was written (8 problems):`);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^ {2}setup\.workerQueues\[0\]\.id 'GPU' is not an RFC 1123 label/),
      '  setup.workerQueues[2].tags must hold at least one tag',
      "  setup.workerQueues[1].tags has the same tags as the existing worker queue 'arm'",
      "  setup.workerGroups[0].subscriptions[1] references the unknown worker queue 'etl'",
      '  setup.workerGroups[0].subscriptions reserved percentages add up to 110, above 100',
      '  setup.workerGroups[0].registrationTokens[0].tokenFile names a file that cannot be read (ENOENT)',
      expect.stringMatching(/^ {2}setup\.workerGroups\[0\]\.registrationTokens\[1\]\.token is a malformed registration token/),
      "  setup.workerGroups[0].registrationTokens[2] is already registered on the worker group 'legacy'",
    ]);
    expect(failure.stack).not.toMatch(/\n\s+at /);
    expect(failure.message).not.toContain(elsewhereToken);
    expect(failure.message).not.toContain(malformed);

    expect(await database.rows('worker_queues')).toEqual(before.queues);
    expect(await database.rows('worker_groups')).toEqual(before.groups);
    expect(await database.rows('registration_tokens')).toEqual(before.tokens);
  }, 120_000);

  it('stops the start when the file is not YAML, naming LANNER_SETUP_FILE and the line', async () => {
    const setupFile = join(folder, 'broken.yml');
    writeFileSync(setupFile, 'setup:\n  workerQueues: [\n    - id: gpu\n');
    const failure: Error = await startSpecApi({ database, topicPrefix, setupFile }).then(
      (api) =>
        api.close().then(() => {
          throw new Error('the api started with a broken setup file');
        }),
      (error: Error) => error,
    );
    expect(failure.name).toBe('InvalidSetup');
    expect(failure.message).toMatch(
      new RegExp(
        `LANNER_SETUP_FILE ${setupFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid YAML \\(\\w+ at line \\d+, column \\d+\\)`,
      ),
    );
  }, 120_000);
});

describe('API tokens in the setup file', () => {
  let database: SpecDatabase;
  const ciToken = newToken();
  const setupFile = join(folder, 'tokens.yml');

  beforeAll(async () => {
    database = await createSpecDatabase();
    process.env['LANNER_SPEC_CI_TOKEN'] = ciToken;
    writeFileSync(
      setupFile,
      `setup:
  apiTokens:
    - { tenant: main, name: ci-team, role: developer, namespace: company.team, token: "\${LANNER_SPEC_CI_TOKEN}" }
`,
    );
  }, 60_000);

  afterAll(async () => {
    delete process.env['LANNER_SPEC_CI_TOKEN'];
    await database?.drop();
  }, 60_000);

  it('are seeded by hash with their role and namespace, and left as they are at the next start', async () => {
    let api = await startSpecApi({ database, topicPrefix, setupFile });
    try {
      const search = await call(api.baseUrl, ciToken, 'GET', '/api/v1/main/flows/search');
      expect(search.status).toBe(200);
      const outside = await call(api.baseUrl, ciToken, 'GET', '/api/v1/main/flows/search?namespace=other');
      expect(outside.status).toBe(403);
      expect((await call(api.baseUrl, ciToken, 'GET', '/api/v1/instance/worker-queues')).status).toBe(403);
      expect(JSON.stringify(await database.rows('api_tokens'))).not.toContain(ciToken);
      expect(api.logs.lines.join('\n')).not.toContain(ciToken);
      expect(api.logs.lines.some((line) => line.includes("created API token 'ci-team' of tenant 'main' (developer)"))).toBe(true);
    } finally {
      await api.close();
    }

    const changed = newToken();
    process.env['LANNER_SPEC_CI_TOKEN'] = changed;
    api = await startSpecApi({ database, topicPrefix, setupFile });
    try {
      await eventually('the setup summary', () =>
        api.logs.lines.find((line) => line.includes('API tokens: 0 created, 1 skipped')),
      );
      expect((await call(api.baseUrl, ciToken, 'GET', '/api/v1/main/flows/search')).status).toBe(200);
      expect((await call(api.baseUrl, changed, 'GET', '/api/v1/main/flows/search')).status).toBe(401);
    } finally {
      await api.close();
    }
  }, 120_000);

  it('stop the start when one is invalid, naming its path and not its value, and write nothing', async () => {
    const badFile = join(folder, 'bad-tokens.yml');
    const short = 'too-short-to-be-a-token';
    writeFileSync(
      badFile,
      `setup:
  apiTokens:
    - { tenant: main, name: nightly, role: owner, token: ${short} }
    - { tenant: main, name: unset, role: viewer, token: "\${LANNER_SPEC_UNSET_TOKEN}" }
`,
    );
    const declared = async () => (await database.rows('api_tokens')).filter((row) => row['name'] !== 'bootstrap-admin');
    const before = await declared();
    const failure: Error = await startSpecApi({ database, topicPrefix, setupFile: badFile }).then(
      (api) =>
        api.close().then(() => {
          throw new Error('the api started with an invalid setup');
        }),
      (error: Error) => error,
    );
    expect(failure.name).toBe('InvalidSetup');
    expect(failure.message.split('\n').slice(1)).toEqual([
      '  setup.apiTokens[0].role must be one of viewer, developer, admin',
      '  setup.apiTokens[0].token must be 43 to 512 URL-safe base64 characters (A-Z, a-z, 0-9, - and _)',
      '  setup.apiTokens[1].token is an unresolved environment placeholder: set the variable it names',
    ]);
    expect(failure.message).not.toContain(short);
    expect(await declared()).toEqual(before);
  }, 120_000);
});

describe('tenants and users in the setup file', () => {
  let database: SpecDatabase;
  const alicePassword = `alice-${randomBytes(12).toString('hex')}`;
  const rootPassword = `root-${randomBytes(12).toString('hex')}`;
  const teamToken = newToken();
  const setupFile = join(folder, 'access.yml');
  const users = { signingKey: randomBytes(32).toString('hex') };
  const login = (baseUrl: string, username: string, password: string) =>
    call(baseUrl, null, 'POST', '/api/v1/auth/login', { username, password });

  beforeAll(async () => {
    database = await createSpecDatabase();
    writeFileSync(join(folder, 'alice.password'), `${alicePassword}\n`, { mode: 0o600 });
    writeFileSync(join(folder, 'team-a-ci.token'), `${teamToken}\n`, { mode: 0o600 });
    process.env['LANNER_SPEC_ROOT_PASSWORD'] = rootPassword;
    writeFileSync(
      setupFile,
      `setup:
  tenants:
    - { id: team-a, name: Team A }
  users:
    - { username: alice, tenant: team-a, role: developer, passwordFile: alice.password }
    - { username: root, role: admin, instanceAdmin: true, passwordEnv: LANNER_SPEC_ROOT_PASSWORD }
  apiTokens:
    - { tenant: team-a, name: ci, role: viewer, tokenFile: team-a-ci.token }
`,
    );
  }, 60_000);

  afterAll(async () => {
    delete process.env['LANNER_SPEC_ROOT_PASSWORD'];
    await database?.drop();
  }, 60_000);

  it('are created when missing: the tenant served, users logging in with the password of their file or variable, the token from its file', async () => {
    const api = await startSpecApi({ database, topicPrefix, setupFile, users });
    try {
      const tenants = await call(api.baseUrl, api.adminToken, 'GET', '/api/v1/instance/tenants');
      expect(tenants.json.find((tenant: { id: string }) => tenant.id === 'team-a')).toMatchObject({ name: 'Team A' });

      const alice = await login(api.baseUrl, 'alice', alicePassword);
      expect(alice.status).toBe(200);
      expect(alice.json.user).toMatchObject({ username: 'alice', tenant: 'team-a', role: 'developer', instanceAdmin: false });
      const written = await fetch(`${api.baseUrl}/api/v1/team-a/flows`, {
        method: 'POST',
        headers: { authorization: `Bearer ${alice.json.accessToken}`, 'content-type': 'application/x-yaml' },
        body: 'id: hello\nnamespace: company.team\ntasks:\n  - { id: say, type: io.kestra.plugin.core.log.Log, message: hi }\n',
      });
      expect(written.status).toBe(201);
      expect((await call(api.baseUrl, alice.json.accessToken, 'GET', '/api/v1/main/flows/search')).status).toBe(403);

      const root = await login(api.baseUrl, 'root', rootPassword);
      expect(root.status).toBe(200);
      expect((await call(api.baseUrl, root.json.accessToken, 'GET', '/api/v1/instance/users')).status).toBe(200);

      expect((await call(api.baseUrl, teamToken, 'GET', '/api/v1/team-a/flows/search')).status).toBe(200);
      expect((await call(api.baseUrl, teamToken, 'POST', '/api/v1/team-a/flows', undefined, '')).status).toBe(403);

      // Stored as hashes only; the log names the password's source, never a secret.
      const userRows = JSON.stringify(await database.rows('users'));
      expect(userRows).not.toContain(alicePassword);
      expect(userRows).not.toContain(rootPassword);
      expect(userRows).toContain('$argon2id$');
      expect(JSON.stringify(await database.rows('api_tokens'))).not.toContain(teamToken);
      const log = api.logs.lines.join('\n');
      for (const secret of [alicePassword, rootPassword, teamToken]) expect(log).not.toContain(secret);
      expect(log).toContain("created tenant 'team-a'");
      expect(log).toContain("created user 'alice' of tenant 'team-a' (developer), password from the file alice.password");
      expect(log).toContain(
        "created user 'root' of tenant 'main' (admin, instance admin), password from the environment variable LANNER_SPEC_ROOT_PASSWORD",
      );
      expect(log).toContain('tenants: 1 created, 0 skipped; users: 2 created, 0 skipped; API tokens: 1 created, 0 skipped');
    } finally {
      await api.close();
    }
  }, 120_000);

  it('are left as they are when present: a changed password or role in the file does not replace the stored one', async () => {
    const changedPassword = `changed-${randomBytes(12).toString('hex')}`;
    process.env['LANNER_SPEC_ROOT_PASSWORD'] = changedPassword;
    writeFileSync(
      setupFile,
      `setup:
  tenants:
    - { id: team-a, name: Renamed }
  users:
    - { username: alice, tenant: team-a, role: admin, passwordFile: alice.password }
    - { username: root, role: admin, instanceAdmin: true, passwordEnv: LANNER_SPEC_ROOT_PASSWORD }
`,
    );
    const api = await startSpecApi({ database, topicPrefix, setupFile, users });
    try {
      await eventually('the setup summary', () =>
        api.logs.lines.find((line) => line.includes('tenants: 0 created, 1 skipped; users: 0 created, 2 skipped')),
      );
      expect((await login(api.baseUrl, 'root', rootPassword)).status).toBe(200);
      expect((await login(api.baseUrl, 'root', changedPassword)).status).toBe(401);
      expect((await login(api.baseUrl, 'alice', alicePassword)).json.user.role).toBe('developer');
      const tenants = await call(api.baseUrl, api.adminToken, 'GET', '/api/v1/instance/tenants');
      expect(tenants.json.find((tenant: { id: string }) => tenant.id === 'team-a').name).toBe('Team A');
    } finally {
      await api.close();
    }
  }, 120_000);

  it('stop the start on a password written in the file or a tenant that is nowhere, naming the path, and write nothing', async () => {
    const badFile = join(folder, 'bad-access.yml');
    const plain = 'a-plain-password-in-the-file';
    writeFileSync(
      badFile,
      `setup:
  tenants:
    - { id: team-new }
  users:
    - { username: mallory, role: admin, password: ${plain} }
    - { username: oscar, tenant: nowhere, role: viewer, passwordEnv: LANNER_SPEC_ROOT_PASSWORD }
`,
    );
    const failure: Error = await startSpecApi({ database, topicPrefix, setupFile: badFile, users }).then(
      (api) =>
        api.close().then(() => {
          throw new Error('the api started with an invalid setup');
        }),
      (error: Error) => error,
    );
    expect(failure.name).toBe('InvalidSetup');
    expect(failure.message.split('\n').slice(1)).toEqual([
      '  setup.users[0].password is not allowed: a password is never written in the setup file (use passwordEnv or passwordFile)',
      '  setup.users[0] needs exactly one of passwordEnv (an environment variable) or passwordFile',
      "  setup.users[1].tenant names the unknown tenant 'nowhere': declare it under setup.tenants or create it first",
    ]);
    expect(failure.message).not.toContain(plain);
    expect((await database.rows('tenants')).map((row) => row['id'])).not.toContain('team-new');
    expect((await database.rows('users')).map((row) => row['username']).sort()).toEqual(['alice', 'root']);
  }, 120_000);
});
