// A worker joins its group with a registration token, keeps rotating
// credentials on disk, and stops cleanly when they are refused: the worker runs
// as its own process against a real gRPC controller peer (WorkerAuthService +
// Connect) in this test process.
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT_CREDENTIALS_REFUSED } from './worker-agent.factory';
import { FAKE_GROUP_ID, FakeController } from './testing/fake-controller';
import {
  eventually,
  readiness,
  startWorker,
  stopAllWorkers,
  stopWorker,
  temporaryDir,
  type WorkerProcess,
} from './testing/worker-process';

const REGISTRATION_TOKEN = `lanner_wrt_${randomBytes(32).toString('base64url')}`;

interface StoredFile {
  workerId: string;
  workerGroupId: string;
  accessToken: string;
  accessExpiresAt: string;
  refreshToken: string;
  refreshExpiresAt: string;
}

const credentialsFile = (dataDir: string) => join(dataDir, 'credentials.json');
const stored = (dataDir: string) => JSON.parse(readFileSync(credentialsFile(dataDir), 'utf8')) as StoredFile;

function expectNoSecretIn(worker: WorkerProcess, controller: FakeController): void {
  const output = worker.output();
  expect(output).not.toContain(REGISTRATION_TOKEN);
  for (const credentials of controller.issued) {
    expect(output).not.toContain(credentials.accessToken);
    expect(output).not.toContain(credentials.refreshToken);
  }
}

afterAll(() => stopAllWorkers());

describe('a worker with a registration token', () => {
  let controller: FakeController;
  const dataDir = temporaryDir();

  beforeAll(async () => {
    controller = await FakeController.start(0, { auth: { registrationTokens: [REGISTRATION_TOKEN], requireToken: true } });
  });
  afterAll(() => controller.stop());

  it('registers once, keeps its credentials in a 0600 file and opens its stream with the Bearer access token', async () => {
    const worker = await startWorker({
      controllers: controller.address,
      name: 'gpu-1',
      dataDir,
      env: { LANNER_WORKER_REGISTRATION_TOKEN: REGISTRATION_TOKEN },
    });
    await controller.waitForFrame('credit');
    await eventually('readiness', async () => ((await readiness(worker.port)) === 200 ? true : undefined));

    expect(controller.registrations).toEqual([{ registrationToken: REGISTRATION_TOKEN, workerName: 'gpu-1' }]);
    const [issued] = controller.issued;
    expect(controller.connects).toHaveLength(1);
    expect(controller.connects[0]).toMatchObject({ authorization: `Bearer ${issued.accessToken}`, refused: false });

    expect(statSync(credentialsFile(dataDir)).mode & 0o777).toBe(0o600);
    expect(stored(dataDir)).toEqual({
      version: 1,
      workerId: issued.workerId,
      workerGroupId: FAKE_GROUP_ID,
      accessToken: issued.accessToken,
      accessExpiresAt: issued.accessExpiresAt?.toISOString(),
      refreshToken: issued.refreshToken,
      refreshExpiresAt: issued.refreshExpiresAt?.toISOString(),
    });
    expect(worker.output()).toContain('worker registered');
    expectNoSecretIn(worker, controller);
    expect(await stopWorker(worker)).toBe(0);
  });

  it('restarted with its stored credentials and no registration token, it connects without registering again', async () => {
    const connectsBefore = controller.connects.length;
    const worker = await startWorker({ controllers: controller.address, name: 'gpu-1', dataDir });
    await controller.waitFor('a new stream', () => (controller.connects.length > connectsBefore ? true : undefined));
    await eventually('readiness', async () => ((await readiness(worker.port)) === 200 ? true : undefined));

    expect(controller.registrations).toHaveLength(1);
    expect(controller.connects.at(-1)).toMatchObject({ authorization: `Bearer ${stored(dataDir).accessToken}`, refused: false });
    expect(worker.output()).toContain('using the stored worker credentials');
    expectNoSecretIn(worker, controller);
    expect(await stopWorker(worker)).toBe(0);
  });
});

