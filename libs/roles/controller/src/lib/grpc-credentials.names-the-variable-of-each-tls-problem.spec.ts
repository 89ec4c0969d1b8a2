import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { grpcServerCredentials, GrpcTlsSetupError } from './grpc-credentials';

describe('gRPC server credentials from LANNER_GRPC_TLS_*', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lanner-grpc-creds-'));
    writeFileSync(join(dir, 'cert.pem'), '-----BEGIN CERTIFICATE-----\n');
    writeFileSync(join(dir, 'key.pem'), '-----BEGIN PRIVATE KEY-----\n');
    writeFileSync(join(dir, 'empty.pem'), '');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function problemsOf(run: () => unknown): readonly string[] {
    try {
      run();
    } catch (error) {
      if (error instanceof GrpcTlsSetupError) return error.problems;
      throw error;
    }
    throw new Error('expected a GrpcTlsSetupError');
  }

  it('serves plaintext when no certificate is set', () => {
    expect(grpcServerCredentials({ clientAuth: 'NONE' })._isSecure()).toBe(false);
    expect(grpcServerCredentials(undefined)._isSecure()).toBe(false);
  });

  it('serves TLS with a certificate and its key, whatever the client certificates asked', () => {
    for (const clientAuth of ['NONE', 'OPTIONAL', 'REQUIRE'] as const) {
      expect(
        grpcServerCredentials({
          certFile: join(dir, 'cert.pem'),
          keyFile: join(dir, 'key.pem'),
          caFile: join(dir, 'cert.pem'),
          clientAuth,
        })._isSecure(),
      ).toBe(true);
    }
  });

  it('names the variable of a file that does not exist or is empty', () => {
    const missing = join(dir, 'missing.pem');
    expect(
      problemsOf(() => grpcServerCredentials({ certFile: missing, keyFile: join(dir, 'empty.pem'), clientAuth: 'NONE' })),
    ).toEqual([
      `LANNER_GRPC_TLS_CERT: cannot read ${missing} (it does not exist)`,
      `LANNER_GRPC_TLS_KEY: the file ${join(dir, 'empty.pem')} is empty`,
    ]);
  });

  it('asks for the other half of a certificate/key pair', () => {
    expect(problemsOf(() => grpcServerCredentials({ certFile: join(dir, 'cert.pem'), clientAuth: 'NONE' }))).toEqual([
      'LANNER_GRPC_TLS_KEY: not set, but LANNER_GRPC_TLS_CERT is; set both for TLS',
    ]);
  });

  it('asks for a CA when client certificates are to be checked, and for a server certificate when none is set', () => {
    expect(
      problemsOf(() =>
        grpcServerCredentials({ certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem'), clientAuth: 'REQUIRE' }),
      ),
    ).toEqual([
      'LANNER_GRPC_TLS_CA: not set, but LANNER_GRPC_TLS_CLIENT_AUTH is REQUIRE; client certificates are checked against it',
    ]);
    expect(problemsOf(() => grpcServerCredentials({ clientAuth: 'OPTIONAL' }))[0]).toMatch(
      /^LANNER_GRPC_TLS_CLIENT_AUTH is OPTIONAL but no server certificate is set/,
    );
  });
});
