import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** PEM files made with `openssl` for one spec: a CA, a server certificate and two client certificates. */
export interface TestCertificates {
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  /** Signed by the CA: a server that requires client certificates accepts it. */
  readonly trustedClientCert: string;
  readonly trustedClientKey: string;
  /** Self-signed: no server that trusts only the CA accepts it. */
  readonly untrustedClientCert: string;
  readonly untrustedClientKey: string;
}

function openssl(dir: string, args: readonly string[]): void {
  const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  if (result.error) throw new Error(`openssl could not run (${result.error.message}); the mTLS spec needs the openssl command`);
  if (result.status !== 0)
    throw new Error(`openssl ${args.slice(0, 2).join(' ')} failed (exit ${result.status}): ${result.stderr}`);
}

/**
 * Creates the files under `dir`: the server certificate names 127.0.0.1 and localhost
 * in its subjectAltName (workers dial the controller by IP address); all last one day.
 */
export function makeTestCertificates(dir: string): TestCertificates {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = (name: string) => join(dir, name);
  const rsa = ['-newkey', 'rsa:2048', '-nodes'];
  openssl(dir, [
    'req',
    '-x509',
    ...rsa,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '1',
    '-subj',
    '/CN=Lanner e2e test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);

  writeFileSync(
    file('server.ext'),
    'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n',
  );
  openssl(dir, ['req', ...rsa, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
  openssl(dir, [
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
  ]);

  writeFileSync(
    file('client.ext'),
    'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n',
  );
  openssl(dir, ['req', ...rsa, '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=lanner-e2e-trusted-worker']);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    'client.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'client.pem',
    '-days',
    '1',
    '-extfile',
    'client.ext',
  ]);

  openssl(dir, [
    'req',
    '-x509',
    ...rsa,
    '-keyout',
    'untrusted.key',
    '-out',
    'untrusted.pem',
    '-days',
    '1',
    '-subj',
    '/CN=lanner-e2e-untrusted-worker',
    '-addext',
    'extendedKeyUsage=clientAuth',
  ]);

  return {
    caCert: file('ca.pem'),
    serverCert: file('server.pem'),
    serverKey: file('server.key'),
    trustedClientCert: file('client.pem'),
    trustedClientKey: file('client.key'),
    untrustedClientCert: file('untrusted.pem'),
    untrustedClientKey: file('untrusted.key'),
  };
}
