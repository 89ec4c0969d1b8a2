import { randomUUID } from 'node:crypto';
import {
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  Inject,
  Injectable,
  Logger,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type Observable, tap } from 'rxjs';
import { type AuditEntryMessage, auditEntryCodec, encodeQueueMessage } from '@lanner/frames';
import type { QueuePort } from '@lanner/queue';
import type { Repositories } from '@lanner/repository';
import { errorSummary, QUEUE, REPOSITORIES } from '@lanner/runtime';
import { API_TOPICS, type ApiTopics } from '../api-topics';
import type { ApiPrincipal } from '../auth/api-token-auth';
import { correlationIdOf } from '../http/correlation';
import type { HttpRequest, HttpResponse } from '../http/http-types';
import { type AuditDeclaration, type AuditValue, type DeclaredAudit, isAudited, ROUTE_AUDIT } from './audit.decorator';

/** What the trail keeps on a request of an audited route until it is answered. */
interface AuditedRequest extends HttpRequest {
  principal?: ApiPrincipal;
  ip?: string;
  auditAnswer?: unknown;
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function actorOf(principal: ApiPrincipal | undefined): AuditEntryMessage['payload']['actor'] {
  if (principal === undefined) return { type: 'anonymous', id: null, name: null };
  if (principal.userId !== undefined) return { type: 'user', id: principal.userId, name: principal.tokenName };
  return { type: 'api-token', id: principal.tokenId, name: principal.tokenName };
}

/** success below 400; denied for 401 and 403 (no token, a missing permission or namespace); failure otherwise. */
function outcomeOf(status: number): AuditEntryMessage['payload']['outcome'] {
  if (status === 401 || status === 403) return 'denied';
  return status < 400 ? 'success' : 'failure';
}

/**
 * Publishes one `audit.entry` per request to an audited route, once it is
 * answered (the status is then known). Ids come from the path and from the
 * answer only, never from the request body; a failed publish is logged by
 * action and never changes the answer.
 */
@Injectable()
export class AuditTrail {
  private readonly logger = new Logger(AuditTrail.name);

  constructor(
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(API_TOPICS) private readonly topics: ApiTopics,
  ) {}

  /** Records the request's entry when its response closes (answered, or cut short by the client). */
  follow(declaration: AuditDeclaration, request: AuditedRequest, response: HttpResponse): void {
    response.once('close', () => {
      void this.record(declaration, request, response).catch((error: unknown) => {
        this.logger.error({ action: declaration.action, ...errorSummary(error) }, 'could not record an audit entry');
      });
    });
  }

  private async record(declaration: AuditDeclaration, request: AuditedRequest, response: HttpResponse): Promise<void> {
    const status = response.writableFinished ? response.statusCode : 499;
    const tenantId = textOf(request.params?.['tenant']) ?? null;
    const parts = await Promise.all(declaration.id.map((value) => this.valueOf(value, request, tenantId)));
    const resourceId = parts.every((part) => part !== undefined) ? parts.join('/') : null;
    const namespace =
      declaration.namespace === undefined ? null : ((await this.valueOf(declaration.namespace, request, tenantId)) ?? null);
    const message: AuditEntryMessage = {
      schemaVersion: 1,
      messageId: randomUUID(),
      type: 'audit.entry',
      occurredAt: new Date().toISOString(),
      correlationId: correlationIdOf(request),
      payload: {
        tenantId,
        action: declaration.action,
        resourceType: declaration.resourceType,
        resourceId,
        namespace,
        actor: actorOf(request.principal),
        clientIp: textOf(request.ip) ?? textOf(request.socket?.remoteAddress) ?? null,
        userAgent: textOf(request.headers['user-agent']) ?? null,
        outcome: outcomeOf(status),
        status,
      },
    };
    await this.queue.publish(this.topics.audit, [encodeQueueMessage(auditEntryCodec, message)]);
  }

  private async valueOf(value: AuditValue, request: AuditedRequest, tenantId: string | null): Promise<string | undefined> {
    if (value === 'caller') return request.principal?.userId === undefined ? undefined : request.principal.tokenName;
    if (typeof value === 'object') {
      const executionId = textOf(request.params?.[value.executionParam]);
      if (executionId === undefined || tenantId === null) return undefined;
      // An unknown execution (the request's 404) has no namespace to record.
      return this.repositories.executions.get(tenantId, executionId).then(
        (execution) => execution.namespace,
        () => undefined,
      );
    }
    if (value.startsWith(':')) return textOf(request.params?.[value.slice(1)]);
    const answer = request.auditAnswer;
    if (typeof answer !== 'object' || answer === null) return undefined;
    return textOf((answer as Record<string, unknown>)[value.slice(2)]);
  }
}

function declaredAudit(reflector: Reflector, context: ExecutionContext): DeclaredAudit | undefined {
  return reflector.getAllAndOverride<DeclaredAudit | undefined>(ROUTE_AUDIT, [context.getHandler(), context.getClass()]);
}

/**
 * Registered before the access guard, so that a request it refuses is recorded
 * too: it only follows the request, it never refuses one.
 */
@Injectable()
export class AuditTrailGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly trail: AuditTrail,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const declared = declaredAudit(this.reflector, context);
    if (!isAudited(declared)) return true;
    const http = context.switchToHttp();
    this.trail.follow(declared, http.getRequest<AuditedRequest>(), http.getResponse<HttpResponse>());
    return true;
  }
}

/** Keeps the handler's answer of an audited route, for the ids it holds (a created resource's). */
@Injectable()
export class AuditAnswerInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http' || !isAudited(declaredAudit(this.reflector, context))) return next.handle();
    const request = context.switchToHttp().getRequest<AuditedRequest>();
    return next.handle().pipe(tap((answer) => (request.auditAnswer = answer)));
  }
}
