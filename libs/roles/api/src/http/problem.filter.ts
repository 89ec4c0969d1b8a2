import { ArgumentsHost, Catch, Logger } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { errorSummary } from '@lanner/runtime';
import type { HttpRequest, HttpResponse } from './http-types';
import { PROBLEM_MEDIA_TYPE, problemFor } from './problem';

/** The path prefix this filter answers for; other routes (health, other roles) keep Nest's default handling. */
export const API_PATH_PREFIX = '/api/';

/**
 * The one place where errors of the REST API become HTTP answers: RFC 9457
 * problem details. Unexpected errors are logged with their cause and answered
 * with a generic 500, so no stack trace, SQL or secret reaches a client.
 */
@Catch()
export class ProblemFilter extends BaseExceptionFilter {
  private readonly logger = new Logger(ProblemFilter.name);

  override catch(error: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') return super.catch(error, host);
    const http = host.switchToHttp();
    const request = http.getRequest<HttpRequest>();
    const response = http.getResponse<HttpResponse>();
    // Routing ignores case (`/API/v1/...` reaches the API's handlers), so this check does too.
    const path = (request.originalUrl ?? request.url ?? '').toLowerCase();
    if (!path.startsWith(API_PATH_PREFIX)) return super.catch(error, host);

    const { problem, unexpected } = problemFor(error);
    // The kind and the first line of the message only: a stack trace, or a driver's query text, never reaches a log.
    if (unexpected)
      this.logger.error({ ...errorSummary(error), method: request.method, path: request.path }, 'request failed unexpectedly');
    // A streaming answer (SSE) that already started cannot become a problem; end it.
    if (response.headersSent) {
      response.end();
      return;
    }
    response.statusCode = problem.status;
    response.setHeader('Content-Type', `${PROBLEM_MEDIA_TYPE}; charset=utf-8`);
    response.end(JSON.stringify(problem));
  }
}
