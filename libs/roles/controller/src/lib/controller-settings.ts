import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { CommonConfig } from '@lanner/runtime';

/** What the controller role needs beyond its adapters. */
export interface ControllerSettings {
  /** Where the gRPC server workers connect to listens; port 0 picks a free port (logged at start). */
  readonly grpc: { readonly host: string; readonly port: number };
  /** Workers without a registration token join the `default` group only when true. */
  readonly allowAnonymousWorkers: boolean;
}

export const CONTROLLER_SETTINGS = Symbol('lanner.controller-settings');

/** This controller process: running jobs are recorded under its id, and its broadcast group is its own. */
export class ControllerIdentity {
  readonly id = `controller-${hostname()}-${randomUUID().slice(0, 8)}`;
}

interface GrpcEndpointConfig {
  readonly grpc: { readonly host: string; readonly port: number };
}

function hasGrpcEndpoint(config: CommonConfig): config is CommonConfig & GrpcEndpointConfig {
  return 'grpc' in config;
}

/**
 * Reads the settings from the process's config: the controller role's own
 * variables, or standalone's, where anonymous workers are allowed (WORKERS.md:
 * standalone's local worker has no token).
 */
export function controllerSettingsFrom(config: CommonConfig): ControllerSettings {
  if (!hasGrpcEndpoint(config)) {
    throw new Error(`the controller role cannot run in a '${config.role}' process: it has no gRPC endpoint configured`);
  }
  const allowAnonymousWorkers =
    config.role === 'standalone' ||
    ('allowAnonymousWorkers' in config && (config as { allowAnonymousWorkers: unknown }).allowAnonymousWorkers === true);
  return { grpc: { host: config.grpc.host, port: config.grpc.port }, allowAnonymousWorkers };
}
