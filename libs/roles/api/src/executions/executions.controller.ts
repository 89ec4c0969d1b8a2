import { Body, Controller, Delete, Get, HttpCode, Logger, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { EXECUTION_RECORD_STATES, parseIsoDuration } from '@lanner/model';
import { errorSummary } from '@lanner/runtime';
import type { HttpRequest, HttpResponse } from '../http/http-types';
import { z } from 'zod';
import { type AuthenticatedRequest, namespacePrefixOf } from '../auth/access.guard';
import { InvalidRequest } from '../http/api-errors';
import { correlationIdOf } from '../http/correlation';
import { PageQuerySchema } from '../http/query';
import { isMultipartForm, readMultipartForm } from '../http/multipart-body';
import { parseWith } from '../http/request-body';
import { openEventStream, SSE_KEEP_ALIVE } from '../http/server-sent-events';
import { BearerAuth, ProblemResponses } from '../openapi/api-docs.decorators';
import { executionView } from './execution-view';
import { ExecutionsService, type NewExecutionRequest } from './executions.service';
import { LABELS_FIELD, newExecutionFromForm, parseLabels } from './new-execution-form';
import { RequirePermission } from '../auth/route-access.decorator';

const jsonObject = z.record(z.string(), z.unknown());
const NewExecutionBodySchema = z
  .object({ inputs: jsonObject.optional(), labels: z.record(z.string(), z.string()).optional() })
  .strict()
  .optional();
const ResumeBodySchema = z.object({ inputs: jsonObject.optional() }).strict().optional();
const WaitQuerySchema = z.object({
  wait: z.enum(['true', 'false']).optional(),
  waitTimeout: z.string().optional(),
  // `?labels=team:data&labels=env:dev`, as Kestra's clients send them.
  [LABELS_FIELD]: z.union([z.string(), z.array(z.string())]).optional(),
});
const ExecutionSearchQuerySchema = PageQuerySchema.extend({
  namespace: z.string().min(1).optional(),
  flowId: z.string().min(1).optional(),
  state: z.enum(EXECUTION_RECORD_STATES).optional(),
});

/** A multipart run request is held to the same limit as a JSON one (the platform's JSON body limit, 100 KiB). */
const NEW_EXECUTION_BODY_LIMIT_BYTES = 100 * 1024;
const DEFAULT_WAIT_MS = 60_000;
const MAX_WAIT_MS = 3_600_000;
const KEEP_ALIVE_MS = 15_000;

const NEW_EXECUTION_BODY = {
  required: false,
  schema: {
    type: 'object',
    properties: {
      inputs: { type: 'object', additionalProperties: true, description: 'Values of the flow inputs, by input id' },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
    },
  },
} as const;

/** Nothing (no body sent) reads as an empty object: `{ inputs, labels }` are optional. */
function bodyOrNothing(body: unknown): unknown {
  return body === undefined || body === null || (typeof body === 'object' && Object.keys(body).length === 0) ? undefined : body;
}

function jsonRunRequest(body: unknown): NewExecutionRequest {
  const parsed = parseWith(NewExecutionBodySchema, bodyOrNothing(body), 'body');
  return { inputs: parsed?.inputs ?? {}, labels: parsed?.labels ?? {} };
}

function waitTimeoutMs(text: string | undefined): number {
  if (text === undefined) return DEFAULT_WAIT_MS;
  const ms = parseIsoDuration(text);
  if (ms === undefined || ms <= 0)
    throw new InvalidRequest('The query is not valid', [
      { path: 'waitTimeout', message: 'must be an ISO-8601 duration such as PT60S' },
    ]);
  return Math.min(ms, MAX_WAIT_MS);
}

@ApiTags('executions')
@BearerAuth()
@Controller('api/v1/:tenant/executions')
export class ExecutionsController {
  private readonly logger = new Logger(ExecutionsController.name);

  constructor(private readonly executions: ExecutionsService) {}

  // Declared before `:id` and `:namespace/:flowId` so that these literal paths win.
  @RequirePermission('execution', 'read', { namespaceFrom: 'query' })
  @Get('search')
  @ApiOperation({ summary: 'Search executions, newest first' })
  @ApiQuery({ name: 'namespace', required: false })
  @ApiQuery({ name: 'flowId', required: false })
  @ApiQuery({ name: 'state', required: false, enum: EXECUTION_RECORD_STATES })
  @ApiQuery({ name: 'page', required: false })
  @ApiQuery({ name: 'size', required: false })
  @ApiOkResponse({ description: '{ results, total }' })
  @ProblemResponses(400)
  async search(@Param('tenant') tenant: string, @Query() query: unknown, @Req() request: AuthenticatedRequest) {
    const filter = parseWith(ExecutionSearchQuerySchema, query, 'query');
    // A namespace-bound caller searches its prefix (the guard refused a `namespace` outside it).
    const page = await this.executions.search(tenant, { ...filter, namespacePrefix: namespacePrefixOf(request) ?? undefined });
    return { results: page.results.map(executionView), total: page.total };
  }

  @RequirePermission('execution', 'write', { namespaceFrom: { executionParam: 'id' } })
  @Post(':id/resume')
  @HttpCode(204)
  @ApiOperation({ summary: 'Resume a PAUSED execution' })
  @ApiBody({
    required: false,
    schema: { type: 'object', properties: { inputs: { type: 'object', additionalProperties: true } } },
  })
  @ApiResponse({ status: 204, description: 'Resume requested' })
  @ProblemResponses(400, 404, 409)
  async resume(
    @Param('tenant') tenant: string,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: HttpRequest,
  ): Promise<void> {
    const parsed = parseWith(ResumeBodySchema, bodyOrNothing(body), 'body');
    await this.executions.resume(tenant, id, parsed?.inputs, correlationIdOf(request));
  }

  @RequirePermission('execution', 'write', { namespaceFrom: { executionParam: 'id' } })
  @Post(':id/restart')
  @HttpCode(200)
  @ApiOperation({ summary: 'Restart a FAILED or KILLED execution: its failed task runs run again' })
  @ApiOkResponse({ description: 'The execution as it was when the restart was requested' })
  @ProblemResponses(404, 409)
  async restart(@Param('tenant') tenant: string, @Param('id') id: string, @Req() request: AuthenticatedRequest) {
    return executionView(
      await this.executions.restart(tenant, id, request.principal?.tokenId ?? 'unknown', correlationIdOf(request)),
    );
  }

  @RequirePermission('execution', 'write')
  @Post(':namespace/:flowId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Run the latest revision of a flow' })
  @ApiConsumes('application/json', 'multipart/form-data')
  @ApiBody(NEW_EXECUTION_BODY)
  @ApiQuery({ name: 'labels', required: false, isArray: true, description: 'key:value, repeatable' })
  @ApiQuery({ name: 'wait', required: false, description: 'true: answer when the execution ends' })
  @ApiQuery({ name: 'waitTimeout', required: false, description: 'ISO-8601 duration, default PT60S' })
  @ApiOkResponse({ description: 'The execution (CREATED, or ended with ?wait=true)' })
  @ProblemResponses(400, 404, 409, 413, 422)
  async create(
    @Param('tenant') tenant: string,
    @Param('namespace') namespace: string,
    @Param('flowId') flowId: string,
    @Body() body: unknown,
    @Query() query: unknown,
    @Req() request: HttpRequest,
  ) {
    const { wait, waitTimeout, labels } = parseWith(WaitQuerySchema, query, 'query');
    const timeoutMs = waitTimeoutMs(waitTimeout);
    const queryLabels = parseLabels(labels === undefined ? [] : [labels].flat(), LABELS_FIELD, 'query');
    const requested = isMultipartForm(request)
      ? newExecutionFromForm(await readMultipartForm(request, NEW_EXECUTION_BODY_LIMIT_BYTES))
      : jsonRunRequest(body);
    const created = await this.executions.create(
      tenant,
      namespace,
      flowId,
      // Labels in the body win over the same key in the query.
      { ...requested, labels: { ...queryLabels, ...requested.labels } },
      correlationIdOf(request),
    );
    if (wait !== 'true') return executionView(created);
    const aborted = new AbortController();
    request.once('close', () => aborted.abort());
    return executionView(await this.executions.follow(tenant, created.id, { timeoutMs, signal: aborted.signal }));
  }

  @RequirePermission('execution', 'read', { namespaceFrom: { executionParam: 'id' } })
  @Get(':id')
  @ApiOperation({ summary: 'An execution with its task runs and their attempts' })
  @ApiOkResponse({ description: 'The execution, with taskRunList and outputs' })
  @ProblemResponses(404)
  async get(@Param('tenant') tenant: string, @Param('id') id: string) {
    return executionView(await this.executions.get(tenant, id));
  }

  @RequirePermission('execution', 'write', { namespaceFrom: { executionParam: 'id' } })
  @Delete(':id/kill')
  @HttpCode(202)
  @ApiOperation({ summary: 'Kill an execution: it moves through KILLING to KILLED' })
  @ApiResponse({ status: 202, description: 'Kill requested' })
  @ProblemResponses(404, 409)
  async kill(@Param('tenant') tenant: string, @Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<void> {
    await this.executions.kill(tenant, id, request.principal?.tokenId ?? 'unknown', correlationIdOf(request));
  }

  @RequirePermission('execution', 'read', { namespaceFrom: { executionParam: 'id' } })
  @Get(':id/follow')
  @ApiOperation({ summary: 'Server-sent events: `execution` with the execution after each change, until it ends' })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({ description: 'text/event-stream of `execution` events, then `end`' })
  @ProblemResponses(404)
  async follow(
    @Param('tenant') tenant: string,
    @Param('id') id: string,
    @Req() request: HttpRequest,
    @Res() response: HttpResponse,
  ): Promise<void> {
    // Read first, so an unknown execution is a 404 problem rather than an empty stream.
    await this.executions.get(tenant, id);
    const stream = openEventStream(response);
    const aborted = new AbortController();
    void stream.closed.then(() => aborted.abort());
    const keepAlive = setInterval(() => response.write(SSE_KEEP_ALIVE), KEEP_ALIVE_MS);
    try {
      const last = await this.executions.follow(tenant, id, {
        signal: aborted.signal,
        onChange: (execution) =>
          stream.send({ event: 'execution', id: String(execution.version), data: executionView(execution) }),
      });
      stream.send({ event: 'end', data: { id: last.id, state: last.state } });
    } catch (error) {
      // The stream has started: a failure can only end it.
      this.logger.warn({ executionId: id, ...errorSummary(error) }, 'execution stream interrupted');
      stream.send({ event: 'error', data: { detail: 'The stream was interrupted; reconnect to continue' } });
    } finally {
      clearInterval(keepAlive);
      stream.close();
    }
  }
}
