import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse } from '@nestjs/swagger';
import { WORKER_RESTART_STRATEGIES } from '@lanner/model';
import { DEFAULT_SUBSCRIPTION_MODE, MAX_ID_LENGTH, SUBSCRIPTION_MODES } from '@lanner/topology';
import { z } from 'zod';
import { PROBLEM_MEDIA_TYPE } from '../http/problem';
import { RESTART_STRATEGY_RULE } from './topology-view';

// OpenAPI pieces of the instance (topology) routes. The worker queue, group and
// subscription bodies are read by @lanner/topology's readers (shared with the
// declarative setup, which reports every problem of a file at once, 422); the
// schemas below describe those bodies for the document, from the same constants
// the readers check. A registration token's body is parsed with its own schema
// (RegistrationTokenBodySchema).

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

const subscriptionMode = () => z.enum(SUBSCRIPTION_MODES).default(DEFAULT_SUBSCRIPTION_MODE);
const reservedPercent = () =>
  z
    .number()
    .int()
    .min(1)
    .max(100)
    .describe("Share of each worker's slots reserved for this queue; the group's percentages add up to at most 100");

export const WorkerQueueBodySchema = z
  .object({
    tags: z.array(z.string()).min(1).describe('Non-empty set; no two queues have the same set'),
    allowedTenants: z.array(z.string()).describe('Empty or absent: every tenant').optional(),
    description: z.string().optional(),
  })
  .strict()
  .describe(`The queue's id is the path's: an RFC 1123 label of at most ${MAX_ID_LENGTH} characters`);

export const WorkerGroupBodySchema = z
  .object({
    name: z.string(),
    description: z.string().optional(),
    restartStrategy: z
      .enum(WORKER_RESTART_STRATEGIES)
      .describe(`${RESTART_STRATEGY_RULE}; absent keeps the group's (a new group: AFTER_TERMINATION_GRACE_PERIOD)`)
      .optional(),
    subscriptions: z
      .array(
        z.object({ workerQueueId: z.string(), reservedPercent: reservedPercent().optional(), mode: subscriptionMode() }).strict(),
      )
      .describe("When given, replaces the group's subscriptions (the `default` group always keeps `default`); absent keeps them")
      .optional(),
  })
  .strict();

export const SubscriptionBodySchema = z
  .object({ reservedPercent: reservedPercent().optional(), mode: subscriptionMode() })
  .strict()
  .optional();
