import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { WorkerAuthServiceClient, type Credentials } from '@lanner/frames';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Execution,
  Fleet,
  hasStarted,
  lastAttempt,
  onlyTaskRun,
  scenario,
  StartedProcess,
  stateOf,
  taskRunsOf,
  TERMINAL_STATES,
  delay,
} from './harness/scenario';

// WORKERS.md "Worker authentication": a worker joins the group of its registration
// token and serves only that group's queues; a wrong token gets it nowhere; revoking
// the token through the API stops new work to its workers at once.
const NAMESPACE = 'e2e.fleet.auth';
const GROUP = 'auth-workers';
const OTHER_GROUP = 'other-workers';
const QUEUE = 'auth-q';
const OTHER_QUEUE = 'auth-other';
const WORKER = 'fleet-auth-member';
const OTHER_WORKER = 'fleet-auth-other';
const WRONG_WORKER = 'fleet-auth-wrong';
const FORGED_WORKER = 'fleet-auth-forged';
/** How long work that must not start is watched. */
const NOT_STARTED_FOR_MS = 6_000;
/** WORKERS.md: "controllers stop sending new work to its workers at once"; the bar is 1 s. */
const REVOKE_EFFECT_MS = 1_000;

const flow = (id: string, queue: string) => `
id: ${id}
namespace: ${NAMESPACE}
tasks:
  - id: work
    type: io.kestra.plugin.core.debug.Return
    format: "{{ execution.id }} on ${queue}"
    workerSelector: { tags: [${queue}], fallback: WAIT }
`;

const ended = (execution: Execution): boolean => (TERMINAL_STATES as readonly string[]).includes(stateOf(execution));

/** What a user sees of work that must not have started: still pending, no worker on it. */
function pendingView(execution: Execution): { pending: boolean; started: boolean; worker: string | null } {
  const runs = taskRunsOf(execution, 'work');
  const run = runs[0];
  return {
    pending: ['CREATED', 'RUNNING'].includes(stateOf(execution)),
    started: run !== undefined && hasStarted(run),
    worker: (run && lastAttempt(run)?.workerId) ?? null,
  };
}

