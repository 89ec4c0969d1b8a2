import { join, resolve } from 'node:path';
import type { StorageConfig } from '@lanner/storage';
import { z } from 'zod';
import { CONFIG_VARIABLES, ConfigVariableName, Endpoint, variablesOf } from './config-variables';
import { Role, ServerRole } from './roles';

type VariableNamed<N extends ConfigVariableName> = Extract<(typeof CONFIG_VARIABLES)[number], { name: N }>;

function schemaOf<N extends ConfigVariableName>(name: N): VariableNamed<N>['schema'] {
  const variable = CONFIG_VARIABLES.find((candidate) => candidate.name === name);
  if (!variable) throw new Error(`no config variable named ${name}`);
  return variable.schema as VariableNamed<N>['schema'];
}

const commonVariables = {
  LANNER_HTTP_PORT: schemaOf('LANNER_HTTP_PORT'),
  LANNER_HTTP_HOST: schemaOf('LANNER_HTTP_HOST'),
  LANNER_HTTP_HEADERS_TIMEOUT_MS: schemaOf('LANNER_HTTP_HEADERS_TIMEOUT_MS'),
  LANNER_HTTP_REQUEST_TIMEOUT_MS: schemaOf('LANNER_HTTP_REQUEST_TIMEOUT_MS'),
  LANNER_HTTP_KEEP_ALIVE_TIMEOUT_MS: schemaOf('LANNER_HTTP_KEEP_ALIVE_TIMEOUT_MS'),
  LANNER_HTTP_MAX_CONNECTIONS: schemaOf('LANNER_HTTP_MAX_CONNECTIONS'),
  LANNER_LOG_LEVEL: schemaOf('LANNER_LOG_LEVEL'),
  LANNER_READY_TIMEOUT_MS: schemaOf('LANNER_READY_TIMEOUT_MS'),
};

type CommonEnv = z.output<z.ZodObject<typeof commonVariables>>;

/** Internal storage's variables, shared by the roles that read and write files (api, controller, executor's system worker, worker, standalone). */
const storageVariables = {
  LANNER_STORAGE_TYPE: schemaOf('LANNER_STORAGE_TYPE'),
  LANNER_STORAGE_LOCAL_DIR: schemaOf('LANNER_STORAGE_LOCAL_DIR'),
  LANNER_STORAGE_S3_BUCKET: schemaOf('LANNER_STORAGE_S3_BUCKET'),
  LANNER_STORAGE_S3_ENDPOINT: schemaOf('LANNER_STORAGE_S3_ENDPOINT'),
  LANNER_STORAGE_S3_REGION: schemaOf('LANNER_STORAGE_S3_REGION'),
  LANNER_STORAGE_S3_PATH_STYLE: schemaOf('LANNER_STORAGE_S3_PATH_STYLE'),
  LANNER_STORAGE_S3_PREFIX: schemaOf('LANNER_STORAGE_S3_PREFIX'),
};

type StorageEnv = z.output<z.ZodObject<typeof storageVariables>>;

/** What the expressions of the roles that render flows read besides the execution (executor, standalone). */
const expressionVariables = {
  LANNER_EXPRESSION_ENV_PREFIX: schemaOf('LANNER_EXPRESSION_ENV_PREFIX'),
  LANNER_EXPRESSION_GLOBALS: schemaOf('LANNER_EXPRESSION_GLOBALS'),
};

/** Kestra's `envs` prefix and `globals`; the `envs` themselves are read by `expressionEnvs`. */
export interface ExpressionConfig {
  readonly envPrefix: string;
  readonly globals: Readonly<Record<string, unknown>>;
}

function expressionConfig(env: z.output<z.ZodObject<typeof expressionVariables>>): ExpressionConfig {
  return { envPrefix: env.LANNER_EXPRESSION_ENV_PREFIX, globals: env.LANNER_EXPRESSION_GLOBALS };
}

/**
 * Kestra's `envs`: the variables of `env` whose name starts with `prefix`, the
 * prefix left out and the rest in lower case. Nothing else of the environment.
 */
