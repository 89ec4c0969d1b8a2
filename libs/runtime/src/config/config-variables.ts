import { availableParallelism, hostname } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ROLES, Role, SERVER_ROLES } from './roles';

/**
 * Every environment variable a Lanner process reads, in one table: the loader
 * builds each role's schema from it and docs/CONFIGURATION.md is rendered from
 * it, so the documentation cannot drift from what the code accepts.
 */
/** The worker's slots per CPU when LANNER_WORKER_SLOTS is unset. */
const DEFAULT_SLOTS_PER_CPU = 8;

export interface ConfigVariable {
  readonly name: string;
  readonly roles: readonly Role[];
  /** Applied when the variable is unset or empty; absent means the variable is required. */
  readonly defaultFor?: (role: Role) => string;
  /** The default as the documentation shows it. */
  readonly defaultText: string;
  readonly description: string;
  /** A secret's value never appears in an error message or a log line. */
  readonly secret: boolean;
  readonly schema: z.ZodType<unknown, string>;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Endpoint {
  readonly host: string;
  readonly port: number;
}

/** One HTTP port per role so that every role can run side by side on one machine. */
export const DEFAULT_HTTP_PORTS: Readonly<Record<Role, number>> = {
  api: 8080,
  executor: 8081,
  controller: 8082,
  worker: 8083,
  scheduler: 8084,
  indexer: 8085,
  standalone: 8080,
};

const NOT_SET = 'required, not set';

/** A string variable whose missing value is reported as such, and any other type problem as `expected`. */
function text(expected: string) {
  return z.string({ error: (issue) => (issue.input === undefined ? NOT_SET : expected) });
}

function integer(min: number, max: number) {
  const expected = `expected an integer ${min}-${max}`;
  return text(expected)
    .refine((value) => /^\d+$/.test(value) && Number(value) >= min && Number(value) <= max, { error: expected })
    .transform(Number);
}

const ENDPOINT = /^(\[[0-9A-Fa-f:.]+\]|[^\s:,[\]]+):(\d{1,5})$/;

function parseEndpoint(entry: string): Endpoint | undefined {
  const match = ENDPOINT.exec(entry);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}

function endpointList() {
  return endpoints(false) as z.ZodType<Endpoint[], string>;
}

/** An endpoint list that may be left empty (undefined then). */
function optionalEndpointList() {
  return endpoints(true);
}

function endpoints(optional: boolean) {
  const expected = 'expected a comma-separated list of host:port';
  const entries = (value: string) =>
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry.length > 0);
  return text(expected)
    .refine(
      (value) =>
        (optional && value.trim() === '') ||
        (entries(value).length > 0 && entries(value).every((entry) => parseEndpoint(entry) !== undefined)),
      { error: expected },
    )
    .transform((value) => (value.trim() === '' ? undefined : entries(value).map((entry) => parseEndpoint(entry) as Endpoint)));
}

function postgresUrl() {
  const expected = 'expected a postgres:// or postgresql:// URL with a host';
  return text(expected).refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && url.hostname.length > 0;
      } catch {
        return false;
      }
    },
    { error: expected },
  );
}

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  const expected = `expected one of ${values.join(', ')}`;
  return text(expected).refine((value): value is T[number] => values.includes(value), { error: expected });
}

function hostName() {
  const expected = 'expected a host name or IP address';
  return text(expected).refine((value) => /^[^\s/]+$/.test(value), { error: expected });
}

function directory() {
  const expected = 'expected a directory path';
  // Resolved once at start so that a later chdir cannot move the data.
  return text(expected).transform((value) => resolve(value));
}

function kafkaClientId() {
  const expected = 'expected letters, digits, ".", "_" or "-"';
  return text(expected).refine((value) => /^[A-Za-z0-9._-]+$/.test(value), { error: expected });
}

function flag() {
  const expected = 'expected true or false';
  return text(expected)
    .refine((value) => value === 'true' || value === 'false', { error: expected })
    .transform((value) => value === 'true');
}

/**
 * Variable families an `envs` prefix must not reach: Lanner's own settings and
 * the credentials of its stores. A prefix that starts one of them, or that one
 * of them starts, would hand their values to every flow.
 */
export const ENV_PREFIX_RESERVED = ['LANNER_', 'DATABASE_', 'AWS_', 'S3_', 'KAFKA_', 'PG', 'NODE_'] as const;

function envPrefix() {
  const expected = `expected letters, digits and "_" (such as ENV_) not covering ${ENV_PREFIX_RESERVED.join(', ')}`;
  return text(expected).refine(
    (value) => {
      if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(value)) return false;
      const upper = value.toUpperCase();
      return !ENV_PREFIX_RESERVED.some((family) => family.startsWith(upper) || upper.startsWith(family));
    },
    { error: expected },
  );
}

function jsonObject() {
  const expected = 'expected a JSON object, such as {"region": "eu"}';
  return text(expected).transform((value, context) => {
    try {
      const parsed: unknown = JSON.parse(value);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // reported below
    }
    context.addIssue({ code: 'custom', message: expected });
    return z.NEVER;
  });
}

