import { isIP } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { frameSizeChannelOptions, WorkerAuthServiceClient, type Credentials } from '@lanner/frames';
import type { Endpoint } from '@lanner/runtime';
import type { StoredCredentials } from './credentials-file';
import { AuthRefused, AuthUnavailable, type AuthCalls } from './worker-credentials';

/** PEM material for TLS to the controllers, read from the LANNER_WORKER_TLS_* files at start. */
export interface WorkerTlsMaterial {
  /** CA bundle the controllers' certificates must chain to; the system roots when absent. */
  readonly ca?: Buffer;
  /** Client certificate chain and its key, for mTLS. */
  readonly cert?: Buffer;
  readonly key?: Buffer;
  /** Server name expected in the controllers' certificates. */
  readonly authority?: string;
}

/** How the worker dials controllers: transport security and channel options, shared by Connect and WorkerAuthService. */
export interface ControllerChannel {
  readonly credentials: grpc.ChannelCredentials;
  readonly options: grpc.ChannelOptions;
  readonly secure: boolean;
  /** Whether the worker presents a client certificate (mTLS). */
  readonly clientCertificate: boolean;
}

export function endpointAddress(endpoint: Endpoint): string {
  return endpoint.host.includes(':') ? `[${endpoint.host}]:${endpoint.port}` : `${endpoint.host}:${endpoint.port}`;
}

export function controllerChannel(tls: WorkerTlsMaterial | undefined): ControllerChannel {
  if (!tls)
    return {
      credentials: grpc.credentials.createInsecure(),
      options: frameSizeChannelOptions(),
      secure: false,
      clientCertificate: false,
    };
  const options: grpc.ChannelOptions = { ...frameSizeChannelOptions() };
  if (tls.authority) {
    options['grpc.ssl_target_name_override'] = tls.authority;
    options['grpc.default_authority'] = tls.authority;
  }
  return {
    credentials: withoutIpServerName(grpc.credentials.createSsl(tls.ca ?? null, tls.key ?? null, tls.cert ?? null)),
    options,
    secure: true,
    clientCertificate: tls.cert !== undefined,
  };
}

/**
 * TLS server names (SNI) are host names only: gRPC sends the dialled host (or
 * LANNER_WORKER_TLS_AUTHORITY) as the server name even when it is an IP
 * address, which Node.js warns about (DEP0123). For an IP address the server
 * name is left out; the certificate is still checked against that address
 * (its IP SAN), as the dialled host or through the authority override.
 */
function withoutIpServerName(credentials: grpc.ChannelCredentials): grpc.ChannelCredentials {
  const createConnector = credentials._createSecureConnector.bind(credentials);
  credentials._createSecureConnector = (target, channelOptions, callCredentials) => {
    const connector = createConnector(target, channelOptions, callCredentials);
    // grpc-js keeps the tls.connect options of a secure connector in `connectionOptions`.
    const connection = (connector as { connectionOptions?: { servername?: string } }).connectionOptions;
    if (connection?.servername !== undefined && isIP(connection.servername) !== 0) delete connection.servername;
    return connector;
  };
  return credentials;
}

/** What a TLS failure means for the operator, by what OpenSSL or Node.js said. */
const TLS_HINTS: ReadonlyArray<readonly [RegExp, string]> = [
  [/certificate required/i, 'the controller requires a client certificate: set LANNER_WORKER_TLS_CERT and LANNER_WORKER_TLS_KEY'],
  [
    /alert (bad certificate|unknown ca|certificate unknown|unsupported certificate|certificate expired)/i,
    "the controller refused the worker's client certificate: check that LANNER_WORKER_TLS_CERT chains to the CA the controller trusts",
  ],
  [
    /does not match certificate|altnames/i,
    "the controller's certificate does not name the host dialled: set LANNER_WORKER_TLS_AUTHORITY to the name it carries",
  ],
  [/certificate has expired|not yet valid/i, "the controller's certificate is expired or not yet valid"],
  [
    /unable to verify|unable to get (local )?issuer|self[- ]signed|certificate chain/i,
    "the controller's certificate does not chain to LANNER_WORKER_TLS_CA (or the system roots when it is unset)",
  ],
  [
    /wrong version number|packet length too long|http request/i,
    'the controller does not speak TLS on this port: check LANNER_WORKER_TLS',
  ],
];

