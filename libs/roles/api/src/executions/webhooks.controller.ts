import { createHash, timingSafeEqual } from 'node:crypto';
import { Body, Controller, Get, HttpCode, Param, Post, Put, Query, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Flow, StoredJson } from '@lanner/model';
import { FlowNotFound } from '@lanner/repository';
import { Public } from '../auth/route-access.decorator';
import { WrongState } from '../http/api-errors';
import { correlationIdOf } from '../http/correlation';
import type { HttpRequest } from '../http/http-types';
import { readTextBody } from '../http/request-body';
import { ProblemResponses } from '../openapi/api-docs.decorators';
import { JsonAnswer } from '../openapi/zod-openapi';
import { type ExecutionDetailView, ExecutionDetailViewSchema, executionView } from './execution-view';
import { ExecutionsService } from './executions.service';
import type { TenantRepositories } from '@lanner/repository';
import { TenantData, TenantPath } from '../auth/tenant-data.decorator';
import { Audit } from '../audit/audit.decorator';

/** The largest webhook body read (a JSON body is bounded by the framework's own limit). */
export const WEBHOOK_BODY_LIMIT_BYTES = 1024 * 1024;
const WAIT_MS = 60_000;
const WEBHOOK_BODY = {
  required: false,
  description: 'Any JSON (parsed) or text (kept as a string): trigger.body',
  schema: {},
} as const;
/** Request headers never stored with the execution: credentials of the caller. */
const UNSTORED_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** The key compared in constant time: both sides hashed first, so their lengths say nothing either. */
function sameKey(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Webhook triggers: a request to the flow's webhook URL starts an execution,
 * with the body, headers and query parameters in `trigger.body`,
 * `trigger.headers` and `trigger.parameters`. No bearer token: the key in the
 * URL is the secret. A wrong key answers as an unknown flow does (404).
 */
@ApiTags('executions')
// No token: the trigger's key in the URL is the secret, compared in constant time.
@Public()
@TenantPath()
@Controller('api/v1/:tenant/executions/webhook')
export class WebhooksController {
  constructor(private readonly executions: ExecutionsService) {}

  // A GET that starts an execution: audited like the other methods (the key, a secret, is never recorded).
  @Audit('execution.webhook', { id: '$.id', namespace: ':namespace' })
  @Get(':namespace/:flowId/:key')
  @HttpCode(200)
  @ApiOperation({ summary: 'Start an execution through a Webhook trigger (no body; the key is the secret)' })
  @ApiQuery({ name: 'wait', required: false, description: 'true: answer when the execution ends (up to 60 s)' })
  @JsonAnswer(ExecutionDetailViewSchema, { description: 'The execution (CREATED, or ended with ?wait=true)' })
  @ProblemResponses(404, 409)
  get(
    @TenantData() tenant: TenantRepositories,
    @Param('namespace') namespace: string,
    @Param('flowId') flowId: string,
    @Param('key') key: string,
    @Query() query: Record<string, unknown>,
    @Req() request: HttpRequest,
  ) {
    return this.trigger(tenant, namespace, flowId, key, undefined, query, request);
  }

  @Audit('execution.webhook', { id: '$.id', namespace: ':namespace' })
  @Post(':namespace/:flowId/:key')
  @HttpCode(200)
  @ApiOperation({ summary: 'Start an execution through a Webhook trigger, the body in trigger.body (the key is the secret)' })
  @ApiQuery({ name: 'wait', required: false, description: 'true: answer when the execution ends (up to 60 s)' })
  @JsonAnswer(ExecutionDetailViewSchema, { description: 'The execution (CREATED, or ended with ?wait=true)' })
  @ApiConsumes('application/json', 'text/plain')
  @ApiBody(WEBHOOK_BODY)
  @ProblemResponses(404, 409, 413)
  post(
    @TenantData() tenant: TenantRepositories,
    @Param('namespace') namespace: string,
    @Param('flowId') flowId: string,
    @Param('key') key: string,
    @Body() body: unknown,
    @Query() query: Record<string, unknown>,
    @Req() request: HttpRequest,
  ) {
    return this.trigger(tenant, namespace, flowId, key, body, query, request);
  }

  @Audit('execution.webhook', { id: '$.id', namespace: ':namespace' })
  @Put(':namespace/:flowId/:key')
  @HttpCode(200)
  @ApiOperation({ summary: 'Start an execution through a Webhook trigger, the body in trigger.body (the key is the secret)' })
  @ApiQuery({ name: 'wait', required: false, description: 'true: answer when the execution ends (up to 60 s)' })
  @JsonAnswer(ExecutionDetailViewSchema, { description: 'The execution (CREATED, or ended with ?wait=true)' })
  @ApiConsumes('application/json', 'text/plain')
  @ApiBody(WEBHOOK_BODY)
  @ProblemResponses(404, 409, 413)
  put(
    @TenantData() tenant: TenantRepositories,
    @Param('namespace') namespace: string,
    @Param('flowId') flowId: string,
    @Param('key') key: string,
    @Body() body: unknown,
    @Query() query: Record<string, unknown>,
    @Req() request: HttpRequest,
  ) {
    return this.trigger(tenant, namespace, flowId, key, body, query, request);
  }

  private async trigger(
    tenant: TenantRepositories,
    namespace: string,
    flowId: string,
    key: string,
    parsedBody: unknown,
    query: Record<string, unknown>,
    request: HttpRequest,
  ): Promise<ExecutionDetailView> {
    const body = await this.bodyOf(request, parsedBody);
    const headers: Record<string, StoredJson> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (!UNSTORED_HEADERS.has(name) && value !== undefined) headers[name] = [value].flat();
    }
    const parameters: Record<string, StoredJson> = {};
    for (const [name, value] of Object.entries(query)) {
      if (name !== 'wait' && value !== undefined) parameters[name] = [value].flat().map(String);
    }
    // Triggers disabled through the API, read before the flow so the check below stays synchronous.
    const rows = await tenant.triggers.search({ namespace, flowId, page: 1, size: 1000 });
    const disabledByApi = new Set(
      rows.results.filter((row) => row.namespace === namespace && row.disabled).map((row) => row.triggerId),
    );
    const created = await this.executions.create(
      tenant,
      namespace,
      flowId,
      {
        inputs: {},
        labels: {},
        triggeredBy: (flow: Flow): StoredJson => {
          const trigger = flow.triggers.find((candidate) => candidate.kind === 'Webhook' && sameKey(key, candidate.key));
          // A wrong key answers exactly as an unknown flow does.
          if (trigger === undefined) throw new FlowNotFound(namespace, flowId);
          if (trigger.disabled || flow.disabled || disabledByApi.has(trigger.id)) {
            throw new WrongState(`The webhook trigger '${trigger.id}' of ${namespace}.${flowId} is disabled`);
          }
          return { id: trigger.id, type: trigger.type, variables: { body, headers, parameters } };
        },
      },
      correlationIdOf(request),
    );
    if (query['wait'] !== 'true') return executionView(created);
    return executionView(await this.executions.follow(tenant, created.id, { timeoutMs: WAIT_MS, known: created }));
  }

  private async bodyOf(request: HttpRequest, parsedBody: unknown): Promise<StoredJson> {
    const method = (request.method ?? 'GET').toUpperCase();
    if (method === 'GET') return null;
    // JSON is parsed by the framework (within its own size limit); anything else is read as text.
    if (/^application\/([\w.+-]+\+)?json\b/i.test(request.headers['content-type'] ?? ''))
      return (parsedBody ?? null) as StoredJson;
    const text = await readTextBody(request, WEBHOOK_BODY_LIMIT_BYTES);
    return text === '' ? null : text;
  }
}