describe('a worker whose access token nears its expiry', () => {
  it('refreshes it before it expires, stores the rotated pair, and opens its next stream with the new token', async () => {
    // Access tokens live 4 s; the worker refreshes 2 s before expiry.
    const controller = await FakeController.start(0, {
      auth: { registrationTokens: [REGISTRATION_TOKEN], accessTtlMs: 4_000, requireToken: true },
    });
    try {
      const dataDir = temporaryDir();
      const worker = await startWorker({
        controllers: controller.address,
        name: 'rotating',
        dataDir,
        env: { LANNER_WORKER_REGISTRATION_TOKEN: REGISTRATION_TOKEN, LANNER_WORKER_REFRESH_BUFFER_S: '2' },
      });
      await controller.waitForFrame('credit');
      const first = controller.issued[0];

      await controller.waitFor('a refresh', () => (controller.refreshes.length > 0 ? true : undefined), 15_000);
      expect(controller.refreshes[0]).toBe(first.refreshToken);
      const rotated = await eventually('the rotated pair on disk', () => {
        const onDisk = stored(dataDir);
        return onDisk.refreshToken !== first.refreshToken ? onDisk : undefined;
      });
      expect(controller.issued.map((credentials) => credentials.refreshToken)).toContain(rotated.refreshToken);
      expect(statSync(credentialsFile(dataDir)).mode & 0o777).toBe(0o600);
      expect(controller.registrations).toHaveLength(1);

      // The first access token has expired by now; the stream that was opened with it stays up,
      // and the stream after a recycle is opened with a current token.
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, (first.accessExpiresAt?.getTime() ?? 0) - Date.now() + 500)),
      );
      expect(controller.connects).toHaveLength(1);
      controller.reconnect('stream recycled by the spec');
      await controller.waitFor('the second stream', () => (controller.connects.length > 1 ? true : undefined));
      const second = controller.connects[1];
      expect(second.refused).toBe(false);
      expect(second.authorization).not.toBe(`Bearer ${first.accessToken}`);
      expect(controller.issued.map((credentials) => `Bearer ${credentials.accessToken}`)).toContain(second.authorization);
      expectNoSecretIn(worker, controller);
      expect(await stopWorker(worker)).toBe(0);
    } finally {
      controller.stop();
    }
  });
});

describe('a worker whose refresh is refused', () => {
  function writeExpiredCredentials(dataDir: string): StoredFile {
    const credentials = {
      version: 1,
      workerId: 'w-revoked',
      workerGroupId: FAKE_GROUP_ID,
      accessToken: 'expired-access-token-value',
      accessExpiresAt: new Date(Date.now() - 60_000).toISOString(),
      refreshToken: `revoked-refresh-${randomBytes(8).toString('hex')}`,
      refreshExpiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    };
    writeFileSync(credentialsFile(dataDir), JSON.stringify(credentials), { mode: 0o600 });
    return credentials;
  }

  it('without a registration token, stops once with a clear fatal message and exit code 77, never retrying', async () => {
    const controller = await FakeController.start(0, { auth: { registrationTokens: [REGISTRATION_TOKEN], requireToken: true } });
    controller.refuseRefresh = true;
    try {
      const dataDir = temporaryDir();
      const credentials = writeExpiredCredentials(dataDir);
      const worker = await startWorker({ controllers: controller.address, name: 'revoked', dataDir });

      expect(await worker.exited).toBe(EXIT_CREDENTIALS_REFUSED);
      expect(controller.refreshes).toEqual([credentials.refreshToken]);
      expect(controller.connects).toEqual([]);
      expect(worker.output()).toContain(
        'the worker stops: the controller refused the refresh token (revoked, expired or already used); the worker has no registration token to register again: create a registration token for its worker group and set LANNER_WORKER_REGISTRATION_TOKEN',
      );
      expect(worker.output()).not.toContain(credentials.refreshToken);
      expect(worker.output()).not.toContain(credentials.accessToken);
    } finally {
      controller.stop();
    }
  });

  it('with a registration token, registers again and connects with the new credentials', async () => {
    const controller = await FakeController.start(0, { auth: { registrationTokens: [REGISTRATION_TOKEN], requireToken: true } });
    controller.refuseRefresh = true;
    try {
      const dataDir = temporaryDir();
      writeExpiredCredentials(dataDir);
      const worker = await startWorker({
        controllers: controller.address,
        name: 'reborn',
        dataDir,
        env: { LANNER_WORKER_REGISTRATION_TOKEN: REGISTRATION_TOKEN },
      });
      await controller.waitForFrame('credit');

      expect(controller.refreshes).toHaveLength(1);
      expect(controller.registrations).toHaveLength(1);
      expect(controller.connects).toEqual([
        expect.objectContaining({ authorization: `Bearer ${controller.issued[0].accessToken}`, refused: false }),
      ]);
      expect(stored(dataDir).workerId).toBe(controller.issued[0].workerId);
      expect(worker.output()).toContain('registering again with the registration token');
      expectNoSecretIn(worker, controller);
      expect(await stopWorker(worker)).toBe(0);
    } finally {
      controller.stop();
    }
  });

  it('stops with a clear message when the controller refuses its registration token', async () => {
    const controller = await FakeController.start(0, { auth: { registrationTokens: [REGISTRATION_TOKEN], requireToken: true } });
    try {
      const wrongToken = `lanner_wrt_${randomBytes(32).toString('base64url')}`;
      const worker = await startWorker({
        controllers: controller.address,
        name: 'stranger',
        env: { LANNER_WORKER_REGISTRATION_TOKEN: wrongToken },
      });

      expect(await worker.exited).toBe(EXIT_CREDENTIALS_REFUSED);
      expect(controller.registrations).toHaveLength(1);
      expect(controller.connects).toEqual([]);
      expect(worker.output()).toContain('the controller refused the registration (');
      expect(worker.output()).toContain('registration token (unknown, revoked or expired)');
      expect(worker.output()).not.toContain(wrongToken);
    } finally {
      controller.stop();
    }
  });
});

