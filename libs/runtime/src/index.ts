export { ROLES, SERVER_ROLES, isRole } from './config/roles';
export type { Role, ServerRole } from './config/roles';
export { CONFIG_VARIABLES, configDefault, DEFAULT_HTTP_PORTS, LOG_LEVELS } from './config/config-variables';
export type { ConfigVariable, Endpoint, LogLevel } from './config/config-variables';
export { CONFIG_SCHEMAS, ConfigError, expressionEnvs, loadRoleConfig, StartupRefused } from './config/load-config';
export type {
  CommonConfig,
  ExpressionConfig,
  RoleConfig,
  ServerRoleConfig,
  StandaloneConfig,
  WorkerConfig,
} from './config/load-config';
export { renderConfigurationDoc } from './config/configuration-doc';
export { createProcessLogger } from './logging/process-logger';
export { ReadinessChecks, DependencyDownError } from './health/readiness-checks';
export type { DependencyCheck } from './health/readiness-checks';
export { AdapterLeases, AdapterPool } from './adapters/adapter-pool';
export type { AdapterLease, ManagedAdapter } from './adapters/adapter-pool';
export { queueProvider, repositoryProvider, serverRoleSettings, appliedMigrationNames } from './adapters/server-adapters';
export type {
  DatabaseSettings,
  QueueAdapterLibrary,
  QueueSettings,
  RepositoryAdapterLibrary,
  ServerRoleSettings,
} from './adapters/server-adapters';
export { RuntimeModule } from './runtime.module';
export { MetricsRegistry } from './metrics/metrics-registry';
export { PROCESS_LOGGER, QUEUE, REPOSITORIES, RUNTIME_CONFIG } from './runtime.tokens';
export { EXIT_BAD_CONFIG, runRole } from './run-role';
export type { RoleComposition, RoleProcess } from './run-role';
export { startEmbeddedServices } from './standalone/embedded-services';
export type { EmbeddedServices } from './standalone/embedded-services';
export {
  initialisePostgresCluster,
  postgresUserIds,
  reachableByOtherUsers,
  runnablePostgresBinaries,
  runningAsRoot,
} from './standalone/postgres-binaries';
export type { PostgresBinaries, PostgresUserIds } from './standalone/postgres-binaries';
export { DEFAULT_LIVENESS_TIMINGS, LIVENESS_TIMINGS, ServiceInstanceHeartbeat, ServiceInstanceIdentity } from './liveness';
export type { LivenessTimings, ServiceInstanceRole, ServiceInstanceStore } from './liveness';
export { errorSummary } from './logging/error-summary';
export { MAINTENANCE_REFRESH_MS, MaintenanceMode } from './maintenance/maintenance-mode';
export type { MaintenanceModeOptions, MaintenanceStore } from './maintenance/maintenance-mode';
