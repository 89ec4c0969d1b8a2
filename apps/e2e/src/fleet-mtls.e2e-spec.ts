import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Fleet, lastAttempt, onlyTaskRun, scenario, StartedProcess, stateOf } from './harness/scenario';
import { makeTestCertificates, TestCertificates } from './harness/test-certificates';

// A controller of this spec's own serves gRPC over TLS and requires a client certificate
// that chains to its CA (LANNER_GRPC_TLS_CLIENT_AUTH=REQUIRE): a worker without one cannot
// connect, a worker with one registers, connects and runs work.
const NAMESPACE = 'e2e.fleet.mtls';
const GROUP = 'mtls-workers';
const QUEUE = 'mtls';
const CONTROLLER = 'fleet-mtls-controller';
const TRUSTED = 'fleet-mtls-trusted';
const SELF_SIGNED = 'fleet-mtls-self-signed';
const NO_CERT = 'fleet-mtls-no-cert';
/** A worker refused at the TLS handshake must say so in a warning, an error or a fatal line. */
const TLS_REFUSAL = /"level":"(warn|error|fatal)".*(certificate|tls|handshake)/i;

const FLOW = `
id: over-mtls
namespace: ${NAMESPACE}
tasks:
  - id: work
    type: io.kestra.plugin.core.debug.Return
    format: "ran over mTLS"
    workerSelector: { tags: [${QUEUE}] }
`;

describe('fleet mTLS: a controller that requires client certificates', () => {
  const { lanner, cluster, workDir } = scenario();
  const fleet = new Fleet(cluster, lanner);
  let certificates: TestCertificates;
  let endpoint = '';
  let token = '';

  const tlsWorker = (name: string, clientCert: { cert: string; key: string } | undefined, waitUntilReady: boolean) =>
    fleet.startWorker(name, {
      registrationToken: token,
      slots: 1,
      controllers: endpoint,
      waitUntilReady,
      env: {
        LANNER_WORKER_TLS: 'true',
        LANNER_WORKER_TLS_CA: certificates.caCert,
        ...(clientCert ? { LANNER_WORKER_TLS_CERT: clientCert.cert, LANNER_WORKER_TLS_KEY: clientCert.key } : {}),
      },
    });

  beforeAll(async () => {
    certificates = makeTestCertificates(join(workDir, 'mtls-certificates'));
    await lanner.putWorkerQueue(QUEUE, [QUEUE]);
    await lanner.putWorkerGroup(GROUP, [{ workerQueueId: QUEUE }]);
    token = (await lanner.createRegistrationToken(GROUP, 'mtls')).token;
    await lanner.createFlow(FLOW);
    const controller = await fleet.startController(CONTROLLER, {
      LANNER_GRPC_HOST: '127.0.0.1',
      LANNER_GRPC_TLS_CERT: certificates.serverCert,
      LANNER_GRPC_TLS_KEY: certificates.serverKey,
      LANNER_GRPC_TLS_CA: certificates.caCert,
      LANNER_GRPC_TLS_CLIENT_AUTH: 'REQUIRE',
      LANNER_ALLOW_ANONYMOUS_WORKERS: 'false',
    });
    endpoint = `127.0.0.1:${controller.grpcPort}`;
  }, 180_000);

  afterAll(() => fleet.stopAll(), 60_000);

  async function expectRefused(worker: StartedProcess): Promise<void> {
    await fleet.waitForLog(worker, TLS_REFUSAL, 'why the TLS connection failed', 30_000);
    expect(await fleet.isReady(worker)).toBe(false);
    expect((await lanner.groupWorkers(GROUP)).map((one) => one.name)).not.toContain(worker.name);
    expect(fleet.logOf(worker)).not.toContain(token);
  }

  it('refuses a worker without a client certificate: not ready, and its log says why', async () => {
    await expectRefused(await tlsWorker(NO_CERT, undefined, false));
  }, 120_000);

  it('refuses a worker whose client certificate is self-signed: not ready, and its log says why', async () => {
    await expectRefused(
      await tlsWorker(SELF_SIGNED, { cert: certificates.untrustedClientCert, key: certificates.untrustedClientKey }, false),
    );
  }, 120_000);

  it('connects a worker whose client certificate chains to the CA, and runs a task on it', async () => {
    // Resolves once the worker's /health/ready says a controller accepted its stream.
    await tlsWorker(TRUSTED, { cert: certificates.trustedClientCert, key: certificates.trustedClientKey }, true);
    const workerId = await fleet.workerIdOf(GROUP, TRUSTED);
    const worker = await fleet.connectedWorker(GROUP, TRUSTED);
    // Its stream is held by this spec's TLS controller, not by the cluster's own.
    const clusterControllerWorkers = (await lanner.groupWorkers('default')).map((one) => one.controller);
    expect(worker.controller).not.toBe('');
    expect(clusterControllerWorkers).not.toContain(worker.controller);

    const { id } = await lanner.execute(NAMESPACE, 'over-mtls');
    const ended = await lanner.waitUntilEnded(id, 60_000);
    expect(stateOf(ended)).toBe('SUCCESS');
    expect(lastAttempt(onlyTaskRun(ended, 'work'))).toMatchObject({ workerId, workerQueueId: QUEUE });
  }, 180_000);
});