describe('fleet auth: registration tokens decide who joins which group', () => {
  const { lanner, cluster, controllerEndpoint, workDir } = scenario();
  const fleet = new Fleet(cluster, lanner);
  const leftovers: string[] = [];
  let memberToken = { id: '', token: '' };
  let otherToken = '';
  let waitingForMember = '';
  let memberId = '';
  let member: StartedProcess | undefined;

  beforeAll(async () => {
    await lanner.putWorkerQueue(QUEUE, [QUEUE]);
    await lanner.putWorkerQueue(OTHER_QUEUE, [OTHER_QUEUE]);
    await lanner.putWorkerGroup(GROUP, [{ workerQueueId: QUEUE }]);
    await lanner.putWorkerGroup(OTHER_GROUP, [{ workerQueueId: OTHER_QUEUE }]);
    memberToken = await lanner.createRegistrationToken(GROUP, 'member');
    otherToken = (await lanner.createRegistrationToken(OTHER_GROUP, 'other')).token;
    await lanner.createFlow(flow('on-auth-q', QUEUE));
    await lanner.createFlow(flow('on-other-q', OTHER_QUEUE));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(leftovers.map((id) => lanner.kill(id).catch(() => undefined)));
    await fleet.stopAll();
  }, 60_000);

  it('refuses a worker with a wrong registration token: its log says why and it never becomes ready', async () => {
    const wrongToken = randomBytes(32).toString('base64url');
    const wrong: StartedProcess = await fleet.startWorker(WRONG_WORKER, {
      registrationToken: wrongToken,
      slots: 1,
      controllers: controllerEndpoint,
      waitUntilReady: false,
    });

    // A warning, an error or a fatal line that names the cause.
    await fleet.waitForLog(
      wrong,
      /"level":"(warn|error|fatal)".*(registration|token|unauthenticated|refused|rejected)/i,
      'why it was refused',
      60_000,
    );
    expect(await fleet.isReady(wrong)).toBe(false);
    // docs/WORKER-FLEETS.md: exit code 77 when its credentials are refused (a supervisor sees why).
    expect((await fleet.waitForExit(wrong)).exit.code).toBe(77);
    // A secret is never logged, not even a wrong one.
    expect(fleet.logOf(wrong)).not.toContain(wrongToken);
    for (const group of ['default', GROUP, OTHER_GROUP]) {
      expect((await lanner.groupWorkers(group)).map((worker) => worker.name)).not.toContain(WRONG_WORKER);
    }
  }, 120_000);

  it('a token of another group serves only that group’s queues; a valid token of the group joins it and runs its work', async () => {
    await fleet.startWorker(OTHER_WORKER, { registrationToken: otherToken, slots: 2, controllers: controllerEndpoint });
    const otherId = await fleet.workerIdOf(OTHER_GROUP, OTHER_WORKER);

    const own = await lanner.execute(NAMESPACE, 'on-other-q');
    waitingForMember = (await lanner.execute(NAMESPACE, 'on-auth-q')).id;
    leftovers.push(waitingForMember);

    const ownEnded = await lanner.waitUntilEnded(own.id);
    expect(stateOf(ownEnded)).toBe('SUCCESS');
    expect(lastAttempt(onlyTaskRun(ownEnded, 'work'))?.workerId).toBe(otherId);

    // The other group's worker is connected and idle, yet never takes auth-q's work.
    const watchUntil = Date.now() + NOT_STARTED_FOR_MS;
    while (Date.now() < watchUntil) {
      expect(pendingView(await lanner.execution(waitingForMember))).toEqual({ pending: true, started: false, worker: null });
      await delay(500);
    }

    member = await fleet.startWorker(WORKER, { registrationToken: memberToken.token, slots: 2, controllers: controllerEndpoint });
    memberId = await fleet.workerIdOf(GROUP, WORKER);
    const ran = await lanner.waitFor(waitingForMember, ended, 'ended once a member of its group connected', 60_000);
    expect(stateOf(ran)).toBe('SUCCESS');
    expect(lastAttempt(onlyTaskRun(ran, 'work'))?.workerId).toBe(memberId);
    expect(memberId).not.toBe(otherId);
    expect((await lanner.groupWorkers(OTHER_GROUP)).map((worker) => worker.name)).not.toContain(WORKER);
  }, 180_000);

  it('revoking the registration token through the API stops new work to its worker within 1 s', async () => {
    expect(memberId).not.toBe('');
    // Still serving right before the revoke.
    const before = await lanner.execute(NAMESPACE, 'on-auth-q');
    const beforeEnded = await lanner.waitUntilEnded(before.id);
    expect(lastAttempt(onlyTaskRun(beforeEnded, 'work'))?.workerId).toBe(memberId);

    const revokedAt = Date.now();
    await lanner.revokeRegistrationToken(GROUP, memberToken.id);
    await delay(Math.max(0, REVOKE_EFFECT_MS - (Date.now() - revokedAt)));
    const after = await lanner.execute(NAMESPACE, 'on-auth-q');
    leftovers.push(after.id);

    const watchUntil = Date.now() + NOT_STARTED_FOR_MS;
    while (Date.now() < watchUntil) {
      expect(pendingView(await lanner.execution(after.id))).toEqual({ pending: true, started: false, worker: null });
      await delay(500);
    }
    // Its stream ended and its credentials went with the token: it stops with 77 (docs/WORKER-FLEETS.md).
    expect((await fleet.waitForExit(member as StartedProcess)).exit.code).toBe(77);
    const tokens = await lanner.instanceRequest<Array<{ id: string; revokedAt?: string | null }>>(
      'GET',
      `/worker-groups/${GROUP}/tokens`,
    );
    expect(tokens.status).toBe(200);
    expect(JSON.stringify(tokens.body)).not.toContain(memberToken.token);
  }, 120_000);

  it('a worker restarted without its registration token rejoins its group with the credentials it kept (mode 0600)', async () => {
    // The harness gives each worker the data dir <workDir>/<name>; credentials default to credentials.json in it.
    const credentials = join(workDir, OTHER_WORKER, 'credentials.json');
    expect((statSync(credentials).mode & 0o777).toString(8)).toBe('600');
    const before = await fleet.workerIdOf(OTHER_GROUP, OTHER_WORKER);

    const stopped = await fleet.stop(OTHER_WORKER);
    expect(stopped.exit).toEqual({ code: 0, signal: null });
    await fleet.startWorker(OTHER_WORKER, { slots: 2, controllers: controllerEndpoint });
    const after = await fleet.workerIdOf(OTHER_GROUP, OTHER_WORKER);

    const { id } = await lanner.execute(NAMESPACE, 'on-other-q');
    const ran = await lanner.waitUntilEnded(id);
    expect(stateOf(ran)).toBe('SUCCESS');
    expect(lastAttempt(onlyTaskRun(ran, 'work'))?.workerId).toBe(after);
    // The same worker identity as before the restart: it came from the stored credentials.
    expect(after).toBe(before);
    expect((await lanner.groupWorkers('default')).map((worker) => worker.name)).not.toContain(OTHER_WORKER);
  }, 120_000);

  it('refuses a worker whose stored access token was edited to claim another group', async () => {
    // A copy of the other group's credentials, its JWT payload edited to name auth-workers
    // (the signature no longer matches) and a refresh token that was never issued.
    const stored = JSON.parse(readFileSync(join(workDir, OTHER_WORKER, 'credentials.json'), 'utf8')) as Record<string, string>;
    const [header, payload, signature] = stored['accessToken'].split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forgedClaims = Object.fromEntries(
      Object.entries(claims).map(([key, value]) => [key, value === OTHER_GROUP ? GROUP : value]),
    );
    expect(forgedClaims).not.toEqual(claims);
    const forgedToken = `${header}.${Buffer.from(JSON.stringify(forgedClaims)).toString('base64url')}.${signature}`;
    const forgedDir = join(workDir, `${FORGED_WORKER}-credentials`);
    mkdirSync(forgedDir, { recursive: true, mode: 0o700 });
    const forgedFile = join(forgedDir, 'credentials.json');
    const forgedRefresh = randomBytes(32).toString('base64url');
    writeFileSync(
      forgedFile,
      JSON.stringify({ ...stored, workerGroupId: GROUP, accessToken: forgedToken, refreshToken: forgedRefresh }),
      { mode: 0o600 },
    );

    const forged = await fleet.startWorker(FORGED_WORKER, {
      slots: 1,
      controllers: controllerEndpoint,
      waitUntilReady: false,
      env: { LANNER_WORKER_CREDENTIALS_PATH: forgedFile },
    });
    await fleet.waitForLog(
      forged,
      /"level":"(warn|error|fatal)".*(unauthenticated|refused|rejected|invalid|signature)/i,
      'why its credentials were refused',
      60_000,
    );
    expect(await fleet.isReady(forged)).toBe(false);
    expect((await lanner.groupWorkers(GROUP)).map((worker) => worker.name)).not.toContain(FORGED_WORKER);
    const log = fleet.logOf(forged);
    expect(log).not.toContain(forgedToken);
    expect(log).not.toContain(forgedRefresh);
  }, 120_000);
  it('rotates refresh tokens: a reused one is refused and revokes its whole family, the newest token included', async () => {
    // The refresh token the restarted worker keeps, used here as a thief would: outside the worker.
    const stopped = await fleet.stop(OTHER_WORKER);
    expect(stopped.exit).toEqual({ code: 0, signal: null });
    const stored = JSON.parse(readFileSync(join(workDir, OTHER_WORKER, 'credentials.json'), 'utf8')) as Record<string, string>;
    const client = new WorkerAuthServiceClient(controllerEndpoint, grpc.credentials.createInsecure());
    const refresh = (refreshToken: string) =>
      new Promise<{ credentials?: Credentials; code?: grpc.status }>((resolve) =>
        client.refresh({ refreshToken }, (error, credentials) => resolve(error ? { code: error.code } : { credentials })),
      );
    try {
      const first = await refresh(stored['refreshToken']);
      expect(first.code).toBeUndefined();
      expect(first.credentials?.workerGroupId).toBe(OTHER_GROUP);
      const rotated = first.credentials?.refreshToken ?? '';
      expect(rotated).not.toBe(stored['refreshToken']);

      expect((await refresh(stored['refreshToken'])).code).toBe(grpc.status.UNAUTHENTICATED);
      // The reuse revoked the family: the token issued a moment ago is dead too.
      expect((await refresh(rotated)).code).toBe(grpc.status.UNAUTHENTICATED);
    } finally {
      client.close();
    }
  }, 60_000);
});
