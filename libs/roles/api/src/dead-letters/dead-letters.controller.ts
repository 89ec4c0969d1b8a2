import { Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { DeadLetterRecord } from '@lanner/repository';
import { z } from 'zod';
import { PageQuerySchema } from '../http/query';
import { parseWith } from '../http/request-body';
import { instant, JsonAnswer, pageOf, QueryParameters } from '../openapi/zod-openapi';
import { InstanceAdminAuth, InstanceProblems } from '../topology/topology-openapi';
import { DeadLettersService } from './dead-letters.service';
import { RequirePermission } from '../auth/route-access.decorator';
import { Audit } from '../audit/audit.decorator';

const DeadLetterQuerySchema = PageQuerySchema.extend({ topic: z.string().min(1).max(249).optional() });

const DeadLetterViewSchema = z.object({
  id: z.string().meta({ format: 'uuid' }),
  consumerGroup: z.string().describe('The consumer group that could not handle it'),
  topic: z.string(),
  partition: z.number().int(),
  offset: z.string(),
  key: z.string(),
  reason: z.string().describe('Why it can never be handled as it is'),
  attempts: z.number().int().describe('Tries before it was parked'),
  tenantId: z.string().nullable(),
  executionId: z.string().nullable(),
  bytes: z.number().int().describe('Size of the payload'),
  createdAt: instant(),
});

function deadLetterView(record: DeadLetterRecord): z.output<typeof DeadLetterViewSchema> {
  return {
    id: record.id,
    consumerGroup: record.consumerGroup,
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    key: record.key,
    reason: record.reason,
    attempts: record.attempts,
    tenantId: record.tenantId,
    executionId: record.executionId,
    bytes: record.bytes,
    createdAt: record.createdAt.toISOString(),
  };
}

/**
 * Poison messages: what a consumer parked because it could never handle it
 * (the reason says why). An operator fixes the cause, then replays a message
 * (published again to its topic, unchanged) or drops it.
 */
@ApiTags('instance')
@InstanceAdminAuth()
@Controller('api/v1/instance/dead-letters')
export class DeadLettersController {
  constructor(private readonly deadLetters: DeadLettersService) {}

  @RequirePermission('dead-letter', 'read')
  @Get()
  @ApiOperation({ summary: 'Messages parked by a consumer that could never handle them, newest first' })
  @QueryParameters(DeadLetterQuerySchema)
  @JsonAnswer(pageOf(DeadLetterViewSchema))
  @InstanceProblems(400)
  async list(@Query() query: unknown): Promise<z.output<ReturnType<typeof pageOf<typeof DeadLetterViewSchema>>>> {
    const { page, size, topic } = parseWith(DeadLetterQuerySchema, query, 'query');
    const { results, total } = await this.deadLetters.list(page, size, topic);
    return { results: results.map(deadLetterView), total };
  }

  @RequirePermission('dead-letter', 'read')
  @Get(':id')
  @ApiOperation({ summary: 'One parked message (without its payload)' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @JsonAnswer(DeadLetterViewSchema)
  @InstanceProblems(404)
  async get(@Param('id') id: string) {
    return deadLetterView(await this.deadLetters.get(id));
  }

  @RequirePermission('dead-letter', 'write')
  @Audit('dead-letter.replay', { id: ':id' })
  @Post(':id/replay')
  @HttpCode(202)
  @ApiOperation({ summary: 'Publish the message again to its topic, unchanged, and drop it from the dead letters' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @JsonAnswer(DeadLetterViewSchema, { status: 202, description: 'Published again' })
  @InstanceProblems(404, 503)
  async replay(@Param('id') id: string) {
    return deadLetterView(await this.deadLetters.replay(id));
  }

  @RequirePermission('dead-letter', 'write')
  @Audit('dead-letter.drop', { id: ':id' })
  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Drop a parked message for good' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiResponse({ status: 204, description: 'Dropped' })
  @InstanceProblems(404)
  async drop(@Param('id') id: string): Promise<void> {
    await this.deadLetters.drop(id);
  }
}