// A controller of this spec's own with LANNER_GRPC_TLS_CLIENT_AUTH=OPTIONAL: it asks every
// worker for a client certificate; a worker without one connects (its identity comes from its
// token), a worker with one that chains to the CA connects, a worker that presents an untrusted
// one is refused on every call with UNAUTHENTICATED and the reason, and the controller logs the
// certificate's subject and fingerprint.
const OPTIONAL_NAMESPACE = 'e2e.fleet.mtls.optional';
const OPTIONAL_GROUP = 'mtls-optional-workers';
const OPTIONAL_QUEUE = 'mtls-optional';
const OPTIONAL_CONTROLLER = 'fleet-mtls-optional-controller';
const OPTIONAL_NO_CERT = 'fleet-mtls-optional-no-cert';
const OPTIONAL_TRUSTED = 'fleet-mtls-optional-trusted';
const OPTIONAL_SELF_SIGNED_ANONYMOUS = 'fleet-mtls-optional-self-signed-anonymous';
const OPTIONAL_SELF_SIGNED_TOKEN = 'fleet-mtls-optional-self-signed-token';
const UNTRUSTED_REASON = "the client certificate is not signed by the controller's CA (LANNER_GRPC_TLS_CA)";

const OPTIONAL_FLOW = `
id: over-optional-mtls
namespace: ${OPTIONAL_NAMESPACE}
tasks:
  - id: work
    type: io.kestra.plugin.core.debug.Return
    format: "ran with the client certificate optional"
    workerSelector: { tags: [${OPTIONAL_QUEUE}] }
`;

