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
    await expectRefused(await tlsWorker(SELF_SIGNED, { cert: certificates.untrustedClientCert, key: certificates.untrustedClientKey }, false));
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