describe('a worker whose access token a controller refuses at stream open (signing key rotated)', () => {
  async function registeredWorker(controller: FakeController, dataDir: string): Promise<void> {
    const worker = await startWorker({
      controllers: controller.address,
      name: 'rotated',
      dataDir,
      env: { LANNER_WORKER_REGISTRATION_TOKEN: REGISTRATION_TOKEN },
    });
    await controller.waitForFrame('credit');
    expect(await stopWorker(worker)).toBe(0);
  }

  it('refreshes (its refresh token is still valid) and connects with the new access token', async () => {
    const controller = await FakeController.start(0, { auth: { registrationTokens: [REGISTRATION_TOKEN], requireToken: true } });
    try {
      const dataDir = temporaryDir();
      await registeredWorker(controller, dataDir);
      const before = stored(dataDir);
      controller.rotateSigningKey();

      const worker = await startWorker({
        controllers: controller.address,
        name: 'rotated',
        dataDir,
        env: { LANNER_WORKER_REGISTRATION_TOKEN: REGISTRATION_TOKEN },
      });
      await controller.waitFor('an accepted stream', () =>
        controller.connects.filter((connect) => !connect.refused).length > 1 ? true : undefined,
      );
      await eventually('readiness', async () => ((await readiness(worker.port)) === 200 ? true : undefined));

      const [, refusedConnect, acceptedConnect] = controller.connects;
      expect(refusedConnect).toMatchObject({ authorization: `Bearer ${before.accessToken}`, refused: true });
      expect(controller.refreshes).toEqual([before.refreshToken]);
      expect(acceptedConnect).toMatchObject({ authorization: `Bearer ${controller.lastAccessToken}`, refused: false });
      expect(controller.connects).toHaveLength(3);
      expect(controller.registrations).toHaveLength(1);
      expect(stored(dataDir).accessToken).toBe(controller.lastAccessToken);
      expect(worker.output()).toContain('missing, invalid or expired access token');
      expectNoSecretIn(worker, controller);
      expect(await stopWorker(worker)).toBe(0);
    } finally {
      controller.stop();
    }
  });

  it('registers again when the refresh is refused too, and connects', async () => {
    const controller = await FakeController.start(0, { auth: { registrationTokens: [REGISTRATION_TOKEN], requireToken: true } });
    try {
      const dataDir = temporaryDir();
      await registeredWorker(controller, dataDir);
      const before = stored(dataDir);
      controller.rotateSigningKey();
      controller.refuseRefresh = true;

      const worker = await startWorker({
        controllers: controller.address,
        name: 'rotated',
        dataDir,
        env: { LANNER_WORKER_REGISTRATION_TOKEN: REGISTRATION_TOKEN },
      });
      await controller.waitFor('an accepted stream', () =>
        controller.connects.filter((connect) => !connect.refused).length > 1 ? true : undefined,
      );

      expect(controller.connects[1]).toMatchObject({ authorization: `Bearer ${before.accessToken}`, refused: true });
      expect(controller.refreshes).toEqual([before.refreshToken]);
      expect(controller.registrations).toHaveLength(2);
      expect(controller.connects.at(-1)).toMatchObject({ authorization: `Bearer ${controller.lastAccessToken}`, refused: false });
      expect(stored(dataDir).workerId).toBe(controller.issued.at(-1)?.workerId);
      expect(worker.output()).toContain('registering again with the registration token');
      expectNoSecretIn(worker, controller);
      expect(await stopWorker(worker)).toBe(0);
    } finally {
      controller.stop();
    }
  });

  it('without a registration token and with a refused refresh, exits 77 after one refused stream, not in a loop', async () => {
    const controller = await FakeController.start(0, { auth: { registrationTokens: [REGISTRATION_TOKEN], requireToken: true } });
    try {
      const dataDir = temporaryDir();
      await registeredWorker(controller, dataDir);
      controller.rotateSigningKey();
      controller.refuseRefresh = true;

      const worker = await startWorker({ controllers: controller.address, name: 'rotated', dataDir });
      expect(await worker.exited).toBe(EXIT_CREDENTIALS_REFUSED);
      expect(controller.connects).toHaveLength(2);
      expect(controller.connects[1].refused).toBe(true);
      expect(controller.refreshes).toHaveLength(1);
      expect(worker.output()).toContain(
        'the controller refused the refresh token (revoked, expired or already used); the worker has no registration token',
      );
      expectNoSecretIn(worker, controller);
    } finally {
      controller.stop();
    }
  });
});
