import {
  type ConnectedWorkerRecord,
  type RegistrationTokenRecord,
  SERVICE_INSTANCE_RECORD_STATES,
  SERVICE_RECORD_ROLES,
  type ServiceInstanceRecord,
  type StoredJson,
  type SubscriptionRecord,
  WORKER_RESTART_STRATEGIES,
  type WorkerGroupRecord,
  type WorkerQueueRecord,
} from '@lanner/model';
import { SUBSCRIPTION_MODES } from '@lanner/topology';
import { z } from 'zod';
import { instant } from '../openapi/zod-openapi';

// What the topology routes answer: plain JSON, instants as ISO-8601 strings,
// never a token value or hash. Each view is typed by its schema, and the
// OpenAPI document is generated from the schemas.

export const RFC_1123_ID = 'RFC 1123 label: lowercase letters, digits and `-`, at most 63 characters';
export const RESTART_STRATEGY_RULE =
  'The jobs of a dead worker of the group: re-run after the 10 s adoption grace (AFTER_TERMINATION_GRACE_PERIOD), at once (IMMEDIATELY), or never (NEVER: the task run fails)';
const WORKER_STATES = ['CONNECTED', 'DRAINING'] as const;

export const WorkerQueueViewSchema = z.object({
  id: z.string().describe(RFC_1123_ID),
  tags: z.array(z.string()),
  allowedTenants: z.array(z.string()),
  description: z.string().nullable(),
  reserved: z.boolean().describe('`default` and `system`'),
  createdAt: instant(),
  updatedAt: instant(),
});

export const SubscriptionViewSchema = z.object({
  workerQueueId: z.string(),
  reservedPercent: z
    .number()
    .int()
    .min(1)
    .max(100)
    .nullable()
    .describe("Share of each worker's slots reserved for this queue; null: none reserved"),
  mode: z.enum(SUBSCRIPTION_MODES),
});

export const WorkerGroupViewSchema = z.object({
  id: z.string().describe(RFC_1123_ID),
  name: z.string(),
  description: z.string().nullable(),
  restartStrategy: z.enum(WORKER_RESTART_STRATEGIES).describe(RESTART_STRATEGY_RULE),
  reserved: z.boolean().describe('The `default` group'),
  subscriptions: z.array(SubscriptionViewSchema),
  createdAt: instant(),
  updatedAt: instant(),
});

export const RegistrationTokenViewSchema = z.object({
  id: z.string().meta({ format: 'uuid' }),
  name: z.string(),
  createdAt: instant(),
  lastUsedAt: instant().nullable(),
  revokedAt: instant().nullable(),
});

export const MintedRegistrationTokenViewSchema = z.object({
  id: z.string().meta({ format: 'uuid' }),
  name: z.string(),
  token: z.string().describe('The registration token: shown only in this answer, stored only as its SHA-256 hash'),
  createdAt: instant(),
});

export const ConnectedWorkerViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  controller: z.string().describe('The service instance id of the controller holding its stream'),
  slots: z.number().int(),
  state: z.enum(WORKER_STATES),
  draining: z.boolean(),
  queues: z.array(z.string()).describe('The worker queues it serves now'),
  connectedAt: instant(),
  lastHeartbeatAt: instant(),
});

export const ServiceInstanceViewSchema = z.object({
  id: z.string(),
  role: z.enum(SERVICE_RECORD_ROLES),
  host: z.string(),
  state: z.enum(SERVICE_INSTANCE_RECORD_STATES).describe('The liveness state'),
  startedAt: instant(),
  heartbeatAt: instant(),
  stateChangedAt: instant(),
});

const CapacityFiguresSchema = z.object({
  reserved: z.number().int().describe('Reserved slots'),
  used: z.number().int().describe('Slots running jobs'),
  borrowed: z.number().int().describe("Jobs running on another subscription's idle reserved slots (ELASTIC)"),
  lent: z.number().int().describe("This subscription's reserved slots used by another one"),
  waiting: z
    .number()
    .int()
    .describe('Jobs waiting for a slot, as the controller last reported them; 0 when its snapshot carries no waiting count'),
});
export type CapacityFigures = z.output<typeof CapacityFiguresSchema>;

const SubscriptionCapacityViewSchema = CapacityFiguresSchema.extend({
  workerQueueId: z.string(),
  mode: z.string().nullable().describe('STRICT or ELASTIC, as the snapshot names it'),
  reservedPercent: z.number().int().nullable(),
});
export type SubscriptionCapacityView = z.output<typeof SubscriptionCapacityViewSchema>;

const WorkerCapacityViewSchema = CapacityFiguresSchema.extend({
  workerId: z.string(),
  name: z.string(),
  slots: z.number().int(),
  state: z.enum(WORKER_STATES),
  reported: z.boolean().describe('False until the controller wrote a ledger snapshot (every figure is then 0)'),
  subscriptions: z.array(SubscriptionCapacityViewSchema),
});
export type WorkerCapacityView = z.output<typeof WorkerCapacityViewSchema>;