function workerName() {
  const expected = 'expected 1-128 letters, digits, ".", "_" or "-"';
  return text(expected).refine((value) => /^[A-Za-z0-9._-]{1,128}$/.test(value), { error: expected });
}

function bootstrapToken() {
  const expected = 'expected at least 32 characters';
  return text(expected).refine((value) => value.length >= 32, { error: expected });
}

function signingKey() {
  const expected = 'expected at least 32 bytes (e.g. `openssl rand -base64 48`)';
  return text(expected).refine((value) => Buffer.byteLength(value, 'utf8') >= 32, { error: expected });
}

/** An optional file path: empty means unset (undefined). Existence is checked where the file is read, naming the variable. */
function optionalFile() {
  return z.string().transform((value) => (value.trim() === '' ? undefined : resolve(value)));
}

/** An optional signing key: empty means unset (undefined), anything else at least 32 bytes. */
function optionalSigningKey() {
  const expected = 'expected at least 32 bytes (e.g. `openssl rand -base64 48`)';
  return optionalSecret().refine((value) => value === undefined || Buffer.byteLength(value, 'utf8') >= 32, { error: expected });
}

/** An optional secret value: empty means unset (undefined). */
function optionalSecret() {
  return z.string().transform((value) => (value.trim() === '' ? undefined : value));
}

/** An optional integer: empty means unset (undefined). */
function optionalInteger(min: number, max: number) {
  const expected = `expected an integer ${min}-${max}, or empty`;
  return z
    .string()
    .refine((value) => value.trim() === '' || (/^\d+$/.test(value.trim()) && Number(value) >= min && Number(value) <= max), {
      error: expected,
    })
    .transform((value) => (value.trim() === '' ? undefined : Number(value)));
}

function optionalText(expected: string, pattern: RegExp) {
  return z
    .string()
    .refine((value) => value.trim() === '' || pattern.test(value), { error: expected })
    .transform((value) => (value.trim() === '' ? undefined : value));
}

/** Where optional variables default to: unset. */
const UNSET = () => '';

const ALL_ROLES = ROLES;

