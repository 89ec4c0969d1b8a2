import { Pool } from 'pg';
import { connectClient } from './connection';
import { describeConnectionFailure, parseDatabaseUrl } from './database-url';
import { createPrismaClient } from './prisma';
import { ApiTokenRepository } from './repositories/api-token.repository';
import { AuditLogRepository } from './repositories/audit-log.repository';
import { UserRepository } from './repositories/user.repository';
import { ClusterLockRepository } from './repositories/cluster-lock.repository';
import { ConnectedWorkerRepository } from './repositories/connected-worker.repository';
import { DeadLetterStore } from './repositories/dead-letter.store';
import { ExecutionRepository } from './repositories/execution.repository';
import { FlowRepository } from './repositories/flow.repository';
import { InstanceMaintenanceRepository } from './repositories/instance-maintenance.repository';
import { FlowTriggerEvaluationRepository } from './repositories/flow-trigger-evaluation.repository';
import { LogRepository } from './repositories/log.repository';
import { MetricRepository } from './repositories/metric.repository';
import { NamespaceRepository } from './repositories/namespace-settings.repository';
import { ProcessingMarkRepository } from './repositories/processing-mark.repository';
import { RegistrationTokenRepository } from './repositories/registration-token.repository';
import { RunningJobStore } from './repositories/running-job.store';
import { ServiceInstanceRepository } from './repositories/service-instance.repository';
import { TenantRepository } from './repositories/tenant.repository';
import { TimerRepository } from './repositories/timer.repository';
import { TriggerRepository } from './repositories/trigger.repository';
import { WorkerCredentialRepository } from './repositories/worker-credential.repository';
import { WorkerGroupRepository } from './repositories/worker-group.repository';
import { WorkerQueueRepository } from './repositories/worker-queue.repository';

export interface Repositories {
  readonly flows: FlowRepository;
  readonly executions: ExecutionRepository;
  readonly workerQueues: WorkerQueueRepository;
  readonly workerGroups: WorkerGroupRepository;
  readonly registrationTokens: RegistrationTokenRepository;
  readonly runningJobs: RunningJobStore;
  readonly serviceInstances: ServiceInstanceRepository;
  /** The executor's durable timers. */
  readonly timers: TimerRepository;
  readonly logs: LogRepository;
  readonly metrics: MetricRepository;
  readonly apiTokens: ApiTokenRepository;
  /** Users who log in with a password, and their logins' refresh tokens. */
  readonly users: UserRepository;
  /** The live worker registry, written by controllers. */
  readonly connectedWorkers: ConnectedWorkerRepository;
  /** Registered workers and their rotating refresh tokens. */
  readonly workerCredentials: WorkerCredentialRepository;
  /** Namespace settings (declared worker selectors). */
  readonly namespaces: NamespaceRepository;
  /** Tenant settings (the default worker selector). */
  readonly tenants: TenantRepository;
  /** Named leases among processes (the active liveness coordinator). */
  readonly clusterLocks: ClusterLockRepository;
  /** Maintenance mode of the cluster (one row). */
  readonly maintenance: InstanceMaintenanceRepository;
  /** Queue messages no consumer could handle, parked with the reason (poison messages). */
  readonly deadLetters: DeadLetterStore;
  /** The executor's crash-loop records (processing marks, quarantines, parked events). */
  readonly processingMarks: ProcessingMarkRepository;
  /** Flow triggers: their next dates and the scheduler's leases. */
  readonly triggers: TriggerRepository;
  /** What Flow triggers did with the executions that ended: each evaluated once, and their preconditions' windows. */
  readonly flowTriggerEvaluations: FlowTriggerEvaluationRepository;
  /** Every write through the API (written by the indexer from `lanner.audit`). */
  readonly auditLogs: AuditLogRepository;
  /** Resolves when the database answers (readiness); DatabaseUnavailable otherwise. */
  ping(): Promise<void>;
  /** Closes every connection; the repositories are unusable afterwards. */
  close(): Promise<void>;
}

export interface RepositoryOptions {
  /** Connections in the pool; default 10. */
  readonly poolSize?: number;
}

/**
 * Connects to the database at `databaseUrl` (checking it answers, so a bad
 * DATABASE_URL fails at start with a clear message) and returns the
 * repositories. Does not migrate: migrations are their own step.
 */
export async function openRepositories(databaseUrl: string | undefined, options: RepositoryOptions = {}): Promise<Repositories> {
  parseDatabaseUrl(databaseUrl);
  const url = databaseUrl as string;
  await (await connectClient(url)).end();

  const pool = new Pool({ connectionString: url, max: options.poolSize ?? 10 });
  // An idle connection dropped by the server must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  const db = createPrismaClient(pool);
  let closed: Promise<void> | undefined;
  return {
    flows: new FlowRepository(db),
    executions: new ExecutionRepository(db, pool),
    triggers: new TriggerRepository(db),
    flowTriggerEvaluations: new FlowTriggerEvaluationRepository(db),
    workerQueues: new WorkerQueueRepository(db),
    workerGroups: new WorkerGroupRepository(db),
    registrationTokens: new RegistrationTokenRepository(db),
    runningJobs: new RunningJobStore(db, pool),
    serviceInstances: new ServiceInstanceRepository(db),
    timers: new TimerRepository(db),
    logs: new LogRepository(db, pool),
    metrics: new MetricRepository(db, pool),
    apiTokens: new ApiTokenRepository(db),
    users: new UserRepository(db),
    connectedWorkers: new ConnectedWorkerRepository(db, pool),
    workerCredentials: new WorkerCredentialRepository(db),
    namespaces: new NamespaceRepository(db),
    tenants: new TenantRepository(db),
    clusterLocks: new ClusterLockRepository(db),
    maintenance: new InstanceMaintenanceRepository(db),
    deadLetters: new DeadLetterStore(db),
    processingMarks: new ProcessingMarkRepository(db),
    auditLogs: new AuditLogRepository(db, pool),
    async ping() {
      try {
        await pool.query('SELECT 1');
      } catch (error) {
        throw describeConnectionFailure(url, error);
      }
    },
    close() {
      closed ??= db.$disconnect().then(() => pool.end());
      return closed;
    },
  };
}
