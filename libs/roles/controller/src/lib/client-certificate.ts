import { X509Certificate } from 'node:crypto';
import type { SecureContextOptions } from 'node:tls';
import { TLSSocket } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { refusalStatus } from './grpc-refusals';

/** What a refused worker is told when its certificate does not chain to the CA. */
export const UNTRUSTED_CLIENT_CERTIFICATE = "the client certificate is not signed by the controller's CA (LANNER_GRPC_TLS_CA)";
/** What a worker is told when the controller cannot tell whether its certificate is trusted (it fails closed). */
export const UNCHECKED_CLIENT_CERTIFICATE =
  'the controller cannot check client certificates on this connection; see the controller log';

/** A presented client certificate that the controller refused: what its log line says (no key material). */
export interface RefusedClientCertificate {
  readonly subject: string;
  readonly issuer: string;
  /** SHA-256 fingerprint, colon-separated hex, as `openssl x509 -fingerprint -sha256` prints it. */
  readonly fingerprint256: string;
  /** The TLS verification error (e.g. `DEPTH_ZERO_SELF_SIGNED_CERT`, `CERT_HAS_EXPIRED`). */
  readonly reason: string;
  /** What the worker is told. */
  readonly message: string;
  /** The gRPC method it called and the address it called from. */
  readonly method: string;
  readonly peer: string;
}

/** The TLS facts of one connection the verdict needs (a `TLSSocket` has them). */
export interface TlsPeer {
  readonly authorized: boolean;
  readonly authorizationError?: Error | string | null;
  getPeerCertificate(detailed?: false): { raw?: Buffer; fingerprint256?: string; valid_from?: string; valid_to?: string };
}

export type ClientCertificateVerdict =
  | { readonly kind: 'absent' }
  | { readonly kind: 'trusted' }
  | { readonly kind: 'refused'; readonly certificate: Omit<RefusedClientCertificate, 'method' | 'peer'> };

function oneLine(distinguishedName: string): string {
  return distinguishedName.split('\n').filter(Boolean).join(', ');
}

/**
 * OpenSSL has verified the presented chain against `LANNER_GRPC_TLS_CA` during the
 * handshake (signatures, intermediates in the CA file, validity dates); with
 * `rejectUnauthorized: false` it only records its verdict, which is read here.
 */
export function clientCertificateVerdict(peer: TlsPeer): ClientCertificateVerdict {
  if (peer.authorized) return { kind: 'trusted' };
  const presented = peer.getPeerCertificate();
  if (!presented.raw || presented.raw.length === 0) return { kind: 'absent' };
  const reason = String((peer.authorizationError as { code?: string } | null)?.code ?? peer.authorizationError ?? 'UNKNOWN');
  let subject = '(unreadable)';
  let issuer = '(unreadable)';
  try {
    const x509 = new X509Certificate(presented.raw);
    subject = oneLine(x509.subject);
    issuer = oneLine(x509.issuer);
  } catch {
    // A certificate OpenSSL accepted into the handshake but node cannot re-parse: refused all the same.
  }
  const message =
    reason === 'CERT_HAS_EXPIRED'
      ? `the client certificate expired on ${presented.valid_to ?? 'an earlier date'}; renew it (it must chain to the controller's CA, LANNER_GRPC_TLS_CA)`
      : reason === 'CERT_NOT_YET_VALID'
        ? `the client certificate is not valid before ${presented.valid_from ?? 'a later date'}; check its dates and the controller's clock`
        : UNTRUSTED_CLIENT_CERTIFICATE;
  return { kind: 'refused', certificate: { subject, issuer, fingerprint256: presented.fingerprint256 ?? '', reason, message } };
}

/**
 * The TLS socket a call came in on. grpc-js 1.14 gives a call's handlers the peer
 * certificate only when it is trusted (`getAuthContext()` is empty otherwise), so
 * "no certificate" and "an untrusted one" look alike there. The socket tells them
 * apart; it is reached through the `stream` field of grpc-js's first intercepting
 * call (`BaseServerInterceptingCall`, private in its typings; the interceptors of
 * the credentials come first, so ours sees that call). This relies on a grpc-js
 * internal: `client-certificate.optional-asks-and-refuses-untrusted.spec.ts` pins it
 * over a real connection and fails when grpc-js changes it; at run time a call whose
 * socket cannot be found is refused (fail closed), never let through unchecked.
 */
function tlsSocketOf(call: grpc.ServerInterceptingCallInterface): TLSSocket | undefined {
  try {
    const stream = (call as unknown as { stream?: { session?: { socket?: unknown } } }).stream;
    const socket = stream?.session?.socket;
    return socket instanceof TLSSocket ? socket : undefined;
  } catch {
    // The session is already gone (ERR_HTTP2_SOCKET_UNBOUND): nothing to check, the call is refused.
    return undefined;
  }
}

function refuse(call: grpc.ServerInterceptingCallInterface, details: string): grpc.ServerInterceptingCall {
  return new grpc.ServerInterceptingCall(call, {
    start: (next) =>
      // The handler never sees the call: its metadata is not passed on.
      next({ onReceiveMetadata: () => call.sendStatus({ code: refusalStatus('unauthenticated').status, details }) }),
  });
}

export interface ClientCertificateEvents {
  onRefused(refused: RefusedClientCertificate): void;
  /** The connection could not be inspected (see `tlsSocketOf`); the call was refused. */
  onUnchecked(method: string, peer: string): void;
}

/**
 * Refuses every call (Connect, Register, Refresh) on a connection whose client
 * presented a certificate that does not chain to the CA, with UNAUTHENTICATED and
 * the reason. A client that presented none goes on (its identity comes from its
 * token); a trusted one goes on.
 */
export function clientCertificateInterceptor(events: ClientCertificateEvents): grpc.ServerInterceptor {
  return (method, call) => {
    const socket = tlsSocketOf(call);
    if (!socket) {
      events.onUnchecked(method.path, call.getPeer());
      return refuse(call, UNCHECKED_CLIENT_CERTIFICATE);
    }
    const verdict = clientCertificateVerdict(socket);
    if (verdict.kind !== 'refused') return new grpc.ServerInterceptingCall(call);
    events.onRefused({ ...verdict.certificate, method: method.path, peer: call.getPeer() });
    return refuse(call, verdict.certificate.message);
  };
}

/**
 * TLS that asks every client for a certificate but lets one without a trusted
 * certificate finish the handshake (`requestCert: true, rejectUnauthorized: false`);
 * `ServerCredentials.createSsl` cannot express this (its one flag both asks and
 * requires). Only ever used wrapped with `clientCertificateInterceptor`.
 */
class AskingServerCredentials extends grpc.ServerCredentials {
  constructor(context: SecureContextOptions) {
    super({ requestCert: true, rejectUnauthorized: false }, context);
  }

  _equals(other: grpc.ServerCredentials): boolean {
    return other === this;
  }
}

/** Server credentials for `LANNER_GRPC_TLS_CLIENT_AUTH=OPTIONAL`: a certificate is asked, and checked when presented. */
export function optionalClientCertificateCredentials(
  material: { readonly ca: Buffer; readonly cert: Buffer; readonly key: Buffer },
  events: ClientCertificateEvents,
): grpc.ServerCredentials {
  return grpc.experimental.createServerCredentialsWithInterceptors(
    new AskingServerCredentials({ ca: material.ca, cert: material.cert, key: material.key }),
    [clientCertificateInterceptor(events)],
  );
}
