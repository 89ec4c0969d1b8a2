import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { type ClientCertificateEvents, optionalClientCertificateCredentials } from './client-certificate';
import type { ControllerTlsSettings } from './controller-settings';

/** For callers that log refusals elsewhere (the refused worker is told why all the same). */
const IGNORE_CLIENT_CERTIFICATE_EVENTS: ClientCertificateEvents = { onRefused: () => undefined, onUnchecked: () => undefined };

/** The TLS settings cannot be used: one line per problem, each naming its variable (never a key's content). */
export class GrpcTlsSetupError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('; '));
    this.name = 'GrpcTlsSetupError';
  }
}

function readPem(file: string, variable: string, problems: string[]): Buffer | undefined {
  try {
    const content = readFileSync(file);
    if (content.length === 0) {
      problems.push(`${variable}: the file ${file} is empty`);
      return undefined;
    }
    return content;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'it does not exist'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a directory'
            : 'it cannot be read';
    problems.push(`${variable}: cannot read ${file} (${why})`);
    return undefined;
  }
}

/**
 * The gRPC server's credentials from `LANNER_GRPC_TLS_*`: plaintext when no
 * certificate is set; TLS with the certificate and key. `LANNER_GRPC_TLS_CLIENT_AUTH`:
 * - `NONE`: no client certificate is asked;
 * - `OPTIONAL`: one is asked; a worker without one is let in (identity from its
 *   access token), a worker that presents one that does not chain to
 *   `LANNER_GRPC_TLS_CA` (or is out of its validity) finishes the handshake but every
 *   call it makes is refused with UNAUTHENTICATED saying why, and `events.onRefused`
 *   gets the certificate's subject and fingerprint (`client-certificate.ts`);
 * - `REQUIRE`: a client without a certificate signed by that CA cannot finish the
 *   handshake.
 */
export function grpcServerCredentials(
  tls: ControllerTlsSettings | undefined,
  events: ClientCertificateEvents = IGNORE_CLIENT_CERTIFICATE_EVENTS,
): grpc.ServerCredentials {
  const clientAuth = tls?.clientAuth ?? 'NONE';
  if (!tls?.certFile && !tls?.keyFile) {
    if (clientAuth !== 'NONE') {
      throw new GrpcTlsSetupError([
        `LANNER_GRPC_TLS_CLIENT_AUTH is ${clientAuth} but no server certificate is set; set LANNER_GRPC_TLS_CERT and LANNER_GRPC_TLS_KEY, or set LANNER_GRPC_TLS_CLIENT_AUTH=NONE`,
      ]);
    }
    return grpc.ServerCredentials.createInsecure();
  }
  const problems: string[] = [];
  if (!tls.certFile) problems.push('LANNER_GRPC_TLS_CERT: not set, but LANNER_GRPC_TLS_KEY is; set both for TLS');
  if (!tls.keyFile) problems.push('LANNER_GRPC_TLS_KEY: not set, but LANNER_GRPC_TLS_CERT is; set both for TLS');
  if (clientAuth !== 'NONE' && !tls.caFile) {
    problems.push(
      `LANNER_GRPC_TLS_CA: not set, but LANNER_GRPC_TLS_CLIENT_AUTH is ${clientAuth}; client certificates are checked against it`,
    );
  }
  const cert = tls.certFile ? readPem(tls.certFile, 'LANNER_GRPC_TLS_CERT', problems) : undefined;
  const key = tls.keyFile ? readPem(tls.keyFile, 'LANNER_GRPC_TLS_KEY', problems) : undefined;
  const ca = tls.caFile ? readPem(tls.caFile, 'LANNER_GRPC_TLS_CA', problems) : undefined;
  if (problems.length > 0 || !cert || !key) throw new GrpcTlsSetupError(problems);
  try {
    if (clientAuth === 'OPTIONAL' && ca) return optionalClientCertificateCredentials({ ca, cert, key }, events);
    return grpc.ServerCredentials.createSsl(ca ?? null, [{ cert_chain: cert, private_key: key }], clientAuth === 'REQUIRE');
  } catch {
    throw new GrpcTlsSetupError([
      'LANNER_GRPC_TLS_CERT / LANNER_GRPC_TLS_KEY: the files are not a usable PEM certificate chain and private key',
    ]);
  }
}
