// @lanner/repository: the Prisma schema, migrations and repositories.
// Everything returned is an @lanner/model record; no Prisma type leaves this library.
export { openRepositories, type Repositories, type RepositoryOptions } from './repositories';
export {
  applyMigrations,
  createMigration,
  type AppliedMigrations,
  type CreatedMigration,
  type MigrationLocation,
} from './migrations';
export { DATABASE_URL_VARIABLE, redactDatabaseUrl } from './database-url';
export * from './errors';
export { FlowRepository, flowKey } from './repositories/flow.repository';
export {
  ExecutionRepository,
  type ExecutionFilesOwner,
  type ConcurrencyAdmission,
  type ConcurrencyRelease,
  type CreatedExecution,
  type ExecutorStateRecord,
  type ExecutorStateWrite,
  type ExecutorTaskRunWrite,
  type ExecutorGroupWriteItem,
  type ExecutorGroupWriteOutcome,
} from './repositories/execution.repository';
export { TimerRepository, type ExecutionTimerRecord } from './repositories/timer.repository';
export {
  TriggerRepository,
  type NewBackfill,
  type TriggerAdvance,
  type TriggerAdvanceOutcome,
} from './repositories/trigger.repository';
export {
  FLOW_TRIGGER_EVALUATION_RETENTION_MS,
  FlowTriggerEvaluationRepository,
  type FlowTriggerDecision,
  type FlowTriggerOutcome,
  type ListeningFlowTrigger,
} from './repositories/flow-trigger-evaluation.repository';
export { WorkerQueueRepository } from './repositories/worker-queue.repository';
export { WorkerGroupRepository } from './repositories/worker-group.repository';
export { RegistrationTokenRepository, type RegistrationTokenMatch } from './repositories/registration-token.repository';
export {
  WorkerCredentialRepository,
  type NewRefreshTokenRecord,
  type NewWorkerRecord,
  type PresentedRefreshToken,
  type RefreshTokenConsumptionRecord,
  type RefreshTokenRecord,
  type WorkerRecord,
} from './repositories/worker-credential.repository';
export { RunningJobStore } from './repositories/running-job.store';
export { BatchedCalls } from './batched-calls';
export { ServiceInstanceRepository } from './repositories/service-instance.repository';
export {
  CONNECTED_WORKER_REFRESH_MS,
  CONNECTED_WORKER_STALE_MS,
  ConnectedWorkerRepository,
} from './repositories/connected-worker.repository';
export {
  LogRepository,
  LOG_LEVELS,
  levelsFrom,
  type LogLineLevel,
  type NewLogLine,
  type LogLineBatch,
  type LogLineRecord,
  type LogQuery,
} from './repositories/log.repository';
export {
  MetricRepository,
  type MetricKind,
  type MetricPointBatch,
  type NewMetricPoint,
  type MetricPointRecord,
} from './repositories/metric.repository';
export {
  ApiTokenRepository,
  type ApiTokenRecord,
  type ApiTokenMatch,
  type ApiTokenGrant,
  type ApiTokenRoleName,
  type NewApiToken,
} from './repositories/api-token.repository';
export {
  UserRepository,
  type NewUser,
  type StoredUserRefreshToken,
  type UserChange,
  type UserRecord,
  type UserRefreshConsumption,
  type UserWithPassword,
} from './repositories/user.repository';
export {
  NamespaceRepository,
  type NamespaceSummary,
  type NamespaceWorkerSelectorRecord,
} from './repositories/namespace-settings.repository';
export { TenantRepository, type TenantRecord } from './repositories/tenant.repository';
export { tenantScope, type ServedTenantId, type TenantRepositories, type TenantTriggerKey } from './repositories/tenant-scope';
export {
  AuditLogRepository,
  type AuditActorKind,
  type AuditLogQuery,
  type AuditLogRecord,
  type AuditLogScope,
  type AuditOutcomeKind,
} from './repositories/audit-log.repository';
export { ClusterLockRepository } from './repositories/cluster-lock.repository';
export {
  heldExecutionsAwaitRelease,
  InstanceMaintenanceRepository,
  type InstanceMaintenanceRecord,
} from './repositories/instance-maintenance.repository';
export {
  DeadLetterStore,
  type DeadLetterMessage,
  type DeadLetterRecord,
  type DeadLetterWrite,
} from './repositories/dead-letter.store';
export { databaseIsUnavailable, databaseRefusesForGood } from './database-failure';
export {
  ProcessingMarkRepository,
  type MarkedEventRecord,
  type ParkedExecutorEventRecord,
  type ProcessingMarkRecord,
} from './repositories/processing-mark.repository';
