// Swagger's schema type is not re-exported from its index.
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { EXECUTION_RECORD_STATES } from '@lanner/model';

// The OpenAPI description of `GET /executions/stats` (the dashboard), so the UI's types are generated from it.

const instant: SchemaObject = { type: 'string', format: 'date-time' };
const count: SchemaObject = { type: 'integer', minimum: 0 };
const milliseconds: SchemaObject = { type: 'integer', minimum: 0, description: 'milliseconds' };

const FLOW_DURATIONS: SchemaObject = {
  type: 'object',
  required: ['namespace', 'flowId', 'executions', 'p50Ms', 'p95Ms', 'maxMs'],
  properties: {
    namespace: { type: 'string' },
    flowId: { type: 'string' },
    executions: { ...count, description: 'Ended executions of the flow in the period' },
    p50Ms: milliseconds,
    p95Ms: milliseconds,
    maxMs: milliseconds,
  },
};

const FLOW_FAILURES: SchemaObject = {
  type: 'object',
  required: ['namespace', 'flowId', 'failed', 'executions', 'lastFailedAt'],
  properties: {
    namespace: { type: 'string' },
    flowId: { type: 'string' },
    failed: count,
    executions: count,
    lastFailedAt: instant,
  },
};

export const EXECUTION_STATS_SCHEMA: SchemaObject = {
  type: 'object',
  required: [
    'from',
    'to',
    'bucketSeconds',
    'total',
    'ended',
    'succeeded',
    'failed',
    'successRate',
    'durations',
    'timeline',
    'slowestFlows',
    'failingFlows',
  ],
  properties: {
    from: instant,
    to: instant,
    bucketSeconds: { type: 'integer', description: 'Width of a timeline bucket' },
    total: { ...count, description: 'Executions created in the period' },
    ended: { ...count, description: 'Of those, the ones in a terminal state' },
    succeeded: count,
    failed: count,
    successRate: { type: 'number', nullable: true, description: 'succeeded / ended; null when none ended' },
    durations: {
      type: 'object',
      nullable: true,
      description: 'Over the ended executions (end minus start); null when none ended',
      required: ['p50Ms', 'p95Ms'],
      properties: { p50Ms: milliseconds, p95Ms: milliseconds },
    },
    timeline: {
      type: 'array',
      description: 'Every bucket of the period, oldest first',
      items: {
        type: 'object',
        required: ['start', 'counts'],
        properties: {
          start: instant,
          counts: {
            type: 'object',
            description: 'Executions created in the bucket, per state they are in now',
            properties: Object.fromEntries(EXECUTION_RECORD_STATES.map((state) => [state, count])),
          },
        },
      },
    },
    slowestFlows: { type: 'array', items: FLOW_DURATIONS, description: 'Highest p95 first' },
    failingFlows: { type: 'array', items: FLOW_FAILURES, description: 'Most FAILED first' },
  },
};