/**
 * A failed stream or call, for logs: the gRPC status and details (OpenSSL's
 * internal error codes and source paths removed), plus what to check when the
 * failure is the TLS handshake.
 */
export function describeFailure(
  channel: Pick<ControllerChannel, 'secure' | 'clientCertificate'>,
  error: Pick<grpc.ServiceError, 'code' | 'details'>,
): string {
  const details = error.details
    .replace(/:SSL alert number \d+/g, '')
    .replace(/[0-9A-F]{8,}:error:[0-9A-F]+:[A-Za-z ]+routines:[A-Za-z0-9_]+:([^:]+):\S*/g, '$1')
    .replace(/\s*Resolution note:\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
  const text = `${grpc.status[error.code] ?? error.code} ${details}`;
  if (channel.secure) {
    const hint = TLS_HINTS.find(([pattern]) => pattern.test(error.details))?.[1];
    if (hint) return `${text} (TLS handshake failed: ${hint})`;
    // With TLS 1.3 a controller that refuses the client certificate often just closes the connection.
    if (
      error.code === grpc.status.UNAVAILABLE &&
      /ECONNRESET|Failed to connect|socket hang up|Connection dropped/i.test(error.details)
    ) {
      return channel.clientCertificate
        ? `${text} (the controller closed the TLS connection: it may have refused the worker's client certificate; check that LANNER_WORKER_TLS_CERT chains to the CA the controller trusts)`
        : `${text} (the controller closed the TLS connection: it may require a client certificate; set LANNER_WORKER_TLS_CERT and LANNER_WORKER_TLS_KEY)`;
    }
  } else if (
    error.code === grpc.status.UNAVAILABLE &&
    /EPROTO|wrong version|protocol|ECONNRESET|socket hang up/i.test(error.details)
  ) {
    return `${text} (if the controller requires TLS, set LANNER_WORKER_TLS=true)`;
  }
  return text;
}

const AUTH_CALL_DEADLINE_MS = 10_000;
/** Codes by which the controller says the token itself is not acceptable; anything else is worth retrying. */
const REFUSALS = new Set([grpc.status.UNAUTHENTICATED, grpc.status.PERMISSION_DENIED, grpc.status.INVALID_ARGUMENT]);

function storedFrom(answer: Credentials): StoredCredentials {
  if (!answer.accessToken || !answer.refreshToken || !answer.accessExpiresAt || !answer.refreshExpiresAt) {
    throw new AuthUnavailable('the controller answered with incomplete credentials');
  }
  return {
    workerId: answer.workerId,
    workerGroupId: answer.workerGroupId,
    accessToken: answer.accessToken,
    accessExpiresAt: answer.accessExpiresAt,
    refreshToken: answer.refreshToken,
    refreshExpiresAt: answer.refreshExpiresAt,
  };
}

/** WorkerAuthService over gRPC, on the controller being dialled, with the same transport security as Connect. */
export function grpcAuthCalls(channel: ControllerChannel): AuthCalls {
  const call = (
    endpoint: Endpoint,
    what: string,
    invoke: (
      client: WorkerAuthServiceClient,
      deadline: Date,
      done: (error: grpc.ServiceError | null, answer: Credentials) => void,
    ) => void,
  ) =>
    new Promise<StoredCredentials>((resolve, reject) => {
      const address = endpointAddress(endpoint);
      const client = new WorkerAuthServiceClient(address, channel.credentials, channel.options);
      invoke(client, new Date(Date.now() + AUTH_CALL_DEADLINE_MS), (error, answer) => {
        client.close();
        if (error) {
          const reason = `${what} on ${address}: ${describeFailure(channel, error)}`;
          return reject(REFUSALS.has(error.code) ? new AuthRefused(reason) : new AuthUnavailable(reason));
        }
        try {
          resolve(storedFrom(answer));
        } catch (invalid) {
          reject(invalid);
        }
      });
    });
  return {
    register: (endpoint, registrationToken, workerName) =>
      call(endpoint, 'Register', (client, deadline, done) =>
        client.register({ registrationToken, workerName }, new grpc.Metadata(), { deadline }, done),
      ),
    refresh: (endpoint, refreshToken) =>
      call(endpoint, 'Refresh', (client, deadline, done) =>
        client.refresh({ refreshToken }, new grpc.Metadata(), { deadline }, done),
      ),
  };
}