export function expressionEnvs(prefix: string, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const envs: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !name.startsWith(prefix) || name.length === prefix.length) continue;
    envs[name.slice(prefix.length).toLowerCase()] = value;
  }
  return envs;
}

/** `s3` needs a bucket: said against the bucket's variable. */
function requireBucket(env: StorageEnv, context: z.RefinementCtx): void {
  if (env.LANNER_STORAGE_TYPE === 's3' && env.LANNER_STORAGE_S3_BUCKET === undefined) {
    context.addIssue({
      code: 'custom',
      path: ['LANNER_STORAGE_S3_BUCKET'],
      message: 'required when LANNER_STORAGE_TYPE is s3, not set',
    });
  }
}

/** The store internal storage uses; `local` defaults to a folder under the role's data dir. */
function storageConfig(env: StorageEnv, dataDir: string): StorageConfig {
  if (env.LANNER_STORAGE_TYPE === 'local')
    return { kind: 'local', root: env.LANNER_STORAGE_LOCAL_DIR ?? resolve(dataDir, 'storage') };
  return {
    kind: 's3',
    bucket: env.LANNER_STORAGE_S3_BUCKET ?? '',
    region: env.LANNER_STORAGE_S3_REGION,
    forcePathStyle: env.LANNER_STORAGE_S3_PATH_STYLE,
    ...(env.LANNER_STORAGE_S3_ENDPOINT ? { endpoint: env.LANNER_STORAGE_S3_ENDPOINT } : {}),
    ...(env.LANNER_STORAGE_S3_PREFIX ? { prefix: env.LANNER_STORAGE_S3_PREFIX } : {}),
  };
}

function commonConfig(env: CommonEnv) {
  return {
    http: {
      host: env.LANNER_HTTP_HOST,
      port: env.LANNER_HTTP_PORT,
      limits: {
        headersTimeoutMs: env.LANNER_HTTP_HEADERS_TIMEOUT_MS,
        requestTimeoutMs: env.LANNER_HTTP_REQUEST_TIMEOUT_MS,
        keepAliveTimeoutMs: env.LANNER_HTTP_KEEP_ALIVE_TIMEOUT_MS,
        maxConnections: env.LANNER_HTTP_MAX_CONNECTIONS,
      },
    },
    logLevel: env.LANNER_LOG_LEVEL,
    readyTimeoutMs: env.LANNER_READY_TIMEOUT_MS,
  };
}

function hostPort(endpoint: Endpoint): string {
  return endpoint.host.includes(':') ? `[${endpoint.host}]:${endpoint.port}` : `${endpoint.host}:${endpoint.port}`;
}

const serverVariables = {
  ...commonVariables,
  DATABASE_URL: schemaOf('DATABASE_URL'),
  KAFKA_BROKERS: schemaOf('KAFKA_BROKERS'),
  LANNER_KAFKA_CLIENT_ID: schemaOf('LANNER_KAFKA_CLIENT_ID'),
  LANNER_KAFKA_NAMESPACE: schemaOf('LANNER_KAFKA_NAMESPACE'),
};

/** The lifetimes and lockout of users' logins (api, standalone). */
const userLoginVariables = {
  LANNER_USER_ACCESS_TOKEN_TTL_S: schemaOf('LANNER_USER_ACCESS_TOKEN_TTL_S'),
  LANNER_USER_REFRESH_TOKEN_TTL_S: schemaOf('LANNER_USER_REFRESH_TOKEN_TTL_S'),
  LANNER_USER_MAX_FAILED_LOGINS: schemaOf('LANNER_USER_MAX_FAILED_LOGINS'),
  LANNER_USER_LOCKOUT_S: schemaOf('LANNER_USER_LOCKOUT_S'),
};