describe('fleet mTLS: a controller that asks for client certificates without requiring them (OPTIONAL)', () => {
  const { lanner, cluster, workDir } = scenario();
  const fleet = new Fleet(cluster, lanner);
  let certificates: TestCertificates;
  let controller: StartedProcess;
  let endpoint = '';
  let token = '';

  const tlsWorker = (
    name: string,
    registrationToken: string | undefined,
    clientCert: { cert: string; key: string } | undefined,
    waitUntilReady: boolean,
  ) =>
    fleet.startWorker(name, {
      ...(registrationToken === undefined ? {} : { registrationToken }),
      slots: 1,
      controllers: endpoint,
      waitUntilReady,
      env: {
        LANNER_WORKER_TLS: 'true',
        LANNER_WORKER_TLS_CA: certificates.caCert,
        ...(clientCert ? { LANNER_WORKER_TLS_CERT: clientCert.cert, LANNER_WORKER_TLS_KEY: clientCert.key } : {}),
      },
    });
  const selfSigned = () => ({ cert: certificates.untrustedClientCert, key: certificates.untrustedClientKey });

  beforeAll(async () => {
    certificates = makeTestCertificates(join(workDir, 'optional-mtls-certificates'));
    await lanner.putWorkerQueue(OPTIONAL_QUEUE, [OPTIONAL_QUEUE]);
    await lanner.putWorkerGroup(OPTIONAL_GROUP, [{ workerQueueId: OPTIONAL_QUEUE }]);
    token = (await lanner.createRegistrationToken(OPTIONAL_GROUP, 'optional-mtls')).token;
    await lanner.createFlow(OPTIONAL_FLOW);
    controller = await fleet.startController(OPTIONAL_CONTROLLER, {
      LANNER_GRPC_HOST: '127.0.0.1',
      LANNER_GRPC_TLS_CERT: certificates.serverCert,
      LANNER_GRPC_TLS_KEY: certificates.serverKey,
      LANNER_GRPC_TLS_CA: certificates.caCert,
      LANNER_GRPC_TLS_CLIENT_AUTH: 'OPTIONAL',
      // So that a worker without a token reaches the stream itself, where the certificate is checked as well.
      LANNER_ALLOW_ANONYMOUS_WORKERS: 'true',
    });
    endpoint = `127.0.0.1:${controller.grpcPort}`;
  }, 180_000);

  afterAll(() => fleet.stopAll(), 60_000);

  async function runsOn(workerName: string): Promise<void> {
    const workerId = await fleet.workerIdOf(OPTIONAL_GROUP, workerName);
    const worker = await fleet.connectedWorker(OPTIONAL_GROUP, workerName);
    // Its stream is held by this spec's OPTIONAL controller, not by the cluster's own.
    expect(worker.controller).not.toBe('');
    expect((await lanner.groupWorkers('default')).map((one) => one.controller)).not.toContain(worker.controller);
    const { id } = await lanner.execute(OPTIONAL_NAMESPACE, 'over-optional-mtls');
    const ended = await lanner.waitUntilEnded(id, 60_000);
    expect(stateOf(ended)).toBe('SUCCESS');
    expect(lastAttempt(onlyTaskRun(ended, 'work'))).toMatchObject({ workerId, workerQueueId: OPTIONAL_QUEUE });
  }

  /** The controller's warning about the refused certificate: its subject and SHA-256 fingerprint, never key material. */
  async function expectRefusalLogged(method: string): Promise<void> {
    const fingerprint = new X509Certificate(readFileSync(certificates.untrustedClientCert)).fingerprint256;
    const line = await fleet.waitForLog(
      controller,
      new RegExp(`"level":"warn".*${fingerprint}.*${method}|"level":"warn".*${method}.*${fingerprint}`),
      'the refused certificate',
      30_000,
    );
    expect(line).toContain('CN=lanner-e2e-untrusted-worker');
    expect(line).toContain("refused a worker's client certificate");
    expect(fleet.logOf(controller)).not.toMatch(/PRIVATE KEY|BEGIN CERTIFICATE/);
  }

  it('connects a worker without a client certificate, and runs a task on it', async () => {
    await tlsWorker(OPTIONAL_NO_CERT, token, undefined, true);
    await runsOn(OPTIONAL_NO_CERT);
    // The next test's task must land on the worker with a certificate.
    await fleet.stop(OPTIONAL_NO_CERT);
  }, 180_000);

  it('connects a worker whose client certificate chains to the CA, and runs a task on it', async () => {
    await tlsWorker(OPTIONAL_TRUSTED, token, { cert: certificates.trustedClientCert, key: certificates.trustedClientKey }, true);
    await runsOn(OPTIONAL_TRUSTED);
  }, 180_000);

  it('refuses the stream of a worker whose client certificate is self-signed, telling it why', async () => {
    const worker = await tlsWorker(OPTIONAL_SELF_SIGNED_ANONYMOUS, undefined, selfSigned(), false);
    const line = await fleet.waitForLog(
      worker,
      /"level":"warn".*UNAUTHENTICATED/,
      'why the controller refused its stream',
      30_000,
    );
    expect(line).toContain(UNTRUSTED_REASON);
    expect(await fleet.isReady(worker)).toBe(false);
    expect((await lanner.groupWorkers('default')).map((one) => one.name)).not.toContain(worker.name);
    await expectRefusalLogged('/lanner.worker.v1.WorkerControllerService/Connect');
  }, 120_000);

  it('refuses the registration of a worker whose client certificate is self-signed: it stops without joining the group', async () => {
    const worker = await tlsWorker(OPTIONAL_SELF_SIGNED_TOKEN, token, selfSigned(), false);
    expect((await fleet.waitForExit(worker, 60_000)).exit.code).toBe(77);
    expect((await lanner.groupWorkers(OPTIONAL_GROUP)).map((one) => one.name)).not.toContain(worker.name);
    expect(fleet.logOf(worker)).not.toContain(token);
    await expectRefusalLogged('/lanner.worker.v1.WorkerAuthService/Register');
  }, 120_000);
});
