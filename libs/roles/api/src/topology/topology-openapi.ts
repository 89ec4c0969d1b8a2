import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse } from '@nestjs/swagger';
// Swagger's schema type is not re-exported from its index.
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { PROBLEM_MEDIA_TYPE } from '../http/problem';

// OpenAPI pieces of the instance (topology) routes.

const DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed request (e.g. a body that is not JSON)',
  401: 'No or bad API token',
  403: 'The token is not an instance admin, or the entity is reserved (`default`, `system`)',
  404: 'Unknown worker queue, worker group, subscription or token',
  409: 'Conflict: the entity is still in use, or a token of that name exists',
  422: 'Invalid content: one entry per problem, with its JSON path (e.g. `subscriptions[1].reservedPercent`)',
  503: 'The database or the queue is unavailable',
};

/** The problem+json answers of an instance route; 401 and 403 (instance admin only) are on every one. */
export function InstanceProblems(...statuses: number[]): MethodDecorator {
  return applyDecorators(
    ...[401, 403, ...statuses.filter((s) => s !== 403)].map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status] ?? 'Error',
        content: { [PROBLEM_MEDIA_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
      }),
    ),
  );
}

export const InstanceAdminAuth = () => ApiBearerAuth();

const instant = { type: 'string', format: 'date-time' } as const;
const nullableInstant = { type: 'string', format: 'date-time', nullable: true } as const;
const rfc1123 = 'RFC 1123 label: lowercase letters, digits and `-`, at most 63 characters';

const SUBSCRIPTION_MODE: SchemaObject = { type: 'string', enum: ['STRICT', 'ELASTIC'], default: 'STRICT' };
const RESERVED_PERCENT = {
  type: 'integer',
  minimum: 1,
  maximum: 100,
  description: "Share of each worker's slots reserved for this queue; the group's percentages add up to at most 100",
} as const;

export const WORKER_QUEUE_BODY = {
  required: true,
  schema: {
    type: 'object',
    required: ['tags'],
    additionalProperties: false,
    properties: {
      tags: {
        type: 'array',
        minItems: 1,
        items: { type: 'string' },
        description: 'Non-empty set; no two queues have the same set',
      },
      allowedTenants: { type: 'array', items: { type: 'string' }, description: 'Empty or absent: every tenant' },
      description: { type: 'string' },
    },
  },
} as const;

export const WORKER_QUEUE_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'string', description: rfc1123 },
    tags: { type: 'array', items: { type: 'string' } },
    allowedTenants: { type: 'array', items: { type: 'string' } },
    description: { type: 'string', nullable: true },
    reserved: { type: 'boolean', description: '`default` and `system`' },
    createdAt: instant,
    updatedAt: instant,
  },
};

const SUBSCRIPTION_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    workerQueueId: { type: 'string' },
    reservedPercent: { ...RESERVED_PERCENT, nullable: true },
    mode: SUBSCRIPTION_MODE,
  },
};

const RESTART_STRATEGY: SchemaObject & { description: string } = {
  type: 'string',
  enum: ['NEVER', 'IMMEDIATELY', 'AFTER_TERMINATION_GRACE_PERIOD'],
  description:
    'The jobs of a dead worker of the group: re-run after the 10 s adoption grace (AFTER_TERMINATION_GRACE_PERIOD), at once (IMMEDIATELY), or never (NEVER: the task run fails)',
};

export const WORKER_GROUP_BODY = {
  required: true,
  schema: {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: {
      name: { type: 'string' },
      description: { type: 'string' },
      restartStrategy: {
        ...RESTART_STRATEGY,
        description: `${RESTART_STRATEGY.description}; absent keeps the group's (a new group: AFTER_TERMINATION_GRACE_PERIOD)`,
      },
      subscriptions: {
        type: 'array',
        description:
          "When given, replaces the group's subscriptions (the `default` group always keeps `default`); absent keeps them",
        items: {
          type: 'object',
          required: ['workerQueueId'],
          additionalProperties: false,
          properties: { workerQueueId: { type: 'string' }, reservedPercent: RESERVED_PERCENT, mode: SUBSCRIPTION_MODE },
        },
      },
    },
  },
} as const;

export const WORKER_GROUP_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'string', description: rfc1123 },
    name: { type: 'string' },
    description: { type: 'string', nullable: true },
    restartStrategy: RESTART_STRATEGY,
    reserved: { type: 'boolean', description: 'The `default` group' },
    subscriptions: { type: 'array', items: SUBSCRIPTION_SCHEMA },
    createdAt: instant,
    updatedAt: instant,
  },
};

export const SUBSCRIPTION_BODY = {
  required: false,
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: { reservedPercent: RESERVED_PERCENT, mode: SUBSCRIPTION_MODE },
  },
} as const;

export { SUBSCRIPTION_SCHEMA };

export const TOKEN_BODY = {
  required: true,
  schema: {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: { name: { type: 'string', maxLength: 200 } },
  },
} as const;

export const MINTED_TOKEN_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    token: { type: 'string', description: 'The registration token: shown only in this answer, stored only as its SHA-256 hash' },
    createdAt: instant,
  },
};

export const TOKEN_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    createdAt: instant,
    lastUsedAt: nullableInstant,
    revokedAt: nullableInstant,
  },
};

export const WORKER_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    controller: { type: 'string', description: 'The service instance id of the controller holding its stream' },
    slots: { type: 'integer' },
    state: { type: 'string', enum: ['CONNECTED', 'DRAINING'] },
    draining: { type: 'boolean' },
    queues: { type: 'array', items: { type: 'string' }, description: 'The worker queues it serves now' },
    connectedAt: instant,
    lastHeartbeatAt: instant,
  },
};

const FIGURES = {
  reserved: { type: 'integer', description: 'Reserved slots' },
  used: { type: 'integer', description: 'Slots running jobs' },
  borrowed: { type: 'integer', description: "Jobs running on another subscription's idle reserved slots (ELASTIC)" },
  lent: { type: 'integer', description: "This subscription's reserved slots used by another one" },
  waiting: {
    type: 'integer',
    description: 'Jobs waiting for a slot, as the controller last reported them; 0 when its snapshot carries no waiting count',
  },
} as const;

export const CAPACITY_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    workerGroupId: { type: 'string' },
    workers: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          workerId: { type: 'string' },
          name: { type: 'string' },
          slots: { type: 'integer' },
          state: { type: 'string', enum: ['CONNECTED', 'DRAINING'] },
          reported: {
            type: 'boolean',
            description: 'False until the controller wrote a ledger snapshot (every figure is then 0)',
          },
          ...FIGURES,
          subscriptions: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                workerQueueId: { type: 'string' },
                mode: SUBSCRIPTION_MODE,
                reservedPercent: { type: 'integer', nullable: true },
                ...FIGURES,
              },
            },
          },
        },
      },
    },
  },
};

export const SERVICE_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    role: { type: 'string' },
    host: { type: 'string' },
    state: { type: 'string', description: 'The liveness state (e.g. RUNNING, DISCONNECTED, NOT_RUNNING)' },
    startedAt: instant,
    heartbeatAt: instant,
    stateChangedAt: instant,
  },
};

export const listOf = (schema: SchemaObject): SchemaObject => ({ type: 'array', items: schema });
