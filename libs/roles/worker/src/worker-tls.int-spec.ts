// The worker dials its controllers with TLS and mTLS: certificates are made
// with openssl for this run, the controller peer is a real gRPC server in this
// test process, and the worker runs as its own process.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT_BAD_CONFIG } from '@lanner/runtime';
import { FakeController } from './testing/fake-controller';
import { eventually, readiness, startWorker, stopAllWorkers, stopWorker, temporaryDir } from './testing/worker-process';

const dir = temporaryDir('lanner-worker-tls-');
const file = (name: string) => join(dir, name);
const pem = (name: string) => readFileSync(file(name));

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { stdio: 'pipe' });
}

/** A self-signed CA: `<name>.crt` and `<name>.key`. */
function makeCa(name: string, commonName: string): void {
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    `/CN=${commonName}`,
    '-keyout',
    file(`${name}.key`),
    '-out',
    file(`${name}.crt`),
  );
}

/** A certificate signed by `ca`, with the given extensions: `<name>.crt` and `<name>.key`. */
function makeCert(name: string, ca: string, commonName: string, extensions: string): void {
  writeFileSync(file(`${name}.ext`), `${extensions}\n`);
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-subj',
    `/CN=${commonName}`,
    '-keyout',
    file(`${name}.key`),
    '-out',
    file(`${name}.csr`),
  );
  openssl(
    'x509',
    '-req',
    '-in',
    file(`${name}.csr`),
    '-CA',
    file(`${ca}.crt`),
    '-CAkey',
    file(`${ca}.key`),
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    file(`${name}.ext`),
    '-out',
    file(`${name}.crt`),
  );
}

