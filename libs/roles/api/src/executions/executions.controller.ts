import { Body, Controller, Delete, Get, HttpCode, Logger, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiConsumes, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { EXECUTION_RECORD_STATES, parseIsoDuration, statsBucketSeconds } from '@lanner/model';
import { errorSummary } from '@lanner/runtime';
import type { HttpRequest, HttpResponse } from '../http/http-types';
import { z } from 'zod';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { type AuthenticatedRequest, namespacePrefixOf } from '../auth/access.guard';
import { InvalidContent, InvalidRequest } from '../http/api-errors';
import { correlationIdOf } from '../http/correlation';
import { PageQuerySchema } from '../http/query';
import { isMultipartForm, readMultipartForm } from '../http/multipart-body';
import { parseWith } from '../http/request-body';
import { openEventStream, SSE_KEEP_ALIVE } from '../http/server-sent-events';
import { BearerAuth, ProblemResponses, StreamAnswer } from '../openapi/api-docs.decorators';
import { JsonAnswer, JsonBody, QueryParameters } from '../openapi/zod-openapi';
import { executionStatsView, ExecutionStatsViewSchema } from './execution-stats-view';
import { type ExecutionDetailView, ExecutionDetailViewSchema, ExecutionPageSchema, executionView } from './execution-view';
import { ExecutionFilesService } from './execution-files.service';
import { ExecutionsService, type NewExecutionRequest } from './executions.service';
import { LABELS_FIELD, newExecutionFromForm, parseLabels } from './new-execution-form';
import { RequirePermission } from '../auth/route-access.decorator';
import type { TenantRepositories } from '@lanner/repository';
import { TenantData, TenantPath } from '../auth/tenant-data.decorator';
import { Audit } from '../audit/audit.decorator';

const jsonObject = z.record(z.string(), z.unknown());
const NewExecutionBodySchema = z
  .object({
    inputs: jsonObject.describe('Values of the flow inputs, by input id').optional(),
    labels: z.record(z.string(), z.string()).optional(),
  })
  .strict()
  .optional();
const ReplayQuerySchema = z
  .object({ taskRunId: z.string().min(1).describe('The task run of the execution to run again from').optional() })
  .strict();
const ResumeBodySchema = z.object({ inputs: jsonObject.optional() }).strict().optional();
const WaitQuerySchema = z.object({
  wait: z.enum(['true', 'false']).describe('true: answer when the execution ends').optional(),
  waitTimeout: z.string().describe('ISO-8601 duration, default PT60S').optional(),
  // `?labels=team:data&labels=env:dev`, as Kestra's clients send them.
  [LABELS_FIELD]: z
    .union([z.string(), z.array(z.string())])
    .describe('key:value, repeatable')
    .optional(),
});
const instant = z.iso.datetime({ offset: true, message: 'must be an ISO-8601 date-time such as 2026-12-01T00:00:00Z' });
const ExecutionSearchQuerySchema = PageQuerySchema.extend({
  namespace: z.string().min(1).optional(),
  flowId: z.string().min(1).optional(),
  state: z.enum(EXECUTION_RECORD_STATES).optional(),
  [LABELS_FIELD]: z
    .union([z.string(), z.array(z.string())])
    .describe('key:value, repeatable: executions with every label')
    .optional(),
  from: instant.describe('ISO-8601 date-time: created at or after').optional(),
  to: instant.describe('ISO-8601 date-time: created before').optional(),
});
const ExecutionStatsQuerySchema = z.object({
  namespace: z.string().min(1).describe('this namespace and the ones under it').optional(),
  from: instant.describe('ISO-8601 date-time; default: a day before `to`').optional(),
  to: instant.describe('ISO-8601 date-time; default: now').optional(),
});

/** The dashboard's default period: the last day. */
const DEFAULT_STATS_PERIOD_MS = 24 * 3_600_000;
/** The longest period the dashboard aggregates (its timeline is then in weeks). */
const MAX_STATS_PERIOD_MS = 3 * 366 * 24 * 3_600_000;
const STATS_TOP_FLOWS = 10;

/** `[from, to)` of a query; either end may be left out. A reversed or empty period is a 400 naming `from`. */
function periodOf(query: { from?: string; to?: string }): { from?: Date; to?: Date } {
  const to = query.to === undefined ? undefined : new Date(query.to);
  const from = query.from === undefined ? undefined : new Date(query.from);
  if (from !== undefined && to !== undefined && from.getTime() >= to.getTime())
    throw new InvalidRequest('The query is not valid', [{ path: 'from', message: 'must be before `to`' }]);
  return { from, to };
}

/** The dashboard's period: `to` defaults to now and `from` to a day before `to`; at most three years. */
function statsPeriodOf(query: { from?: string; to?: string }, now: Date): { from: Date; to: Date } {
  const given = periodOf(query);
  const to = given.to ?? now;
  const from = given.from ?? new Date(to.getTime() - DEFAULT_STATS_PERIOD_MS);
  if (from.getTime() >= to.getTime())
    throw new InvalidRequest('The query is not valid', [{ path: 'from', message: 'must be before `to`' }]);
  if (to.getTime() - from.getTime() > MAX_STATS_PERIOD_MS)
    throw new InvalidRequest('The query is not valid', [{ path: 'from', message: 'the period may span at most three years' }]);
  return { from, to };
}

/** A multipart run request is held to the same limit as a JSON one (the platform's JSON body limit, 100 KiB). */
const NEW_EXECUTION_BODY_LIMIT_BYTES = 100 * 1024;
const FileQuerySchema = z.object({ path: z.string().min(1).describe('The kestra:/// URI, as the execution shows it') });
const PREVIEW_BYTES = 64 * 1024;
const PurgedFilesViewSchema = z.object({ uris: z.array(z.string()).describe('The kestra:/// URIs of the files deleted') });
const FilePreviewViewSchema = z.object({
  type: z.enum(['text', 'csv', 'json']).describe('How to show it, from the file name'),
  content: z.string(),
  truncated: z.boolean().describe('The file goes on past `content`'),
});
const DEFAULT_WAIT_MS = 60_000;
const MAX_WAIT_MS = 3_600_000;
const KEEP_ALIVE_MS = 15_000;

/** Nothing (no body sent) reads as an empty object: `{ inputs, labels }` are optional. */
function bodyOrNothing(body: unknown): unknown {
  return body === undefined || body === null || (typeof body === 'object' && Object.keys(body).length === 0) ? undefined : body;
}

function jsonRunRequest(body: unknown): NewExecutionRequest {
  const parsed = parseWith(NewExecutionBodySchema, bodyOrNothing(body), 'body');
  return { inputs: parsed?.inputs ?? {}, labels: parsed?.labels ?? {} };
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
  txt: 'text/plain; charset=utf-8',
  log: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
};

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** Only a few known types; anything else downloads as bytes (never rendered by a browser). */
function contentTypeOf(name: string): string {
  return CONTENT_TYPES[extensionOf(name)] ?? 'application/octet-stream';
}

function previewTypeOf(name: string): 'text' | 'csv' | 'json' | undefined {
  const extension = extensionOf(name);
  if (extension === 'csv') return 'csv';
  if (extension === 'json') return 'json';
  return ['txt', 'log', 'md'].includes(extension) ? 'text' : undefined;
}

/** The first `limit` bytes as UTF-8 text (a character cut at the end is dropped); the rest is not read. */
async function readHead(stream: Readable, limit: number): Promise<{ text: string; truncated: boolean }> {
  const parts: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of stream) {
    const buffer = chunk as Buffer;
    parts.push(buffer);
    size += buffer.length;
    if (size >= limit) {
      truncated = size > limit;
      break;
    }
  }
  stream.destroy();
  const bytes = Buffer.concat(parts).subarray(0, limit);
  return { text: new StringDecoder('utf8').write(bytes), truncated };
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
@TenantPath()
@Controller('api/v1/:tenant/executions')
export class ExecutionsController {
  private readonly logger = new Logger(ExecutionsController.name);

  constructor(
    private readonly executions: ExecutionsService,
    private readonly files: ExecutionFilesService,
  ) {}

  // Declared before `:id` and `:namespace/:flowId` so that these literal paths win.
  @RequirePermission('execution', 'read', { namespaceFrom: 'query' })
  @Get('search')
  @ApiOperation({ summary: 'Search executions, newest first' })
  @QueryParameters(ExecutionSearchQuerySchema)
  @JsonAnswer(ExecutionPageSchema, { description: 'One page of executions, without their task runs' })
  @ProblemResponses(400)
  async search(
    @TenantData() tenant: TenantRepositories,
    @Query() query: unknown,
    @Req() request: AuthenticatedRequest,
  ): Promise<z.output<typeof ExecutionPageSchema>> {
    const { labels, from, to, ...rest } = parseWith(ExecutionSearchQuerySchema, query, 'query');
    const period = periodOf({ from, to });
    const page = await this.executions.search(tenant, {
      ...rest,
      // A namespace-bound caller searches its prefix (the guard refused a `namespace` outside it).
      namespacePrefix: namespacePrefixOf(request) ?? undefined,
      labels: parseLabels(labels === undefined ? [] : [labels].flat(), LABELS_FIELD, 'query'),
      createdFrom: period.from,
      createdTo: period.to,
    });
    return { results: page.results.map(executionView), total: page.total };
  }

  @Get('stats')
  @ApiOperation({
    summary:
      'The dashboard: executions created in [from, to) per state over time, success rate, durations p50/p95, the slowest and the failing flows',
  })
  @QueryParameters(ExecutionStatsQuerySchema)
  @JsonAnswer(ExecutionStatsViewSchema, { description: 'The aggregates of the period' })
  @ProblemResponses(400)
  @RequirePermission('dashboard', 'read', { namespaceFrom: 'query' })
  async stats(@TenantData() tenant: TenantRepositories, @Query() query: unknown, @Req() request: AuthenticatedRequest) {
    const parsed = parseWith(ExecutionStatsQuerySchema, query, 'query');
    // `namespace` already means the namespace and the ones under it: a bound caller gets its prefix.
    const { namespace = namespacePrefixOf(request) ?? undefined, ...period } = parsed;
    const { from, to } = statsPeriodOf(period, new Date());
    const bucketSeconds = statsBucketSeconds(from, to);
    const stats = await this.executions.stats(tenant, { from, to, namespace, bucketSeconds, topFlows: STATS_TOP_FLOWS });
    return executionStatsView({ from, to, bucketSeconds }, stats);
  }

  @RequirePermission('execution', 'write', { namespaceFrom: { executionParam: 'id' } })
  @Audit('execution.resume', { id: ':id', namespace: { executionParam: 'id' } })
  @Post(':id/resume')
  @HttpCode(204)
  @ApiOperation({ summary: 'Resume a PAUSED execution' })
  @JsonBody(ResumeBodySchema)
  @ApiResponse({ status: 204, description: 'Resume requested' })
  @ProblemResponses(400, 404, 409)
  async resume(
    @TenantData() tenant: TenantRepositories,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: HttpRequest,
  ): Promise<void> {
    const parsed = parseWith(ResumeBodySchema, bodyOrNothing(body), 'body');
    await this.executions.resume(tenant, id, parsed?.inputs, correlationIdOf(request));
  }

  @RequirePermission('execution', 'write', { namespaceFrom: { executionParam: 'id' } })
  @Audit('execution.restart', { id: ':id', namespace: { executionParam: 'id' } })
  @Post(':id/restart')
  @HttpCode(200)
  @ApiOperation({ summary: 'Restart a FAILED or KILLED execution: its failed task runs run again' })
  @JsonAnswer(ExecutionDetailViewSchema, { description: 'The execution as it was when the restart was requested' })
  @ProblemResponses(404, 409)
  async restart(
    @TenantData() tenant: TenantRepositories,
    @Param('id') id: string,
    @Req() request: AuthenticatedRequest,
  ): Promise<ExecutionDetailView> {
    return executionView(
      await this.executions.restart(tenant, id, request.principal?.tokenId ?? 'unknown', correlationIdOf(request)),
    );
  }

  @RequirePermission('execution', 'write', { namespaceFrom: { executionParam: 'id' } })
  @Audit('execution.replay', { id: '$.id', namespace: { executionParam: 'id' } })
  @Post(':id/replay')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Replay an ended execution as a new one: from `taskRunId`, the task runs before it are carried over with their outputs and the flow runs again from it; without it, the whole flow runs again',
  })
  @QueryParameters(ReplayQuerySchema)
  @JsonAnswer(ExecutionDetailViewSchema, { description: 'The new execution, in CREATED' })
  @ProblemResponses(400, 404, 409)
  async replay(
    @TenantData() tenant: TenantRepositories,
    @Param('id') id: string,
    @Query() query: unknown,
    @Req() request: HttpRequest,
  ): Promise<ExecutionDetailView> {
    const { taskRunId } = parseWith(ReplayQuerySchema, query, 'query');
    return executionView(await this.executions.replay(tenant, id, taskRunId, correlationIdOf(request)));
  }

  @RequirePermission('execution', 'write')
  @Audit('execution.create', { id: '$.id', namespace: ':namespace' })
  @Post(':namespace/:flowId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Run the latest revision of a flow' })
  @ApiConsumes('application/json', 'multipart/form-data')
  @JsonBody(NewExecutionBodySchema)
  @QueryParameters(WaitQuerySchema)
  @JsonAnswer(ExecutionDetailViewSchema, { description: 'The execution (CREATED, or ended with ?wait=true)' })
  @ProblemResponses(400, 404, 409, 413, 422)
  async create(
    @TenantData() tenant: TenantRepositories,
    @Param('namespace') namespace: string,
    @Param('flowId') flowId: string,
    @Body() body: unknown,
    @Query() query: unknown,
    @Req() request: HttpRequest,
  ): Promise<ExecutionDetailView> {
    const { wait, waitTimeout, labels } = parseWith(WaitQuerySchema, query, 'query');
    const timeoutMs = waitTimeoutMs(waitTimeout);
    const queryLabels = parseLabels(labels === undefined ? [] : [labels].flat(), LABELS_FIELD, 'query');
    let created;
    if (isMultipartForm(request)) {
      // FILE inputs are streamed to internal storage as they arrive, under the new execution's id.
      const uploads = await this.executions.fileUploads(tenant, namespace, flowId);
      try {
        const requested = newExecutionFromForm(await readMultipartForm(request, NEW_EXECUTION_BODY_LIMIT_BYTES, uploads?.parts));
        created = await this.executions.create(
          tenant,
          namespace,
          flowId,
          // Labels in the body win over the same key in the query.
          { ...requested, labels: { ...queryLabels, ...requested.labels } },
          correlationIdOf(request),
          uploads?.executionId,
        );
      } catch (error) {
        await uploads?.discard();
        throw error;
      }
    } else {
      const requested = jsonRunRequest(body);
      created = await this.executions.create(
        tenant,
        namespace,
        flowId,
        { ...requested, labels: { ...queryLabels, ...requested.labels } },
        correlationIdOf(request),
      );
    }
    if (wait !== 'true') return executionView(created);
    const aborted = new AbortController();
    request.once('close', () => aborted.abort());
    return executionView(await this.executions.follow(tenant, created.id, { timeoutMs, signal: aborted.signal, known: created }));
  }

  @RequirePermission('execution', 'read', { namespaceFrom: { executionParam: 'id' } })
  @Get(':id')
  @ApiOperation({ summary: 'An execution with its task runs and their attempts' })
  @JsonAnswer(ExecutionDetailViewSchema, { description: 'The execution, with taskRunList and outputs' })
  @ProblemResponses(404)
  async get(@TenantData() tenant: TenantRepositories, @Param('id') id: string): Promise<ExecutionDetailView> {
    return executionView(await this.executions.get(tenant, id));
  }

  @RequirePermission('file', 'read', { namespaceFrom: { executionParam: 'id' } })
  @Get(':id/file')
  @ApiOperation({ summary: 'Download a file of the execution (an output file, a FILE input) by its kestra:/// URI' })
  @QueryParameters(FileQuerySchema)
  @StreamAnswer('application/octet-stream', "The file's bytes")
  @ProblemResponses(400, 404)
  async file(
    @TenantData() tenant: TenantRepositories,
    @Param('id') id: string,
    @Query() query: unknown,
    @Res() response: HttpResponse,
  ): Promise<void> {
    const { path } = parseWith(FileQuerySchema, query, 'query');
    const file = await this.executions.openFile(tenant, id, path);
    response.statusCode = 200;
    response.setHeader('content-type', contentTypeOf(file.name));
    response.setHeader('content-length', String(file.sizeBytes));
    response.setHeader('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`);
    response.setHeader('x-content-type-options', 'nosniff');
    await pipeline(file.content, response).catch((error: unknown) => {
      // The answer has started: a failure can only cut it short.
      this.logger.warn({ executionId: id, ...errorSummary(error) }, 'file download interrupted');
      response.destroy();
    });
  }

  @RequirePermission('execution', 'write', { namespaceFrom: { executionParam: 'id' } })
  @Delete(':id/files')
  @ApiOperation({
    summary: "Purge an ended execution's files from internal storage (its FILE inputs, output files and stored outputs)",
  })
  @JsonAnswer(PurgedFilesViewSchema)
  @ProblemResponses(400, 404, 409)
  @Audit('execution.purge-files', { id: ':id', namespace: { executionParam: 'id' } })
  async purgeFiles(
    @TenantData() tenant: TenantRepositories,
    @Param('id') id: string,
  ): Promise<z.output<typeof PurgedFilesViewSchema>> {
    return { uris: await this.files.purge(tenant, id) };
  }

  @RequirePermission('file', 'read', { namespaceFrom: { executionParam: 'id' } })
  @Get(':id/file/preview')
  @ApiOperation({ summary: 'The start of a text, CSV or JSON file of the execution, for display' })
  @QueryParameters(FileQuerySchema)
  @JsonAnswer(FilePreviewViewSchema, { description: 'Up to 64 KiB of the file as text' })
  @ProblemResponses(400, 404, 422)
  async preview(
    @TenantData() tenant: TenantRepositories,
    @Param('id') id: string,
    @Query() query: unknown,
  ): Promise<z.output<typeof FilePreviewViewSchema>> {
    const { path } = parseWith(FileQuerySchema, query, 'query');
    const file = await this.executions.openFile(tenant, id, path);
    const type = previewTypeOf(file.name);
    if (type === undefined) {
      file.content.destroy();
      throw new InvalidContent('This file has no preview', [
        { path: 'path', message: 'only text (.txt, .log, .md), CSV and JSON files have a preview' },
      ]);
    }
    const head = await readHead(file.content, PREVIEW_BYTES);
    return { type, content: head.text, truncated: head.truncated || file.sizeBytes > PREVIEW_BYTES };
  }

  @RequirePermission('execution', 'write', { namespaceFrom: { executionParam: 'id' } })
  @Audit('execution.kill', { id: ':id', namespace: { executionParam: 'id' } })
  @Delete(':id/kill')
  @HttpCode(202)
  @ApiOperation({ summary: 'Kill an execution: it moves through KILLING to KILLED' })
  @ApiResponse({ status: 202, description: 'Kill requested' })
  @ProblemResponses(404, 409)
  async kill(
    @TenantData() tenant: TenantRepositories,
    @Param('id') id: string,
    @Req() request: AuthenticatedRequest,
  ): Promise<void> {
    await this.executions.kill(tenant, id, request.principal?.tokenId ?? 'unknown', correlationIdOf(request));
  }

  @RequirePermission('execution', 'read', { namespaceFrom: { executionParam: 'id' } })
  @Get(':id/follow')
  @ApiOperation({ summary: 'Server-sent events: `execution` with the execution after each change, until it ends' })
  @StreamAnswer('text/event-stream', '`execution` events, the execution after each change, then `end`')
  @ProblemResponses(404)
  async follow(
    @TenantData() tenant: TenantRepositories,
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
