import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError, type WorkerConfig } from '@lanner/runtime';
import type { WorkerTlsMaterial } from './controller-channel';

type Check = 'certificate' | 'key';

function readPem(variable: string, path: string, check: Check, problems: string[]): Buffer | undefined {
  let content: Buffer;
  try {
    content = readFileSync(path);
  } catch (error) {
    problems.push(`${variable}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})`);
    return undefined;
  }
  try {
    if (check === 'certificate') new X509Certificate(content);
    else createPrivateKey(content);
  } catch {
    problems.push(`${variable}: ${path} is not a PEM ${check === 'certificate' ? 'certificate' : 'private key'}`);
    return undefined;
  }
  return content;
}

/**
 * The PEM files of LANNER_WORKER_TLS_*, read and checked at start so that a
 * wrong path or a wrong file is a configuration error naming the variable,
 * not a handshake failure later. Undefined when TLS is off.
 */
export function readTlsMaterial(tls: WorkerConfig['tls']): WorkerTlsMaterial | undefined {
  const problems: string[] = [];
  const given = (
    [
      ['LANNER_WORKER_TLS_CA', tls.caFile],
      ['LANNER_WORKER_TLS_CERT', tls.certFile],
      ['LANNER_WORKER_TLS_KEY', tls.keyFile],
      ['LANNER_WORKER_TLS_AUTHORITY', tls.authority],
    ] as const
  ).filter(([, value]) => value !== undefined);
  if (!tls.enabled) {
    // A CA or a client certificate the worker would silently not use is a mistake worth stopping for.
    if (given.length > 0) {
      throw new ConfigError(
        given.map(([name]) => `${name}: set, but LANNER_WORKER_TLS is false; set LANNER_WORKER_TLS=true to connect with TLS`),
      );
    }
    return undefined;
  }
  if ((tls.certFile === undefined) !== (tls.keyFile === undefined)) {
    problems.push(
      tls.certFile === undefined
        ? 'LANNER_WORKER_TLS_CERT: required with LANNER_WORKER_TLS_KEY (the client certificate for mTLS)'
        : 'LANNER_WORKER_TLS_KEY: required with LANNER_WORKER_TLS_CERT (the private key of the client certificate)',
    );
  }
  const ca = tls.caFile === undefined ? undefined : readPem('LANNER_WORKER_TLS_CA', tls.caFile, 'certificate', problems);
  const cert = tls.certFile === undefined ? undefined : readPem('LANNER_WORKER_TLS_CERT', tls.certFile, 'certificate', problems);
  const key = tls.keyFile === undefined ? undefined : readPem('LANNER_WORKER_TLS_KEY', tls.keyFile, 'key', problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return { ca, cert, key, authority: tls.authority };
}