beforeAll(() => {
  makeCa('ca', 'Lanner spec CA');
  makeCa('other-ca', 'Some other CA');
  makeCert('server', 'ca', 'controller', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth');
  makeCert(
    'named-server',
    'ca',
    'controller.lanner.test',
    'subjectAltName=DNS:controller.lanner.test\nextendedKeyUsage=serverAuth',
  );
  makeCert('other-ip-server', 'ca', 'controller', 'subjectAltName=IP:127.0.0.2\nextendedKeyUsage=serverAuth');
  makeCert('client', 'ca', 'gpu-worker-7', 'extendedKeyUsage=clientAuth');
  makeCert('stranger-client', 'other-ca', 'stranger', 'extendedKeyUsage=clientAuth');
});

afterAll(() => stopAllWorkers());

const readyWorker = async (port: number) =>
  eventually('readiness', async () => ((await readiness(port)) === 200 ? true : undefined));

describe('a worker with LANNER_WORKER_TLS', () => {
  it('connects to a controller whose certificate chains to LANNER_WORKER_TLS_CA', async () => {
    const controller = await FakeController.start(0, { tls: { cert: pem('server.crt'), key: pem('server.key') } });
    try {
      const worker = await startWorker({
        controllers: controller.address,
        name: 'tls',
        env: { LANNER_WORKER_TLS: 'true', LANNER_WORKER_TLS_CA: file('ca.crt') },
      });
      const hello = await controller.waitForFrame('hello');
      expect(hello.workerName).toBe('tls');
      await readyWorker(worker.port);
      expect(controller.connects[0].peerCertificate?.subject).toBeUndefined();
      expect(await stopWorker(worker)).toBe(0);
      // An IP address is not sent as the TLS server name: no DEP0123 warning on stderr.
      expect(worker.output()).not.toContain('DEP0123');
      expect(worker.output()).not.toMatch(/ServerName to an IP address/);
    } finally {
      controller.stop();
    }
  });

  it('refuses a controller whose certificate names another IP address than the one dialled', async () => {
    const controller = await FakeController.start(0, {
      tls: { cert: pem('other-ip-server.crt'), key: pem('other-ip-server.key') },
    });
    try {
      const worker = await startWorker({
        controllers: controller.address,
        name: 'tls-ip',
        env: { LANNER_WORKER_TLS: 'true', LANNER_WORKER_TLS_CA: file('ca.crt') },
      });
      await eventually('the handshake failure in the log', () =>
        worker.output().includes('TLS handshake failed') ? true : undefined,
      );
      expect(worker.output()).toContain("the controller's certificate does not name the host dialled");
      expect(controller.frames).toEqual([]);
      expect(worker.output()).not.toContain('DEP0123');
      await stopWorker(worker);
    } finally {
      controller.stop();
    }
  });

  it('checks the name of LANNER_WORKER_TLS_AUTHORITY when the certificate does not name the address dialled', async () => {
    const controller = await FakeController.start(0, { tls: { cert: pem('named-server.crt'), key: pem('named-server.key') } });
    try {
      const worker = await startWorker({
        controllers: controller.address,
        name: 'by-name',
        env: {
          LANNER_WORKER_TLS: 'true',
          LANNER_WORKER_TLS_CA: file('ca.crt'),
          LANNER_WORKER_TLS_AUTHORITY: 'controller.lanner.test',
        },
      });
      await controller.waitForFrame('hello');
      await readyWorker(worker.port);
      expect(await stopWorker(worker)).toBe(0);
    } finally {
      controller.stop();
    }
  });

  it('refuses a controller whose certificate does not chain to its CA, and says so in its log and readiness', async () => {
    const controller = await FakeController.start(0, { tls: { cert: pem('server.crt'), key: pem('server.key') } });
    try {
      const worker = await startWorker({
        controllers: controller.address,
        name: 'distrustful',
        env: { LANNER_WORKER_TLS: 'true', LANNER_WORKER_TLS_CA: file('other-ca.crt') },
      });
      await eventually('the handshake failure in the log', () =>
        worker.output().includes('TLS handshake failed') ? true : undefined,
      );
      expect(worker.output()).toContain("the controller's certificate does not chain to LANNER_WORKER_TLS_CA");
      expect(await readiness(worker.port)).toBe(503);
      expect(controller.frames).toEqual([]);
      expect(await stopWorker(worker)).toBe(0);
    } finally {
      controller.stop();
    }
  });

  it('presents its client certificate to a controller that requires one (mTLS), and registers over it', async () => {
    const registrationToken = `lanner_wrt_${randomBytes(32).toString('base64url')}`;
    const controller = await FakeController.start(0, {
      tls: { cert: pem('server.crt'), key: pem('server.key'), clientCa: pem('ca.crt'), checkClientCertificate: true },
      auth: { registrationTokens: [registrationToken], requireToken: true },
    });
    try {
      const worker = await startWorker({
        controllers: controller.address,
        name: 'mtls',
        env: {
          LANNER_WORKER_TLS: 'true',
          LANNER_WORKER_TLS_CA: file('ca.crt'),
          LANNER_WORKER_TLS_CERT: file('client.crt'),
          LANNER_WORKER_TLS_KEY: file('client.key'),
          LANNER_WORKER_REGISTRATION_TOKEN: registrationToken,
        },
      });
      await controller.waitForFrame('credit');
      expect(controller.registrations).toHaveLength(1);
      expect(controller.connects[0].refused).toBe(false);
      expect(controller.connects[0].peerCertificate?.subject?.CN).toBe('gpu-worker-7');
      expect(controller.connects[0].peerCertificate?.issuer?.CN).toBe('Lanner spec CA');
      expect(await stopWorker(worker)).toBe(0);
    } finally {
      controller.stop();
    }
  });

  it('without a client certificate, is refused by a controller that requires one, and says so in its log', async () => {
    const controller = await FakeController.start(0, {
      tls: { cert: pem('server.crt'), key: pem('server.key'), clientCa: pem('ca.crt'), checkClientCertificate: true },
    });
    try {
      const worker = await startWorker({
        controllers: controller.address,
        name: 'no-client-cert',
        env: { LANNER_WORKER_TLS: 'true', LANNER_WORKER_TLS_CA: file('ca.crt') },
      });
      await eventually('the refusal in the log', () =>
        worker.output().includes('no controller stream; reconnecting') ? true : undefined,
      );
      expect(worker.output()).toContain(
        'TLS handshake failed: the controller requires a client certificate: set LANNER_WORKER_TLS_CERT and LANNER_WORKER_TLS_KEY',
      );
      expect(await readiness(worker.port)).toBe(503);
      expect(controller.frames).toEqual([]);
      expect(await stopWorker(worker)).toBe(0);
    } finally {
      controller.stop();
    }
  });

  it('with a client certificate the controller does not trust, is refused and says what to check', async () => {
    const controller = await FakeController.start(0, {
      tls: { cert: pem('server.crt'), key: pem('server.key'), clientCa: pem('ca.crt'), checkClientCertificate: true },
    });
    try {
      const worker = await startWorker({
        controllers: controller.address,
        name: 'stranger',
        env: {
          LANNER_WORKER_TLS: 'true',
          LANNER_WORKER_TLS_CA: file('ca.crt'),
          LANNER_WORKER_TLS_CERT: file('stranger-client.crt'),
          LANNER_WORKER_TLS_KEY: file('stranger-client.key'),
        },
      });
      await eventually('the refusal in the log', () =>
        worker.output().includes('no controller stream; reconnecting') ? true : undefined,
      );
      expect(worker.output()).toMatch(/client certificate.*LANNER_WORKER_TLS_CERT/);
      expect(await readiness(worker.port)).toBe(503);
      expect(controller.frames).toEqual([]);
      expect(await stopWorker(worker)).toBe(0);
    } finally {
      controller.stop();
    }
  });

  it('refuses to start, exit code 78, naming the variable, when a TLS file cannot be read', async () => {
    const missing = join(dir, 'no-such-ca.crt');
    const worker = await startWorker({
      controllers: '127.0.0.1:1',
      name: 'misconfigured',
      env: { LANNER_WORKER_TLS: 'true', LANNER_WORKER_TLS_CA: missing },
    });
    expect(await worker.exited).toBe(EXIT_BAD_CONFIG);
    expect(worker.output()).toContain(`lanner worker: LANNER_WORKER_TLS_CA: cannot read ${missing} (ENOENT)`);
    expect(worker.output()).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('refuses to start when a client certificate comes without its key', async () => {
    const worker = await startWorker({
      controllers: '127.0.0.1:1',
      name: 'half-mtls',
      env: { LANNER_WORKER_TLS: 'true', LANNER_WORKER_TLS_CERT: file('client.crt') },
    });
    expect(await worker.exited).toBe(EXIT_BAD_CONFIG);
    expect(worker.output()).toContain('LANNER_WORKER_TLS_KEY: required with LANNER_WORKER_TLS_CERT');
  });
});
