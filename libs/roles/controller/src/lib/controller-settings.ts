import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Injectable, Optional } from '@nestjs/common';
import { configDefault, ServiceInstanceIdentity, type CommonConfig } from '@lanner/runtime';
import type { StorageConfig } from '@lanner/storage';

/** TLS of the gRPC server; absent files mean plaintext. */
export interface ControllerTlsSettings {
  readonly certFile?: string;
  readonly keyFile?: string;
  /** CA bundle client certificates must chain to (mTLS). */
  readonly caFile?: string;
  readonly clientAuth: 'NONE' | 'OPTIONAL' | 'REQUIRE';
}

/** Worker credentials: the JWT signing key (>= 32 bytes, secret) and token lifetimes. */
export interface WorkerAuthSettings {
  readonly signingKey: string;
  readonly accessTokenTtlS: number;
  readonly refreshTokenTtlS: number;
}

/** What the controller role needs beyond its adapters. */
export interface ControllerSettings {
  /** Where the gRPC server workers connect to listens; port 0 picks a free port (logged at start). */
  readonly grpc: { readonly host: string; readonly port: number; readonly tls?: ControllerTlsSettings };
  /** Workers without a registration token join the `default` group only when true. */
  readonly allowAnonymousWorkers: boolean;
  readonly workerAuth: WorkerAuthSettings;
  /** Streams older than this (plus jitter) are recycled; 0 never. */
  readonly streamRecycleAgeS: number;
  /** How often held jobs are checked against the running-job store; DEFAULT_LEDGER_RECONCILE_INTERVAL_MS when unset. */
  readonly ledgerReconcileIntervalMs?: number;
  /**
   * After a stream ends, how long its held jobs wait for their worker to reconnect and adopt them before they
   * are reported lost (LANNER_WORKER_ADOPTION_GRACE_MS); DEFAULT_WORKER_ADOPTION_GRACE_MS when unset.
   */
  readonly adoptionGraceMs?: number;
  /** Heartbeat, anonymous adoption wait and registry cadences; each unset one is the variable table's default. */
  readonly timings?: Partial<ControllerTimings>;
  /** Registration in internal storage for workers' STORAGE discovery; none: the controller does not register. */
  readonly registration?: ControllerRegistrationSettings;
}

/** LANNER_CONTROLLER_ADVERTISED_HOST and LANNER_CONTROLLER_REGISTRATION_REFRESH_S, with the store to write to. */
export interface ControllerRegistrationSettings {
  readonly advertisedHost: string;
  readonly refreshS: number;
  readonly storage: StorageConfig;
}

// The defaults of settings given without the environment (standalone, specs): the variable table's, written only there.
/** Access tokens live 5 minutes, refresh tokens 7 days. */
export const DEFAULT_WORKER_TOKEN_TTL = {
  accessTokenTtlS: configDefault('LANNER_WORKER_ACCESS_TOKEN_TTL_S', 'controller'),
  refreshTokenTtlS: configDefault('LANNER_WORKER_REFRESH_TOKEN_TTL_S', 'controller'),
} as const;
/** Streams recycle after 30 minutes. */
export const DEFAULT_STREAM_RECYCLE_AGE_S = configDefault('LANNER_STREAM_RECYCLE_AGE_S', 'controller');
/** Controllers reconcile their ledgers with the running-job store every 30 s. */
export const DEFAULT_LEDGER_RECONCILE_INTERVAL_MS = configDefault('LANNER_LEDGER_RECONCILE_INTERVAL_MS', 'controller');
/** The jobs of an ended stream wait 10 s for adoption. */
export const DEFAULT_WORKER_ADOPTION_GRACE_MS = configDefault('LANNER_WORKER_ADOPTION_GRACE_MS', 'controller');

