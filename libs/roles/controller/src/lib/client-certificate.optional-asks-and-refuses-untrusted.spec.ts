import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { type RefusedClientCertificate, UNTRUSTED_CLIENT_CERTIFICATE } from './client-certificate';
import { grpcServerCredentials } from './grpc-credentials';

// A real gRPC server over TLS on loopback with LANNER_GRPC_TLS_CLIENT_AUTH=OPTIONAL and
// real clients. These tests also pin the grpc-js internal client-certificate.ts relies on
// to reach a call's TLS socket: if grpc-js moves it, the "no certificate" and "trusted"
// cases fail here (every call would be refused as unchecked).

const raw = (buffer: Buffer) => buffer;
const probe: grpc.ServiceDefinition = {
  ask: {
    path: '/lanner.spec.Probe/Ask',
    requestStream: false,
    responseStream: false,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  },
  talk: {
    path: '/lanner.spec.Probe/Talk',
    requestStream: true,
    responseStream: true,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  },
};
const ProbeClient = grpc.makeGenericClientConstructor(probe, 'Probe');
type Probe = InstanceType<typeof ProbeClient> & {
  ask(request: Buffer, callback: (error: grpc.ServiceError | null, answer?: Buffer) => void): grpc.ClientUnaryCall;
  talk(): grpc.ClientDuplexStream<Buffer, Buffer>;
};