export const CONFIG_VARIABLES = [
  {
    name: 'LANNER_HTTP_PORT',
    roles: ALL_ROLES,
    defaultFor: (role: Role) => String(DEFAULT_HTTP_PORTS[role]),
    defaultText: ROLES.map((role) => `${role} ${DEFAULT_HTTP_PORTS[role]}`).join(', '),
    description: 'TCP port of the HTTP server (REST API for `api` and `standalone`; health endpoints everywhere).',
    secret: false,
    schema: integer(1, 65535),
  },
  {
    name: 'LANNER_HTTP_HOST',
    roles: ALL_ROLES,
    defaultFor: (role: Role) => (role === 'standalone' ? '127.0.0.1' : '0.0.0.0'),
    defaultText: '`127.0.0.1` for standalone (a laptop), `0.0.0.0` otherwise (a container)',
    description: 'Address the HTTP server listens on.',
    secret: false,
    schema: hostName(),
  },
  {
    name: 'LANNER_HTTP_HEADERS_TIMEOUT_MS',
    roles: ALL_ROLES,
    defaultFor: () => '10000',
    defaultText: '`10000`',
    description:
      "How long the HTTP server waits for a request's headers before it answers 408 and closes the connection (a client that sends them slowly holds nothing longer).",
    secret: false,
    schema: integer(1000, 600000),
  },
  {
    name: 'LANNER_HTTP_REQUEST_TIMEOUT_MS',
    roles: ALL_ROLES,
    defaultFor: () => '60000',
    defaultText: '`60000`',
    description:
      'How long the HTTP server waits for a whole request (headers and body) to arrive; the answer (a stream, `?wait=true`) is not limited by it.',
    secret: false,
    schema: integer(1000, 3600000),
  },
  {
    name: 'LANNER_HTTP_KEEP_ALIVE_TIMEOUT_MS',
    roles: ALL_ROLES,
    defaultFor: () => '5000',
    defaultText: '`5000`',
    description: 'How long an idle keep-alive connection stays open after its last answer.',
    secret: false,
    schema: integer(100, 600000),
  },
  {
    name: 'LANNER_HTTP_MAX_CONNECTIONS',
    roles: ALL_ROLES,
    defaultFor: () => '1024',
    defaultText: '`1024`',
    description:
      'Most TCP connections the HTTP server holds at once (live streams included); a connection beyond it is closed at once.',
    secret: false,
    schema: integer(1, 1000000),
  },
  {
    name: 'LANNER_LOG_LEVEL',
    roles: ALL_ROLES,
    defaultFor: () => 'info',
    defaultText: '`info`',
    description: `Lowest level written to the JSON log on stdout: ${LOG_LEVELS.join(', ')}.`,
    secret: false,
    schema: oneOf(LOG_LEVELS),
  },
  {
    name: 'LANNER_READY_TIMEOUT_MS',
    roles: ALL_ROLES,
    defaultFor: () => '2000',
    defaultText: '`2000`',
    description: 'How long `/health/ready` waits for each dependency before reporting it down.',
    secret: false,
    schema: integer(50, 60000),
  },
  {
    name: 'DATABASE_URL',
    roles: SERVER_ROLES,
    defaultText: 'required',
    description: 'PostgreSQL connection URL (`postgresql://user:password@host:5432/lanner`). Also read by `lanner db migrate`.',
    secret: true,
    schema: postgresUrl(),
  },
  {
    name: 'KAFKA_BROKERS',
    roles: SERVER_ROLES,
    defaultText: 'required',
    description: 'Kafka bootstrap brokers, comma-separated `host:port`.',
    secret: false,
    schema: endpointList(),
  },
  {
    name: 'LANNER_KAFKA_CLIENT_ID',
    roles: SERVER_ROLES,
    defaultFor: (role: Role) => `lanner-${role}`,
    defaultText: '`lanner-<role>`',
    description: 'Kafka client id, shown in broker logs and quotas.',
    secret: false,
    schema: kafkaClientId(),
  },
  {
    name: 'LANNER_KAFKA_NAMESPACE',
    roles: SERVER_ROLES,
    defaultFor: UNSET,
    defaultText: 'unset (topics are named `lanner.*`)',
    description:
      'Prefix of every Kafka topic and consumer group of this cluster (e.g. `staging.`), so that several Lanner clusters can share one Kafka cluster. Every role of a cluster needs the same value.',
    secret: false,
    schema: optionalText('expected letters, digits, ".", "_" or "-" (at most 100)', /^[A-Za-z0-9._-]{1,100}$/),
  },
  {
    name: 'LANNER_WORKER_CONTROLLERS',
    roles: ['worker'],
    defaultFor: UNSET,
    defaultText: 'required, unless `LANNER_WORKER_DISCOVERY` is `STORAGE`',
    description:
      'Controllers the worker connects to, comma-separated `host:port`, tried in order; the worker is ready while a controller has accepted its stream. Ignored with `STORAGE` discovery.',
    secret: false,
    schema: optionalEndpointList(),
  },
  {
    name: 'LANNER_ADMIN_TOKEN',
    roles: ['api'],
    defaultText: 'required',
    description:
      'Bootstrap admin API token (at least 32 characters): accepted as `Authorization: Bearer <token>` with instance-admin rights. Stored hashed; standalone generates its own.',
    secret: true,
    schema: bootstrapToken(),
  },
  {
    name: 'LANNER_USER_JWT_SIGNING_KEY',
    roles: ['api'],
    defaultFor: UNSET,
    defaultText: 'unset: user login answers 503 (standalone generates one under its data directory)',
    description:
      'Key that signs and verifies the access JWTs of users who log in (HS256), at least 32 bytes. Every api instance needs the same key; the process refuses to start with a shorter one.',
    secret: true,
    schema: optionalSigningKey(),
  },
  {
    name: 'LANNER_USER_ACCESS_TOKEN_TTL_S',
    roles: ['api', 'standalone'],
    defaultFor: () => '900',
    defaultText: '`900` (15 minutes)',
    description:
      'Lifetime of the access JWT a user gets at login, in seconds; the web UI renews it through the refresh-token cookie before it expires.',
    secret: false,
    schema: integer(5, 86400),
  },
  {
    name: 'LANNER_USER_REFRESH_TOKEN_TTL_S',
    roles: ['api', 'standalone'],
    defaultFor: () => '604800',
    defaultText: '`604800` (7 days)',
    description:
      "Lifetime of a user's refresh token (the HttpOnly cookie), in seconds; each refresh issues a new one. After it the user logs in again.",
    secret: false,
    schema: integer(60, 31536000),
  },
  {
    name: 'LANNER_USER_MAX_FAILED_LOGINS',
    roles: ['api', 'standalone'],
    defaultFor: () => '5',
    defaultText: '`5`',
    description:
      'Failed logins in a row that lock a user for `LANNER_USER_LOCKOUT_S`; meanwhile a login answers 429 with `Retry-After`.',
    secret: false,
    schema: integer(1, 1000),
  },
  {
    name: 'LANNER_USER_LOCKOUT_S',
    roles: ['api', 'standalone'],
    defaultFor: () => '900',
    defaultText: '`900` (15 minutes)',
    description: 'How long a user locked by failed logins stays locked, in seconds.',
    secret: false,
    schema: integer(1, 86400),
  },
  {
    name: 'LANNER_API_EMBEDDED_INDEXER',
    roles: ['api'],
    defaultFor: () => 'true',
    defaultText: '`true` (`lanner server api --no-indexer` sets `false`)',
    description:
      'Whether the api process also runs the indexer (logs, metrics and execution updates into the repository). Set `false` when the indexer runs as its own deployment.',
    secret: false,
    schema: flag(),
  },
  {
    name: 'LANNER_TIMER_INTERVAL_MS',
    roles: ['executor', 'standalone'],
    defaultFor: () => '1000',
    defaultText: '`1000`',
    description: 'How often the executor fires due timers (retries, pauses, timeouts).',
    secret: false,
    schema: integer(50, 60000),
  },
  {
    name: 'LANNER_SERVICE_INSTANCE_RETENTION_S',
    roles: ['executor', 'standalone'],
    defaultFor: () => '86400',
    defaultText: '`86400` (a day)',
    description:
      'How long the row of a service instance that ended (NOT_RUNNING or TERMINATED) stays in `GET /api/v1/instance/services` before the liveness coordinator purges it.',
    secret: false,
    schema: integer(60, 31536000),
  },
  {
    name: 'LANNER_SCHEDULER_BACKFILL_PER_SECOND',
    roles: ['scheduler', 'standalone'],
    defaultFor: () => '10',
    defaultText: '`10`',
    description:
      'How many past dates each running backfill fires per second, at most (so a long range never floods the executor).',
    secret: false,
    schema: integer(1, 1000),
  },
  {
    name: 'LANNER_SCHEDULER_AHEAD_MS',
    roles: ['scheduler', 'standalone'],
    defaultFor: () => '15000',
    defaultText: '`15000`',
    description:
      'How far ahead of their next date (ms) a scheduler claims and evaluates schedules; it creates their executions at the date, never before, so a date many schedules share costs one write at that second. 0 claims only what is due.',
    secret: false,
    schema: integer(0, 60_000),
  },
  {
    name: 'LANNER_EXPRESSION_ENV_PREFIX',
    roles: ['executor', 'standalone'],
    defaultFor: () => 'ENV_',
    defaultText: '`ENV_`',
    description:
      "Kestra's `envs`: the environment variables of the executor whose name starts with this prefix are readable in expressions as `{{ envs.<name> }}`, the prefix left out and the name in lower case (`ENV_REGION` is `envs.region`). No other variable is exposed; a prefix that would reach Lanner's own settings or its stores' credentials (`LANNER_`, `DATABASE_`, `AWS_`, `S3_`, `KAFKA_`, `PG`, `NODE_`) is refused.",
    secret: false,
    schema: envPrefix(),
  },
  {
    name: 'LANNER_EXPRESSION_GLOBALS',
    roles: ['executor', 'standalone'],
    defaultFor: () => '{}',
    defaultText: '`{}`',
    description:
      "Kestra's `globals`: instance-wide variables as a JSON object, readable in every flow's expressions as `{{ globals.<key> }}`. Visible to every flow: never put a secret here.",
    secret: false,
    schema: jsonObject(),
  },
  {
    name: 'LANNER_GRPC_HOST',
    roles: ['controller', 'standalone'],
    defaultFor: (role: Role) => (role === 'standalone' ? '127.0.0.1' : '0.0.0.0'),
    defaultText: '`127.0.0.1` for standalone, `0.0.0.0` otherwise',
    description: "Address the controller's gRPC server (the endpoint workers connect to) listens on.",
    secret: false,
    schema: hostName(),
  },
  {
    name: 'LANNER_GRPC_PORT',
    roles: ['controller', 'standalone'],
    defaultFor: () => '9090',
    defaultText: '`9090`',
    description: "TCP port of the controller's gRPC server; `0` picks a free port (logged at start).",
    secret: false,
    schema: integer(0, 65535),
  },
  {
    name: 'LANNER_CONTROLLER_ADVERTISED_HOST',
    roles: ['controller'],
    defaultFor: UNSET,
    defaultText: 'unset (the controller does not register)',
    description:
      'The host name or address workers reach this controller at (e.g. the pod IP). When set, the controller registers `<this host>:<its gRPC port>` in internal storage (`LANNER_STORAGE_*`) for workers with `LANNER_WORKER_DISCOVERY=STORAGE`, refreshes the entry every `LANNER_CONTROLLER_REGISTRATION_REFRESH_S` and removes it when it stops.',
    secret: false,
    schema: optionalText('expected a host name or an IP address', /^[A-Za-z0-9.:-]{1,253}$/),
  },
  {
    name: 'LANNER_CONTROLLER_REGISTRATION_REFRESH_S',
    roles: ['controller'],
    defaultFor: () => '10',
    defaultText: '`10`',
    description:
      'How often a registered controller rewrites its storage entry; an entry counts for three periods after its last refresh, so the entry of a controller that died is ignored after that.',
    secret: false,
    schema: integer(1, 3600),
  },
  {
    name: 'LANNER_ALLOW_ANONYMOUS_WORKERS',
    roles: ['controller'],
    defaultFor: () => 'false',
    defaultText: '`false` (standalone always allows its own local worker)',
    description: 'Whether a worker that presents no registration token may join the `default` group.',
    secret: false,
    schema: flag(),
  },
  {
    name: 'LANNER_WORKER_SLOTS',
    roles: ['worker', 'standalone'],
    // A slot is held from the controller's placement to the result, mostly waiting on I/O: eight per CPU keep a
    // fast task's round trip from bounding throughput (standalone on 2 CPUs: 112/s with 8 slots, 143/s with 16).
    defaultFor: () => String(Math.min(1024, DEFAULT_SLOTS_PER_CPU * availableParallelism())),
    defaultText: '8 per CPU of the machine (`os.availableParallelism()`), at most 1024',
    description: 'How many tasks the worker runs at once (its slots).',
    secret: false,
    schema: integer(1, 1024),
  },
  {
    name: 'LANNER_WORKER_STARTED_REPORT_DELAY_MS',
    roles: ['worker'],
    defaultFor: () => '200',
    defaultText: '`200`',
    description:
      'A task still running this many milliseconds after it began is reported as started; one that ends sooner is reported by its result alone (one frame, one executor event). `0` reports every start.',
    secret: false,
    schema: integer(0, 60000),
  },
  {
    name: 'LANNER_WORKER_NAME',
    roles: ['worker'],
    defaultFor: () =>
      hostname()
        .replace(/[^A-Za-z0-9._-]/g, '-')
        .slice(0, 128) || 'worker',
    defaultText: 'the host name',
    description: "The worker's name as the controllers and the API show it.",
    secret: false,
    schema: workerName(),
  },
  {
    name: 'LANNER_WORKER_DATA_DIR',
    roles: ['worker'],
    defaultFor: () => '.lanner-worker',
    defaultText: '`.lanner-worker` (relative to the working directory)',
    description: "The worker's internal storage: task working directories and the task output cache.",
    secret: false,
    schema: directory(),
  },
  {
    name: 'LANNER_DATA_DIR',
    roles: ['standalone'],
    defaultFor: () => '.lanner',
    defaultText: '`.lanner` (relative to the working directory)',
    description:
      "Where standalone keeps its embedded PostgreSQL data, that database's generated password and the bootstrap admin token; kept across restarts. " +
      'As root, PostgreSQL runs as the `postgres` user: when a folder above this one does not let that user pass (a working directory under /root, a `mktemp -d` folder), ' +
      "the cluster goes to `/var/lib/lanner/standalone-<key>/postgres` instead, `<key>` being the first 12 hex digits of the SHA-256 of this folder's absolute path, " +
      'so two data dirs never share a cluster; the password and the admin token stay here. Delete both folders to start afresh.',
    secret: false,
    schema: directory(),
  },
  {
    name: 'LANNER_EMBEDDED_DB_PORT',
    roles: ['standalone'],
    defaultFor: () => '54329',
    defaultText: '`54329`',
    description: 'Loopback port of the embedded PostgreSQL that standalone starts.',
    secret: false,
    schema: integer(1, 65535),
  },
  {
    name: 'LANNER_JWT_SIGNING_KEY',
    roles: ['controller'],
    defaultText: 'required (standalone generates one under its data directory)',
    description:
      'Key that signs and verifies worker access tokens (HS256), at least 32 bytes. Every controller of a cluster needs the same key; the process refuses to start with a shorter one.',
    secret: true,
    schema: signingKey(),
  },
  {
    name: 'LANNER_WORKER_ACCESS_TOKEN_TTL_S',
    roles: ['controller', 'standalone'],
    defaultFor: () => '300',
    defaultText: '`300` (5 minutes)',
    description: 'Lifetime of a worker access token (JWT) in seconds.',
    secret: false,
    schema: integer(5, 86400),
  },
  {
    name: 'LANNER_WORKER_REFRESH_TOKEN_TTL_S',
    roles: ['controller', 'standalone'],
    defaultFor: () => '604800',
    defaultText: '`604800` (7 days)',
    description:
      'Lifetime of a worker refresh token in seconds; after it the worker must register again with a registration token.',
    secret: false,
    schema: integer(60, 31536000),
  },
  {
    name: 'LANNER_GRPC_TLS_CERT',
    roles: ['controller'],
    defaultFor: UNSET,
    defaultText: 'unset (plaintext gRPC)',
    description:
      "PEM certificate chain of the controller's gRPC server. With `LANNER_GRPC_TLS_KEY`, workers must connect with TLS.",
    secret: false,
    schema: optionalFile(),
  },
  {
    name: 'LANNER_GRPC_TLS_KEY',
    roles: ['controller'],
    defaultFor: UNSET,
    defaultText: 'unset',
    description: 'PEM private key of `LANNER_GRPC_TLS_CERT`.',
    secret: false,
    schema: optionalFile(),
  },
  {
    name: 'LANNER_GRPC_TLS_CA',
    roles: ['controller'],
    defaultFor: UNSET,
    defaultText: 'unset',
    description:
      'PEM CA bundle that worker client certificates must chain to (mTLS); needed when `LANNER_GRPC_TLS_CLIENT_AUTH` is not `NONE`.',
    secret: false,
    schema: optionalFile(),
  },
  {
    name: 'LANNER_GRPC_TLS_CLIENT_AUTH',
    roles: ['controller'],
    defaultFor: () => 'NONE',
    defaultText: '`NONE`',
    description:
      'Client certificates on the gRPC server: `NONE` (not asked), `OPTIONAL` (checked against the CA when presented), `REQUIRE` (a worker without a trusted certificate cannot connect).',
    secret: false,
    schema: oneOf(['NONE', 'OPTIONAL', 'REQUIRE'] as const),
  },
  {
    name: 'LANNER_STREAM_RECYCLE_AGE_S',
    roles: ['controller'],
    defaultFor: () => '1800',
    defaultText: '`1800` (30 minutes)',
    description:
      'A worker stream older than this (plus up to 10 % jitter) is ended with a Reconnect frame so that new controllers get traffic; `0` never recycles.',
    secret: false,
    schema: integer(0, 604800),
  },
  {
    name: 'LANNER_LEDGER_RECONCILE_INTERVAL_MS',
    roles: ['controller'],
    defaultFor: () => '30000',
    defaultText: '`30000` (30 seconds)',
    description:
      "How often the controller compares the jobs its workers hold with its rows of the running-job store; a held job whose row is gone (its result was recorded elsewhere, or it was put back on its queue) frees its worker's slot.",
    secret: false,
    schema: integer(100, 3600000),
  },
  {
    name: 'LANNER_WORKER_ADOPTION_GRACE_MS',
    roles: ['controller'],
    defaultFor: () => '10000',
    defaultText: '`10000` (10 seconds)',
    description:
      "After a worker's stream ends, how long the jobs it held wait for the worker to reconnect and list them (on this or another controller) before they are reported lost (a job the worker leaves out when it reconnects to the same controller, after a restart, is reported lost at once); the controller's retry of unpublished lost reports waits one and a half times this.",
    secret: false,
    schema: integer(100, 3600000),
  },
  {
    name: 'LANNER_WORKER_HEARTBEAT_INTERVAL_MS',
    roles: ['controller'],
    defaultFor: () => '3000',
    defaultText: '`3000` (3 seconds)',
    description:
      'How often workers heartbeat (the controller tells them in Welcome). A stream silent for 5 intervals is ended; a started job missing from 2 heartbeats in a row, with no result, is reported lost.',
    secret: false,
    schema: integer(100, 60000),
  },
  {
    name: 'LANNER_ANONYMOUS_ADOPTION_WAIT_MS',
    roles: ['controller'],
    defaultFor: () => '3000',
    defaultText: '`3000` (3 seconds)',
    description:
      "An anonymous worker without an instance id adopts a job at reconnect only from a worker stream no longer connected; the old stream's end may still be on its way, so it is awaited at most this long (the Welcome waits with it).",
    secret: false,
    schema: integer(0, 60000),
  },
  {
    name: 'LANNER_ANONYMOUS_ADOPTION_RECHECK_MS',
    roles: ['controller'],
    defaultFor: () => '250',
    defaultText: '`250`',
    description:
      'While `LANNER_ANONYMOUS_ADOPTION_WAIT_MS` runs, how often the controller checks again whether the old stream has ended.',
    secret: false,
    schema: integer(10, 60000),
  },
  {
    name: 'LANNER_WORKER_REGISTRY_WRITE_INTERVAL_MS',
    roles: ['controller'],
    defaultFor: () => '1000',
    defaultText: '`1000` (1 second)',
    description:
      "A connected worker's row of the live worker registry is rewritten at most this often, however often its capacity changes.",
    secret: false,
    schema: integer(10, 60000),
  },
  {
    name: 'LANNER_WORKER_REGISTRY_SCAN_MS',
    roles: ['controller'],
    defaultFor: () => '250',
    defaultText: '`250`',
    description: 'How often the controller looks for rows of the live worker registry whose content changed.',
    secret: false,
    schema: integer(10, 60000),
  },
  {
    name: 'LANNER_WORKER_REGISTRY_FULL_CHECK_MS',
    roles: ['controller'],
    defaultFor: () => '5000',
    defaultText: '`5000` (5 seconds)',
    description:
      "How often the figures of a registry row that move with every fetch (the jobs waiting on this controller for the worker's queues) are compared; the row is rewritten only when they moved.",
    secret: false,
    schema: integer(10, 600000),
  },
  {
    name: 'LANNER_HEAP_GROWING_PERCENT',
    roles: ['controller'],
    defaultFor: () => '200',
    defaultText: '`200` (the heap may grow to 3 times what a full collection left)',
    description:
      "How far the controller's V8 heap may grow after a full collection before the next one starts, as `1 + value/100` times what survived (V8's `--heap-growing-percent`); `0` lets V8 choose, which under dispatch load often gives under 2 times. A larger factor means fewer full collections, whose pauses showed in dispatch latency from 100 jobs/s, for more heap between them (docs/BENCHMARKS.md, fleet bench).",
    secret: false,
    schema: integer(0, 1000),
  },
  {
    name: 'LANNER_SETUP_FILE',
    roles: ['api', 'standalone'],
    defaultFor: UNSET,
    defaultText: 'unset',
    description:
      'YAML file whose `setup` section (worker queues, worker groups, subscriptions, registration tokens) is applied at start as a seed: existing ids are skipped; the whole section is validated first.',
    secret: false,
    schema: optionalFile(),
  },
  {
    name: 'LANNER_WORKER_REGISTRATION_TOKEN',
    roles: ['worker'],
    defaultFor: UNSET,
    defaultText: 'unset (the worker joins the `default` group anonymously, where the controller allows it)',
    description:
      'Registration token of the worker group to join; presented once, then the credentials in `LANNER_WORKER_CREDENTIALS_PATH` are used and rotated.',
    secret: true,
    schema: optionalSecret(),
  },
  {
    name: 'LANNER_WORKER_CREDENTIALS_PATH',
    roles: ['worker'],
    defaultFor: UNSET,
    defaultText: '`<LANNER_WORKER_DATA_DIR>/credentials.json`',
    description:
      'Where the worker keeps its access and refresh tokens (file mode 0600), so a restart does not need the registration token again.',
    secret: false,
    schema: optionalFile(),
  },
  {
    name: 'LANNER_WORKER_REFRESH_BUFFER_S',
    roles: ['worker'],
    defaultFor: () => '60',
    defaultText: '`60`',
    description: 'How long before its access token expires the worker refreshes it.',
    secret: false,
    schema: integer(1, 86400),
  },
  {
    name: 'LANNER_WORKER_DISCOVERY',
    roles: ['worker'],
    defaultFor: () => 'STATIC',
    defaultText: '`STATIC`',
    description:
      "How `LANNER_WORKER_CONTROLLERS` is read: `STATIC` (the endpoints as given), `DNS` (each host resolved to all its A/AAAA addresses, with the entry's port), `SRV` (each host is an SRV name such as `_grpc._tcp.controller.lanner.svc`, whose records give hosts and ports; the entry's port is ignored), `STORAGE` (the controllers that registered in internal storage, `LANNER_STORAGE_*`, with `LANNER_CONTROLLER_ADVERTISED_HOST`; entries that were not refreshed in time are ignored). DNS and STORAGE answers are refreshed every `LANNER_WORKER_DNS_REFRESH_S`.",
    secret: false,
    schema: oneOf(['STATIC', 'DNS', 'SRV', 'STORAGE'] as const),
  },
  {
    name: 'LANNER_WORKER_DNS_REFRESH_S',
    roles: ['worker'],
    defaultFor: () => '30',
    defaultText: '`30`',
    description: 'How often DNS or SRV discovery resolves the controllers again.',
    secret: false,
    schema: integer(1, 3600),
  },
  {
    name: 'LANNER_WORKER_TLS',
    roles: ['worker'],
    defaultFor: () => 'false',
    defaultText: '`false`',
    description:
      'Connect to the controllers with TLS (the server certificate is checked against `LANNER_WORKER_TLS_CA`, or the system roots when unset).',
    secret: false,
    schema: flag(),
  },
  {
    name: 'LANNER_WORKER_TLS_CA',
    roles: ['worker'],
    defaultFor: UNSET,
    defaultText: 'unset (system roots)',
    description: "PEM CA bundle that the controllers' certificates must chain to.",
    secret: false,
    schema: optionalFile(),
  },
  {
    name: 'LANNER_WORKER_TLS_CERT',
    roles: ['worker'],
    defaultFor: UNSET,
    defaultText: 'unset',
    description: 'PEM client certificate chain for mTLS (with `LANNER_WORKER_TLS_KEY`).',
    secret: false,
    schema: optionalFile(),
  },
  {
    name: 'LANNER_WORKER_TLS_KEY',
    roles: ['worker'],
    defaultFor: UNSET,
    defaultText: 'unset',
    description: 'PEM private key of `LANNER_WORKER_TLS_CERT`.',
    secret: false,
    schema: optionalFile(),
  },
  {
    name: 'LANNER_WORKER_TLS_AUTHORITY',
    roles: ['worker'],
    defaultFor: UNSET,
    defaultText: "unset (the controller's host name)",
    description:
      "Server name expected in the controllers' certificates, when it differs from the host dialled (e.g. connecting by IP address).",
    secret: false,
    schema: optionalText('expected a host name', /^[A-Za-z0-9.-]{1,253}$/),
  },
  {
    name: 'LANNER_STORAGE_TYPE',
    roles: ['api', 'controller', 'executor', 'worker', 'standalone'],
    defaultFor: () => 'local',
    defaultText: '`local`',
    description:
      "Where internal storage keeps the files flows pass between tasks (script `outputFiles`, `inputFiles` from a `kestra:///` URI): `local` (a folder, `LANNER_STORAGE_LOCAL_DIR`; every worker of a flow must see the same folder) or `s3` (an S3-compatible bucket, `LANNER_STORAGE_S3_*`; credentials from the AWS SDK's default chain: `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, `AWS_PROFILE`, an instance or pod role).",
    secret: false,
    schema: oneOf(['local', 's3'] as const),
  },
  {
    name: 'LANNER_STORAGE_LOCAL_DIR',
    roles: ['api', 'controller', 'executor', 'worker', 'standalone'],
    defaultFor: UNSET,
    defaultText:
      '`<LANNER_WORKER_DATA_DIR>/storage` (worker), `<LANNER_DATA_DIR>/storage` (standalone), `.lanner-api/storage` (api), `.lanner-controller/storage` (controller)',
    description:
      'The folder of `local` internal storage: `<tenant>/<namespace as folders>/<flow>/executions/...` below it. The api (FILE inputs, downloads) and the workers of a cluster must all see the same folder (and the controllers, when they register for `STORAGE` discovery).',
    secret: false,
    schema: optionalFile(),
  },
  {
    name: 'LANNER_STORAGE_S3_BUCKET',
    roles: ['api', 'controller', 'executor', 'worker', 'standalone'],
    defaultFor: UNSET,
    defaultText: 'unset (required when `LANNER_STORAGE_TYPE` is `s3`)',
    description: 'The bucket of `s3` internal storage; it must exist.',
    secret: false,
    schema: optionalText(
      'expected an S3 bucket name (3-63 lower-case letters, digits, ".", "-")',
      /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
    ),
  },
  {
    name: 'LANNER_STORAGE_S3_ENDPOINT',
    roles: ['api', 'controller', 'executor', 'worker', 'standalone'],
    defaultFor: UNSET,
    defaultText: "unset (AWS S3's own endpoint for the region)",
    description: 'The endpoint of an S3-compatible server (SeaweedFS, MinIO, a cloud gateway), e.g. `http://127.0.0.1:8333`.',
    secret: false,
    schema: optionalText('expected an http:// or https:// URL', /^https?:\/\/[^\s/]+(\/\S*)?$/),
  },
  {
    name: 'LANNER_STORAGE_S3_REGION',
    roles: ['api', 'controller', 'executor', 'worker', 'standalone'],
    defaultFor: () => 'us-east-1',
    defaultText: '`us-east-1`',
    description: "The bucket's region (any value for most S3-compatible servers).",
    secret: false,
    schema: text('expected a region name').refine((value) => /^[a-z0-9-]{1,64}$/.test(value), {
      error: 'expected a region name (lower-case letters, digits, "-")',
    }),
  },
  {
    name: 'LANNER_STORAGE_S3_PATH_STYLE',
    roles: ['api', 'controller', 'executor', 'worker', 'standalone'],
    defaultFor: () => 'false',
    defaultText: '`false`',
    description:
      'Path-style addressing (`<endpoint>/<bucket>/<key>`), which most S3-compatible servers need; AWS S3 itself takes `false`.',
    secret: false,
    schema: flag(),
  },
  {
    name: 'LANNER_FILE_INPUT_MAX_BYTES',
    roles: ['api', 'standalone'],
    defaultFor: () => String(1024 * 1024 * 1024),
    defaultText: '`1073741824` (1 GiB)',
    description:
      'The largest file one FILE input of a new execution may be; a larger upload is refused with 413 and nothing of it is kept.',
    secret: false,
    schema: integer(1, 1024 * 1024 * 1024 * 1024),
  },
  {
    name: 'LANNER_STORAGE_OUTPUT_INLINE_MAX_BYTES',
    roles: ['worker', 'standalone'],
    defaultFor: () => String(1024 * 1024),
    defaultText: '`1048576` (1 MiB)',
    description:
      "A `Return` value or an `OutputValues` value larger than this is stored in internal storage and the task's output holds its `kestra:///` URI instead (read it with `read()`).",
    secret: false,
    schema: integer(1, 1024 * 1024 * 1024),
  },
  {
    name: 'LANNER_STORAGE_RETENTION_DAYS',
    roles: ['api', 'standalone'],
    defaultFor: UNSET,
    defaultText: 'unset (files are kept until purged through the API)',
    description:
      "Days after its end an execution's files (inputs, output files, stored outputs) are purged from internal storage; the api checks every hour for executions past it.",
    secret: false,
    schema: optionalInteger(1, 36500),
  },
  {
    name: 'LANNER_STORAGE_S3_PREFIX',
    roles: ['api', 'controller', 'executor', 'worker', 'standalone'],
    defaultFor: UNSET,
    defaultText: "unset (the bucket's root)",
    description: 'A key prefix for every file, to share a bucket: `<prefix>/<tenant>/<namespace as folders>/...`.',
    secret: false,
    schema: optionalText('expected letters, digits, "/", ".", "_" or "-"', /^[A-Za-z0-9/._-]{1,256}$/),
  },
] as const satisfies readonly ConfigVariable[];

export type ConfigVariableName = (typeof CONFIG_VARIABLES)[number]['name'];

type VariableNamed<N extends ConfigVariableName> = Extract<(typeof CONFIG_VARIABLES)[number], { name: N }>;

/**
 * A variable's default for a role, parsed as that role's config holds it: code
 * that is given its settings without the environment (standalone, specs) takes
 * its defaults from here, so each default is written once, in this table.
 */
export function configDefault<N extends ConfigVariableName>(name: N, role: Role): z.output<VariableNamed<N>['schema']> {
  const variable: ConfigVariable | undefined = CONFIG_VARIABLES.find((candidate) => candidate.name === name);
  const value = variable?.defaultFor?.(role);
  if (variable === undefined || value === undefined) throw new Error(`${name} has no default for the ${role} role`);
  return variable.schema.parse(value) as z.output<VariableNamed<N>['schema']>;
}

export function variablesOf(role: Role): readonly ConfigVariable[] {
  return CONFIG_VARIABLES.filter((variable) => (variable.roles as readonly Role[]).includes(role));
}