export const GroupCapacityViewSchema = z.object({ workerGroupId: z.string(), workers: z.array(WorkerCapacityViewSchema) });

function iso(date: Date): string;
function iso(date: Date | null): string | null;
function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}

export function workerQueueView(queue: WorkerQueueRecord): z.output<typeof WorkerQueueViewSchema> {
  return {
    id: queue.id,
    tags: queue.tags,
    allowedTenants: queue.allowedTenants,
    description: queue.description,
    reserved: queue.reserved,
    createdAt: iso(queue.createdAt),
    updatedAt: iso(queue.updatedAt),
  };
}

export function subscriptionView(subscription: SubscriptionRecord): z.output<typeof SubscriptionViewSchema> {
  return { workerQueueId: subscription.workerQueueId, reservedPercent: subscription.reservedPercent, mode: subscription.mode };
}

export function workerGroupView(group: WorkerGroupRecord): z.output<typeof WorkerGroupViewSchema> {
  return {
    id: group.id,
    name: group.name,
    description: group.description,
    restartStrategy: group.restartStrategy,
    reserved: group.reserved,
    subscriptions: group.subscriptions.map(subscriptionView),
    createdAt: iso(group.createdAt),
    updatedAt: iso(group.updatedAt),
  };
}

/** A stored token: no value, no hash. */
export function registrationTokenView(token: RegistrationTokenRecord): z.output<typeof RegistrationTokenViewSchema> {
  return {
    id: token.id,
    name: token.name,
    createdAt: iso(token.createdAt),
    lastUsedAt: iso(token.lastUsedAt),
    revokedAt: iso(token.revokedAt),
  };
}

export function connectedWorkerView(worker: ConnectedWorkerRecord): z.output<typeof ConnectedWorkerViewSchema> {
  return {
    id: worker.workerId,
    name: worker.workerName,
    controller: worker.controllerInstanceId,
    slots: worker.slots,
    state: worker.draining ? ('DRAINING' as const) : ('CONNECTED' as const),
    draining: worker.draining,
    queues: [...worker.queueIds],
    connectedAt: iso(worker.connectedAt),
    lastHeartbeatAt: iso(worker.heartbeatAt),
  };
}

export function serviceInstanceView(instance: ServiceInstanceRecord): z.output<typeof ServiceInstanceViewSchema> {
  return {
    id: instance.id,
    role: instance.role,
    host: instance.host,
    state: instance.state,
    startedAt: iso(instance.startedAt),
    heartbeatAt: iso(instance.heartbeatAt),
    stateChangedAt: iso(instance.stateChangedAt),
  };
}

/**
 * A worker's ledger as its controller last wrote it (a @lanner/capacity
 * CapacitySnapshot in the registry row). The row is read defensively: a
 * missing or non-numeric figure reads as 0, and `waiting` (not part of every
 * snapshot) as 0 when absent. Removed subscriptions whose slots are still
 * held are listed too (`subscribed: false` in the snapshot).
 */
export function workerCapacityView(worker: ConnectedWorkerRecord): WorkerCapacityView {
  const snapshot = asObject(worker.capacity);
  const subscriptions = (Array.isArray(snapshot?.['subscriptions']) ? snapshot['subscriptions'] : []).flatMap(
    (entry): SubscriptionCapacityView[] => {
      const fields = asObject(entry);
      const workerQueueId = fields?.['workerQueueId'];
      if (!fields || typeof workerQueueId !== 'string') return [];
      const percent = count(fields['reservedPercent']);
      return [
        {
          workerQueueId,
          mode: typeof fields['mode'] === 'string' ? fields['mode'] : null,
          reservedPercent: percent > 0 ? percent : null,
          ...figures(fields),
        },
      ];
    },
  );
  const own = snapshot ? figures(snapshot) : { reserved: 0, used: 0, borrowed: 0, lent: 0, waiting: 0 };
  return {
    workerId: worker.workerId,
    name: worker.workerName,
    slots: snapshot && typeof snapshot['slots'] === 'number' ? count(snapshot['slots']) : worker.slots,
    state: worker.draining ? 'DRAINING' : 'CONNECTED',
    reported: snapshot !== undefined,
    ...own,
    // A snapshot without its own `waiting` total: the sum over its subscriptions.
    waiting: snapshot && snapshot['waiting'] !== undefined ? own.waiting : subscriptions.reduce((sum, s) => sum + s.waiting, 0),
    subscriptions,
  };
}

function figures(fields: Record<string, StoredJson>): CapacityFigures {
  return {
    reserved: count(fields['reserved']),
    used: count(fields['used']),
    borrowed: count(fields['borrowed']),
    lent: count(fields['lent']),
    waiting: count(fields['waiting']),
  };
}

function count(value: StoredJson | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

function asObject(value: StoredJson | undefined): Record<string, StoredJson> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, StoredJson>) : undefined;
}