describe('LANNER_GRPC_TLS_CLIENT_AUTH=OPTIONAL asks for a client certificate and refuses an untrusted one', () => {
  let dir: string;
  let server: grpc.Server;
  let port: number;
  /** Who the handlers saw: the peer certificate's subject CN, or 'none'. */
  const handled: string[] = [];
  const refused: RefusedClientCertificate[] = [];
  const unchecked: string[] = [];
  const pem = (name: string) => readFileSync(join(dir, name));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lanner-optional-mtls-'));
    const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    const rsa = ['-newkey', 'rsa:2048', '-nodes'];
    openssl('req', '-x509', ...rsa, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=Lanner spec CA');
    writeFileSync(join(dir, 'server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
    openssl('req', ...rsa, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
    openssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      '1',
      '-extfile',
      'server.ext',
    );
    const signedByCa = (name: string, cn: string, days: string) => {
      openssl('req', ...rsa, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
      openssl(
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${name}.pem`,
        '-days',
        days,
      );
    };
    signedByCa('client', 'trusted-worker', '1');
    // An intermediate CA the root signed, and a worker certificate it signed; the controller's
    // CA file (LANNER_GRPC_TLS_CA) holds both the root and the intermediate.
    writeFileSync(join(dir, 'intermediate.ext'), 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n');
    openssl('req', ...rsa, '-keyout', 'intermediate.key', '-out', 'intermediate.csr', '-subj', '/CN=Lanner spec intermediate CA');
    openssl(
      'x509',
      '-req',
      '-in',
      'intermediate.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'intermediate.pem',
      '-days',
      '1',
      '-extfile',
      'intermediate.ext',
    );
    openssl('req', ...rsa, '-keyout', 'team.key', '-out', 'team.csr', '-subj', '/CN=team-worker');
    openssl(
      'x509',
      '-req',
      '-in',
      'team.csr',
      '-CA',
      'intermediate.pem',
      '-CAkey',
      'intermediate.key',
      '-CAcreateserial',
      '-out',
      'team.pem',
      '-days',
      '1',
    );
    writeFileSync(join(dir, 'ca-bundle.pem'), Buffer.concat([pem('ca.pem'), pem('intermediate.pem')]));
    // Signed by the CA, but its validity ended a day ago.
    signedByCa('expired', 'expired-worker', '-1');
    openssl(
      'req',
      '-x509',
      ...rsa,
      '-keyout',
      'self-signed.key',
      '-out',
      'self-signed.pem',
      '-days',
      '1',
      '-subj',
      '/CN=self-signed-worker',
    );
    // Another CA, and a certificate it signed.
    openssl(
      'req',
      '-x509',
      ...rsa,
      '-keyout',
      'other-ca.key',
      '-out',
      'other-ca.pem',
      '-days',
      '1',
      '-subj',
      '/CN=Some other CA',
    );
    openssl('req', ...rsa, '-keyout', 'stranger.key', '-out', 'stranger.csr', '-subj', '/CN=stranger-worker');
    openssl(
      'x509',
      '-req',
      '-in',
      'stranger.csr',
      '-CA',
      'other-ca.pem',
      '-CAkey',
      'other-ca.key',
      '-CAcreateserial',
      '-out',
      'stranger.pem',
      '-days',
      '1',
    );

    const seenBy = (call: Pick<grpc.ServerUnaryCall<Buffer, Buffer>, 'getAuthContext'>) => {
      const subject = call.getAuthContext().sslPeerCertificate?.subject?.CN;
      handled.push(typeof subject === 'string' ? subject : 'none');
    };
    server = new grpc.Server();
    server.addService(probe, {
      ask: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
        seenBy(call);
        callback(null, Buffer.from(`answered ${call.request.toString()}`));
      },
      talk: (call: grpc.ServerDuplexStream<Buffer, Buffer>) => {
        seenBy(call);
        call.on('data', (message: Buffer) => call.write(Buffer.from(`echo ${message.toString()}`)));
        call.on('end', () => call.end());
      },
    });
    const credentials = grpcServerCredentials(
      {
        certFile: join(dir, 'server.pem'),
        keyFile: join(dir, 'server.key'),
        caFile: join(dir, 'ca-bundle.pem'),
        clientAuth: 'OPTIONAL',
      },
      { onRefused: (one) => refused.push(one), onUnchecked: (method) => unchecked.push(method) },
    );
    port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', credentials, (error, bound) => (error ? reject(error) : resolve(bound))),
    );
  }, 60_000);

  afterAll(async () => {
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    handled.length = 0;
    refused.length = 0;
    unchecked.length = 0;
  });

  function client(certificate?: string): Probe {
    const channel = certificate
      ? grpc.credentials.createSsl(pem('ca.pem'), pem(`${certificate}.key`), pem(`${certificate}.pem`))
      : grpc.credentials.createSsl(pem('ca.pem'));
    return new ProbeClient(`127.0.0.1:${port}`, channel) as Probe;
  }

  function ask(certificate?: string): Promise<string> {
    const probeClient = client(certificate);
    return new Promise<string>((resolve, reject) =>
      probeClient.ask(Buffer.from('hello'), (error, answer) => {
        probeClient.close();
        if (error) reject(error);
        else resolve(answer?.toString() ?? '');
      }),
    );
  }

  async function refusal(certificate: string): Promise<grpc.ServiceError> {
    const error = await ask(certificate).then(
      (answer) => {
        throw new Error(`expected a refusal, got the answer '${answer}'`);
      },
      (failure: grpc.ServiceError) => failure,
    );
    return error;
  }

  const fingerprintOf = (name: string) => new X509Certificate(pem(`${name}.pem`)).fingerprint256;

  it('lets a client without a certificate in (its identity comes from its token)', async () => {
    await expect(ask()).resolves.toBe('answered hello');
    expect(handled).toEqual(['none']);
    expect(refused).toEqual([]);
    expect(unchecked).toEqual([]);
  });

  it('lets a client whose certificate chains to the CA in, and its handler sees that certificate', async () => {
    await expect(ask('client')).resolves.toBe('answered hello');
    expect(handled).toEqual(['trusted-worker']);
    expect(refused).toEqual([]);
  });

  it('lets a client in whose certificate an intermediate CA of the CA file signed', async () => {
    await expect(ask('team')).resolves.toBe('answered hello');
    expect(handled).toEqual(['team-worker']);
    expect(refused).toEqual([]);
  });

  it('refuses a self-signed certificate with UNAUTHENTICATED naming LANNER_GRPC_TLS_CA, and reports its subject and fingerprint', async () => {
    const error = await refusal('self-signed');
    expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(error.details).toBe(UNTRUSTED_CLIENT_CERTIFICATE);
    expect(error.details).toContain('LANNER_GRPC_TLS_CA');
    expect(handled).toEqual([]);
    expect(refused).toEqual([
      expect.objectContaining({
        subject: 'CN=self-signed-worker',
        fingerprint256: fingerprintOf('self-signed'),
        reason: 'DEPTH_ZERO_SELF_SIGNED_CERT',
        method: '/lanner.spec.Probe/Ask',
      }),
    ]);
    expect(JSON.stringify(refused)).not.toContain('PRIVATE KEY');
  });

  it('refuses a certificate signed by another CA', async () => {
    const error = await refusal('stranger');
    expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(error.details).toBe(UNTRUSTED_CLIENT_CERTIFICATE);
    expect(handled).toEqual([]);
    expect(refused).toEqual([
      expect.objectContaining({
        subject: 'CN=stranger-worker',
        issuer: 'CN=Some other CA',
        fingerprint256: fingerprintOf('stranger'),
      }),
    ]);
  });

  it('refuses a certificate of the CA whose validity has ended, saying it expired', async () => {
    const error = await refusal('expired');
    expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(error.details).toMatch(/^the client certificate expired on .+ GMT; renew it/);
    expect(refused).toEqual([expect.objectContaining({ subject: 'CN=expired-worker', reason: 'CERT_HAS_EXPIRED' })]);
  });

  it('refuses a stream opened with an untrusted certificate before its handler sees it', async () => {
    const stream = client('self-signed').talk();
    const failure = new Promise<grpc.ServiceError>((resolve) => stream.on('error', resolve));
    stream.write(Buffer.from('hello'));
    const error = await failure;
    expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(error.details).toBe(UNTRUSTED_CLIENT_CERTIFICATE);
    expect(handled).toEqual([]);
  });

  it('keeps a stream with a trusted certificate working both ways', async () => {
    const stream = client('client').talk();
    const answers: string[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      stream.on('data', (answer: Buffer) => answers.push(answer.toString()));
      stream.on('end', resolve);
      stream.on('error', reject);
    });
    stream.write(Buffer.from('one'));
    stream.write(Buffer.from('two'));
    stream.end();
    await ended;
    expect(answers).toEqual(['echo one', 'echo two']);
    expect(handled).toEqual(['trusted-worker']);
  });
});