function userLoginConfig(env: z.output<z.ZodObject<typeof userLoginVariables>>) {
  return {
    accessTokenTtlS: env.LANNER_USER_ACCESS_TOKEN_TTL_S,
    refreshTokenTtlS: env.LANNER_USER_REFRESH_TOKEN_TTL_S,
    maxFailedLogins: env.LANNER_USER_MAX_FAILED_LOGINS,
    lockoutS: env.LANNER_USER_LOCKOUT_S,
  };
}

type ServerEnv = z.output<z.ZodObject<typeof serverVariables>>;

function serverConfig<R extends ServerRole>(role: R, env: ServerEnv) {
  return {
    role,
    ...commonConfig(env),
    databaseUrl: env.DATABASE_URL,
    kafka: {
      brokers: env.KAFKA_BROKERS.map(hostPort),
      clientId: env.LANNER_KAFKA_CLIENT_ID,
      namespace: env.LANNER_KAFKA_NAMESPACE ?? '',
    },
  };
}

function serverRoleSchema<R extends ServerRole>(role: R) {
  return z.object(serverVariables).transform((env) => serverConfig(role, env));
}

/** One schema per role, over the environment (after defaults), producing that role's typed config. */
export const CONFIG_SCHEMAS = {
  api: z
    .object({
      ...serverVariables,
      LANNER_ADMIN_TOKEN: schemaOf('LANNER_ADMIN_TOKEN'),
      LANNER_USER_JWT_SIGNING_KEY: schemaOf('LANNER_USER_JWT_SIGNING_KEY'),
      ...userLoginVariables,
      LANNER_SETUP_FILE: schemaOf('LANNER_SETUP_FILE'),
      LANNER_API_EMBEDDED_INDEXER: schemaOf('LANNER_API_EMBEDDED_INDEXER'),
      LANNER_FILE_INPUT_MAX_BYTES: schemaOf('LANNER_FILE_INPUT_MAX_BYTES'),
      LANNER_STORAGE_RETENTION_DAYS: schemaOf('LANNER_STORAGE_RETENTION_DAYS'),
      ...storageVariables,
    })
    .superRefine(requireBucket)
    .transform((env) => ({
      ...serverConfig('api', env),
      storageRetentionDays: env.LANNER_STORAGE_RETENTION_DAYS,
      adminToken: env.LANNER_ADMIN_TOKEN,
      userSigningKey: env.LANNER_USER_JWT_SIGNING_KEY,
      userLogin: userLoginConfig(env),
      setupFile: env.LANNER_SETUP_FILE,
      embeddedIndexer: env.LANNER_API_EMBEDDED_INDEXER,
      storage: storageConfig(env, '.lanner-api'),
      fileInputMaxBytes: env.LANNER_FILE_INPUT_MAX_BYTES,
    })),
  executor: z
    .object({
      ...serverVariables,
      LANNER_TIMER_INTERVAL_MS: schemaOf('LANNER_TIMER_INTERVAL_MS'),
      LANNER_SERVICE_INSTANCE_RETENTION_S: schemaOf('LANNER_SERVICE_INSTANCE_RETENTION_S'),
      ...expressionVariables,
      ...storageVariables,
    })
    .transform((env) => ({
      ...serverConfig('executor', env),
      timerIntervalMs: env.LANNER_TIMER_INTERVAL_MS,
      serviceInstanceRetentionS: env.LANNER_SERVICE_INSTANCE_RETENTION_S,
      expression: expressionConfig(env),
      /** The system worker's internal storage (its storage tasks and purges). */
      storage: storageConfig(env, '.lanner-executor'),
    })),
  controller: z
    .object({
      ...serverVariables,
      LANNER_GRPC_HOST: schemaOf('LANNER_GRPC_HOST'),
      LANNER_GRPC_PORT: schemaOf('LANNER_GRPC_PORT'),
      LANNER_ALLOW_ANONYMOUS_WORKERS: schemaOf('LANNER_ALLOW_ANONYMOUS_WORKERS'),
      LANNER_JWT_SIGNING_KEY: schemaOf('LANNER_JWT_SIGNING_KEY'),
      LANNER_WORKER_ACCESS_TOKEN_TTL_S: schemaOf('LANNER_WORKER_ACCESS_TOKEN_TTL_S'),
      LANNER_WORKER_REFRESH_TOKEN_TTL_S: schemaOf('LANNER_WORKER_REFRESH_TOKEN_TTL_S'),
      LANNER_GRPC_TLS_CERT: schemaOf('LANNER_GRPC_TLS_CERT'),
      LANNER_GRPC_TLS_KEY: schemaOf('LANNER_GRPC_TLS_KEY'),
      LANNER_GRPC_TLS_CA: schemaOf('LANNER_GRPC_TLS_CA'),
      LANNER_GRPC_TLS_CLIENT_AUTH: schemaOf('LANNER_GRPC_TLS_CLIENT_AUTH'),
      LANNER_STREAM_RECYCLE_AGE_S: schemaOf('LANNER_STREAM_RECYCLE_AGE_S'),
      LANNER_LEDGER_RECONCILE_INTERVAL_MS: schemaOf('LANNER_LEDGER_RECONCILE_INTERVAL_MS'),
      LANNER_WORKER_ADOPTION_GRACE_MS: schemaOf('LANNER_WORKER_ADOPTION_GRACE_MS'),
      LANNER_WORKER_HEARTBEAT_INTERVAL_MS: schemaOf('LANNER_WORKER_HEARTBEAT_INTERVAL_MS'),
      LANNER_ANONYMOUS_ADOPTION_WAIT_MS: schemaOf('LANNER_ANONYMOUS_ADOPTION_WAIT_MS'),
      LANNER_ANONYMOUS_ADOPTION_RECHECK_MS: schemaOf('LANNER_ANONYMOUS_ADOPTION_RECHECK_MS'),
      LANNER_WORKER_REGISTRY_WRITE_INTERVAL_MS: schemaOf('LANNER_WORKER_REGISTRY_WRITE_INTERVAL_MS'),
      LANNER_WORKER_REGISTRY_SCAN_MS: schemaOf('LANNER_WORKER_REGISTRY_SCAN_MS'),
      LANNER_WORKER_REGISTRY_FULL_CHECK_MS: schemaOf('LANNER_WORKER_REGISTRY_FULL_CHECK_MS'),
      LANNER_HEAP_GROWING_PERCENT: schemaOf('LANNER_HEAP_GROWING_PERCENT'),
      LANNER_CONTROLLER_ADVERTISED_HOST: schemaOf('LANNER_CONTROLLER_ADVERTISED_HOST'),
      LANNER_CONTROLLER_REGISTRATION_REFRESH_S: schemaOf('LANNER_CONTROLLER_REGISTRATION_REFRESH_S'),
      ...storageVariables,
    })
    .superRefine(requireBucket)
    .transform((env) => ({
      ...serverConfig('controller', env),
      registration: env.LANNER_CONTROLLER_ADVERTISED_HOST
        ? {
            advertisedHost: env.LANNER_CONTROLLER_ADVERTISED_HOST,
            refreshS: env.LANNER_CONTROLLER_REGISTRATION_REFRESH_S,
            storage: storageConfig(env, '.lanner-controller'),
          }
        : undefined,
      grpc: {
        host: env.LANNER_GRPC_HOST,
        port: env.LANNER_GRPC_PORT,
        tls: {
          certFile: env.LANNER_GRPC_TLS_CERT,
          keyFile: env.LANNER_GRPC_TLS_KEY,
          caFile: env.LANNER_GRPC_TLS_CA,
          clientAuth: env.LANNER_GRPC_TLS_CLIENT_AUTH,
        },
      },
      allowAnonymousWorkers: env.LANNER_ALLOW_ANONYMOUS_WORKERS,
      workerAuth: {
        signingKey: env.LANNER_JWT_SIGNING_KEY,
        accessTokenTtlS: env.LANNER_WORKER_ACCESS_TOKEN_TTL_S,
        refreshTokenTtlS: env.LANNER_WORKER_REFRESH_TOKEN_TTL_S,
      },
      streamRecycleAgeS: env.LANNER_STREAM_RECYCLE_AGE_S,
      ledgerReconcileIntervalMs: env.LANNER_LEDGER_RECONCILE_INTERVAL_MS,
      adoptionGraceMs: env.LANNER_WORKER_ADOPTION_GRACE_MS,
      timings: {
        heartbeatIntervalMs: env.LANNER_WORKER_HEARTBEAT_INTERVAL_MS,
        anonymousAdoptionWaitMs: env.LANNER_ANONYMOUS_ADOPTION_WAIT_MS,
        anonymousAdoptionRecheckMs: env.LANNER_ANONYMOUS_ADOPTION_RECHECK_MS,
        registryWriteIntervalMs: env.LANNER_WORKER_REGISTRY_WRITE_INTERVAL_MS,
        registryScanMs: env.LANNER_WORKER_REGISTRY_SCAN_MS,
        registryFullCheckMs: env.LANNER_WORKER_REGISTRY_FULL_CHECK_MS,
      },
      heapGrowingPercent: env.LANNER_HEAP_GROWING_PERCENT,
    })),
  scheduler: z
    .object({
      ...serverVariables,
      LANNER_SCHEDULER_BACKFILL_PER_SECOND: schemaOf('LANNER_SCHEDULER_BACKFILL_PER_SECOND'),
      LANNER_SCHEDULER_AHEAD_MS: schemaOf('LANNER_SCHEDULER_AHEAD_MS'),
    })
    .transform((env) => ({
      ...serverConfig('scheduler', env),
      backfillPerSecond: env.LANNER_SCHEDULER_BACKFILL_PER_SECOND,
      schedulerAheadMs: env.LANNER_SCHEDULER_AHEAD_MS,
    })),
  indexer: serverRoleSchema('indexer'),
  worker: z
    .object({
      ...commonVariables,
      LANNER_WORKER_CONTROLLERS: schemaOf('LANNER_WORKER_CONTROLLERS'),
      LANNER_WORKER_SLOTS: schemaOf('LANNER_WORKER_SLOTS'),
      LANNER_WORKER_STARTED_REPORT_DELAY_MS: schemaOf('LANNER_WORKER_STARTED_REPORT_DELAY_MS'),
      LANNER_WORKER_NAME: schemaOf('LANNER_WORKER_NAME'),
      LANNER_WORKER_DATA_DIR: schemaOf('LANNER_WORKER_DATA_DIR'),
      LANNER_WORKER_REGISTRATION_TOKEN: schemaOf('LANNER_WORKER_REGISTRATION_TOKEN'),
      LANNER_WORKER_CREDENTIALS_PATH: schemaOf('LANNER_WORKER_CREDENTIALS_PATH'),
      LANNER_WORKER_REFRESH_BUFFER_S: schemaOf('LANNER_WORKER_REFRESH_BUFFER_S'),
      LANNER_WORKER_DISCOVERY: schemaOf('LANNER_WORKER_DISCOVERY'),
      LANNER_WORKER_DNS_REFRESH_S: schemaOf('LANNER_WORKER_DNS_REFRESH_S'),
      LANNER_WORKER_TLS: schemaOf('LANNER_WORKER_TLS'),
      LANNER_WORKER_TLS_CA: schemaOf('LANNER_WORKER_TLS_CA'),
      LANNER_WORKER_TLS_CERT: schemaOf('LANNER_WORKER_TLS_CERT'),
      LANNER_WORKER_TLS_KEY: schemaOf('LANNER_WORKER_TLS_KEY'),
      LANNER_WORKER_TLS_AUTHORITY: schemaOf('LANNER_WORKER_TLS_AUTHORITY'),
      LANNER_STORAGE_OUTPUT_INLINE_MAX_BYTES: schemaOf('LANNER_STORAGE_OUTPUT_INLINE_MAX_BYTES'),
      ...storageVariables,
    })
    .superRefine(requireBucket)
    .superRefine((env, context) => {
      if (env.LANNER_WORKER_DISCOVERY !== 'STORAGE' && env.LANNER_WORKER_CONTROLLERS === undefined) {
        context.addIssue({ code: 'custom', path: ['LANNER_WORKER_CONTROLLERS'], message: 'required, not set' });
      }
    })
    .transform((env) => ({
      role: 'worker' as const,
      ...commonConfig(env),
      controllers: env.LANNER_WORKER_CONTROLLERS ?? [],
      slots: env.LANNER_WORKER_SLOTS,
      startedReportDelayMs: env.LANNER_WORKER_STARTED_REPORT_DELAY_MS,
      name: env.LANNER_WORKER_NAME,
      dataDir: env.LANNER_WORKER_DATA_DIR,
      storage: storageConfig(env, env.LANNER_WORKER_DATA_DIR),
      outputInlineMaxBytes: env.LANNER_STORAGE_OUTPUT_INLINE_MAX_BYTES,
      auth: {
        registrationToken: env.LANNER_WORKER_REGISTRATION_TOKEN,
        credentialsPath: env.LANNER_WORKER_CREDENTIALS_PATH ?? join(env.LANNER_WORKER_DATA_DIR, 'credentials.json'),
        refreshBufferS: env.LANNER_WORKER_REFRESH_BUFFER_S,
      },
      discovery: { mode: env.LANNER_WORKER_DISCOVERY, refreshS: env.LANNER_WORKER_DNS_REFRESH_S },
      tls: {
        enabled: env.LANNER_WORKER_TLS,
        caFile: env.LANNER_WORKER_TLS_CA,
        certFile: env.LANNER_WORKER_TLS_CERT,
        keyFile: env.LANNER_WORKER_TLS_KEY,
        authority: env.LANNER_WORKER_TLS_AUTHORITY,
      },
    })),
  standalone: z
    .object({
      ...commonVariables,
      LANNER_DATA_DIR: schemaOf('LANNER_DATA_DIR'),
      LANNER_EMBEDDED_DB_PORT: schemaOf('LANNER_EMBEDDED_DB_PORT'),
      LANNER_TIMER_INTERVAL_MS: schemaOf('LANNER_TIMER_INTERVAL_MS'),
      LANNER_SERVICE_INSTANCE_RETENTION_S: schemaOf('LANNER_SERVICE_INSTANCE_RETENTION_S'),
      LANNER_SCHEDULER_BACKFILL_PER_SECOND: schemaOf('LANNER_SCHEDULER_BACKFILL_PER_SECOND'),
      LANNER_SCHEDULER_AHEAD_MS: schemaOf('LANNER_SCHEDULER_AHEAD_MS'),
      LANNER_GRPC_HOST: schemaOf('LANNER_GRPC_HOST'),
      LANNER_GRPC_PORT: schemaOf('LANNER_GRPC_PORT'),
      LANNER_WORKER_SLOTS: schemaOf('LANNER_WORKER_SLOTS'),
      LANNER_WORKER_ACCESS_TOKEN_TTL_S: schemaOf('LANNER_WORKER_ACCESS_TOKEN_TTL_S'),
      LANNER_WORKER_REFRESH_TOKEN_TTL_S: schemaOf('LANNER_WORKER_REFRESH_TOKEN_TTL_S'),
      ...userLoginVariables,
      LANNER_SETUP_FILE: schemaOf('LANNER_SETUP_FILE'),
      LANNER_FILE_INPUT_MAX_BYTES: schemaOf('LANNER_FILE_INPUT_MAX_BYTES'),
      LANNER_STORAGE_OUTPUT_INLINE_MAX_BYTES: schemaOf('LANNER_STORAGE_OUTPUT_INLINE_MAX_BYTES'),
      LANNER_STORAGE_RETENTION_DAYS: schemaOf('LANNER_STORAGE_RETENTION_DAYS'),
      ...storageVariables,
      ...expressionVariables,
    })
    .superRefine(requireBucket)
    .transform((env) => ({
      role: 'standalone' as const,
      expression: expressionConfig(env),
      userLogin: userLoginConfig(env),
      storageRetentionDays: env.LANNER_STORAGE_RETENTION_DAYS,
      outputInlineMaxBytes: env.LANNER_STORAGE_OUTPUT_INLINE_MAX_BYTES,
      fileInputMaxBytes: env.LANNER_FILE_INPUT_MAX_BYTES,
      setupFile: env.LANNER_SETUP_FILE,
      workerTokenTtl: {
        accessTokenTtlS: env.LANNER_WORKER_ACCESS_TOKEN_TTL_S,
        refreshTokenTtlS: env.LANNER_WORKER_REFRESH_TOKEN_TTL_S,
      },
      ...commonConfig(env),
      dataDir: env.LANNER_DATA_DIR,
      storage: storageConfig(env, env.LANNER_DATA_DIR),
      embeddedDatabasePort: env.LANNER_EMBEDDED_DB_PORT,
      timerIntervalMs: env.LANNER_TIMER_INTERVAL_MS,
      serviceInstanceRetentionS: env.LANNER_SERVICE_INSTANCE_RETENTION_S,
      backfillPerSecond: env.LANNER_SCHEDULER_BACKFILL_PER_SECOND,
      schedulerAheadMs: env.LANNER_SCHEDULER_AHEAD_MS,
      grpc: { host: env.LANNER_GRPC_HOST, port: env.LANNER_GRPC_PORT },
      workerSlots: env.LANNER_WORKER_SLOTS,
    })),
} satisfies Record<Role, z.ZodType<{ role: Role }>>;