/** The controller's cadences, each from its variable (docs/CONFIGURATION.md). */
export interface ControllerTimings {
  /** LANNER_WORKER_HEARTBEAT_INTERVAL_MS: sent in Welcome; silence and missed heartbeats count in it. */
  readonly heartbeatIntervalMs: number;
  /** LANNER_ANONYMOUS_ADOPTION_WAIT_MS */
  readonly anonymousAdoptionWaitMs: number;
  /** LANNER_ANONYMOUS_ADOPTION_RECHECK_MS */
  readonly anonymousAdoptionRecheckMs: number;
  /** LANNER_WORKER_REGISTRY_WRITE_INTERVAL_MS */
  readonly registryWriteIntervalMs: number;
  /** LANNER_WORKER_REGISTRY_SCAN_MS */
  readonly registryScanMs: number;
  /** LANNER_WORKER_REGISTRY_FULL_CHECK_MS */
  readonly registryFullCheckMs: number;
}

/** The table's defaults of the cadences. */
export const DEFAULT_CONTROLLER_TIMINGS: ControllerTimings = {
  heartbeatIntervalMs: configDefault('LANNER_WORKER_HEARTBEAT_INTERVAL_MS', 'controller'),
  anonymousAdoptionWaitMs: configDefault('LANNER_ANONYMOUS_ADOPTION_WAIT_MS', 'controller'),
  anonymousAdoptionRecheckMs: configDefault('LANNER_ANONYMOUS_ADOPTION_RECHECK_MS', 'controller'),
  registryWriteIntervalMs: configDefault('LANNER_WORKER_REGISTRY_WRITE_INTERVAL_MS', 'controller'),
  registryScanMs: configDefault('LANNER_WORKER_REGISTRY_SCAN_MS', 'controller'),
  registryFullCheckMs: configDefault('LANNER_WORKER_REGISTRY_FULL_CHECK_MS', 'controller'),
};

/** The cadences of these settings: the ones given, the table's defaults for the others. */
export function controllerTimings(settings: Pick<ControllerSettings, 'timings'>): ControllerTimings {
  const given = Object.entries(settings.timings ?? {}).filter(([, value]) => value !== undefined);
  return { ...DEFAULT_CONTROLLER_TIMINGS, ...Object.fromEntries(given) };
}

export const CONTROLLER_SETTINGS = Symbol('lanner.controller-settings');

/**
 * This controller process: running jobs are recorded under its id, and its broadcast group is its own.
 * It is the process's service instance id, so the liveness coordinator can tell which running jobs
 * a dead controller left behind.
 */
@Injectable()
export class ControllerIdentity {
  readonly id: string;

  constructor(@Optional() instance?: ServiceInstanceIdentity) {
    this.id = instance?.id ?? `controller-${hostname()}-${randomUUID().slice(0, 8)}`;
  }
}

interface GrpcEndpointConfig {
  readonly grpc: { readonly host: string; readonly port: number; readonly tls?: ControllerTlsSettings };
  readonly workerAuth: WorkerAuthSettings;
  readonly streamRecycleAgeS: number;
  readonly ledgerReconcileIntervalMs?: number;
  readonly adoptionGraceMs?: number;
  readonly timings?: Partial<ControllerTimings>;
  readonly registration?: ControllerRegistrationSettings;
}

function isControllerConfig(config: CommonConfig): config is CommonConfig & GrpcEndpointConfig {
  return config.role === 'controller' && 'grpc' in config && 'workerAuth' in config;
}

/**
 * Reads the settings from the controller role's own variables. Standalone
 * passes its settings explicitly (loopback endpoint, anonymous local worker,
 * a signing key kept under its data dir).
 */
export function controllerSettingsFrom(config: CommonConfig): ControllerSettings {
  if (!isControllerConfig(config)) {
    throw new Error(`the controller role reads its settings from a 'controller' process config, not a '${config.role}' one`);
  }
  const allowAnonymousWorkers =
    'allowAnonymousWorkers' in config && (config as { allowAnonymousWorkers: unknown }).allowAnonymousWorkers === true;
  return {
    grpc: { host: config.grpc.host, port: config.grpc.port, tls: config.grpc.tls },
    allowAnonymousWorkers,
    workerAuth: config.workerAuth,
    streamRecycleAgeS: config.streamRecycleAgeS,
    ledgerReconcileIntervalMs: config.ledgerReconcileIntervalMs ?? DEFAULT_LEDGER_RECONCILE_INTERVAL_MS,
    adoptionGraceMs: config.adoptionGraceMs ?? DEFAULT_WORKER_ADOPTION_GRACE_MS,
    timings: controllerTimings(config),
    registration: config.registration,
  };
}
