import { Controller, Get, Logger, Param, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { LOG_LEVELS, type LogLineRecord, type LogQuery } from '@lanner/repository';
import { errorSummary } from '@lanner/runtime';
import type { HttpResponse } from '../http/http-types';
import { z } from 'zod';
import { hasEnded } from '../executions/execution-view';
import { parseWith } from '../http/request-body';
import { openEventStream } from '../http/server-sent-events';
import { BearerAuth, ProblemResponses, StreamAnswer } from '../openapi/api-docs.decorators';
import { instant, JsonAnswer, QueryParameters } from '../openapi/zod-openapi';
import { RequirePermission } from '../auth/route-access.decorator';
import type { TenantRepositories } from '@lanner/repository';
import { TenantData, TenantPath } from '../auth/tenant-data.decorator';

const LogQuerySchema = z.object({
  minLevel: z.enum(LOG_LEVELS).describe('This level and the ones above it').optional(),
  taskRunId: z.string().min(1).describe('The lines of one task run').optional(),
});

/** Lines reach the repository through the indexer a little after the execution ended; a follower waits this long for them. */
const TRAILING_LOGS_MS = 2000;
const LOG_POLL_MS = 1000;

const LogLineViewSchema = z.object({
  executionId: z.string(),
  taskRunId: z.string(),
  attempt: z.number().int().min(1),
  level: z.enum(LOG_LEVELS),
  timestamp: instant(),
  message: z.string(),
});

export function logLineView(line: LogLineRecord): z.output<typeof LogLineViewSchema> {
  return {
    executionId: line.executionId,
    taskRunId: line.taskRunId,
    attempt: line.attempt,
    level: line.level,
    timestamp: line.timestamp.toISOString(),
    message: line.message,
  };
}

@ApiTags('logs')
@BearerAuth()
@TenantPath()
@Controller('api/v1/:tenant/logs')
export class LogsController {
  private readonly logger = new Logger(LogsController.name);

  @RequirePermission('log', 'read', { namespaceFrom: { executionParam: 'executionId' } })
  @Get(':executionId')
  @ApiOperation({ summary: 'The log lines of an execution, oldest first' })
  @QueryParameters(LogQuerySchema)
  @JsonAnswer(z.array(LogLineViewSchema), { description: 'The lines, oldest first' })
  @ProblemResponses(400, 404)
  async list(@TenantData() tenant: TenantRepositories, @Param('executionId') executionId: string, @Query() query: unknown) {
    const filter = parseWith(LogQuerySchema, query, 'query');
    await tenant.executions.get(executionId);
    return (await tenant.logs.list(executionId, filter)).map(logLineView);
  }

  @RequirePermission('log', 'read', { namespaceFrom: { executionParam: 'executionId' } })
  @Get(':executionId/follow')
  @ApiOperation({
    summary: 'Server-sent events: `log` per line (stored ones first), until the execution ended and its last lines arrived',
  })
  @QueryParameters(LogQuerySchema)
  @StreamAnswer('text/event-stream', '`log` events, one line each (as the list answers them), then `end`')
  @ProblemResponses(400, 404)
  async follow(
    @TenantData() tenant: TenantRepositories,
    @Param('executionId') executionId: string,
    @Query() query: unknown,
    @Res() response: HttpResponse,
  ) {
    const filter: LogQuery = parseWith(LogQuerySchema, query, 'query');
    await tenant.executions.get(executionId);
    const stream = openEventStream(response);
    let open = true;
    void stream.closed.then(() => (open = false));
    let afterId: string | undefined;
    let endedAt: number | undefined;
    try {
      while (open) {
        // Stored order (timestamp) for the first read, arrival order (id) after it.
        const lines = await tenant.logs.list(executionId, { ...filter, afterId });
        for (const line of lines) stream.send({ event: 'log', id: line.id, data: logLineView(line) });
        // Ids grow with every stored line: the largest one sent is where the next read starts.
        afterId = lines.reduce<string | undefined>(
          (max, line) => (max === undefined || BigInt(line.id) > BigInt(max) ? line.id : max),
          afterId,
        );
        if (endedAt === undefined && hasEnded(await tenant.executions.get(executionId))) endedAt = Date.now();
        if (endedAt !== undefined && Date.now() - endedAt >= TRAILING_LOGS_MS) break;
        await new Promise((resolve) => setTimeout(resolve, LOG_POLL_MS));
      }
      stream.send({ event: 'end', data: { executionId } });
    } catch (error) {
      this.logger.warn({ executionId, ...errorSummary(error) }, 'log stream interrupted');
      stream.send({ event: 'error', data: { detail: 'The stream was interrupted; reconnect to continue' } });
    } finally {
      stream.close();
    }
  }
}