export type RoleConfig<R extends Role> = z.output<(typeof CONFIG_SCHEMAS)[R]>;
export type ServerRoleConfig = RoleConfig<ServerRole>;
export type WorkerConfig = RoleConfig<'worker'>;
export type StandaloneConfig = RoleConfig<'standalone'>;
/** What every role's config has: HTTP, logging and readiness settings. */
export type CommonConfig = ReturnType<typeof commonConfig> & { role: Role };

/**
 * A role refused to start because of what the operator configured (a bad setup file, an
 * unreadable certificate): runRole prints one line per problem and exits with
 * EXIT_BAD_CONFIG, like a bad variable, without a stack trace.
 */
export class StartupRefused extends Error {
  constructor(
    message: string,
    readonly problems: readonly string[],
  ) {
    super(message);
    this.name = 'StartupRefused';
  }
}

/** The process must not start: one line per bad variable, never a secret's value. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

function valueOf(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  // An empty value is treated as unset: orchestrators often render `NAME=` for an absent setting.
  return value === undefined || value.trim() === '' ? undefined : value;
}

export function loadRoleConfig<R extends Role>(role: R, env: NodeJS.ProcessEnv = process.env): RoleConfig<R> {
  const variables = variablesOf(role);
  const raw: Record<string, string | undefined> = {};
  for (const variable of variables) {
    raw[variable.name] = valueOf(env, variable.name) ?? variable.defaultFor?.(role);
  }
  const schema: z.ZodType<RoleConfig<R>> = CONFIG_SCHEMAS[role] as unknown as z.ZodType<RoleConfig<R>>;
  const result = schema.safeParse(raw);
  if (result.success) return result.data;

  const messages = new Map<string, string>();
  for (const issue of result.error.issues) {
    const name = String(issue.path[0]);
    if (!messages.has(name)) messages.set(name, issue.message);
  }
  const problems = variables
    .filter((variable) => messages.has(variable.name))
    .map((variable) => {
      const value = raw[variable.name];
      // An optional variable left unset is '' here: nothing was given, so nothing is quoted.
      const shown = variable.secret || value === undefined || value === '' ? '' : `, got ${JSON.stringify(value)}`;
      return `${variable.name}: ${messages.get(variable.name)}${shown}`;
    });
  throw new ConfigError(problems);
}
