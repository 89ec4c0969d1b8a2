import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiProduces, ApiResponse } from '@nestjs/swagger';
import { PROBLEM_MEDIA_TYPE } from '../http/problem';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed request (each problem with its JSON path)',
  401: 'No or bad API token',
  403: 'The token lacks the permission the route needs (named in the detail)',
  404: 'Unknown resource',
  409: 'Conflict (exists, or wrong state)',
  413: 'Body too large',
  415: 'Unsupported media type',
  422: 'Invalid content (each problem with its path, and its line for YAML)',
};

/** Documents the problem+json answers of a route; 401 is added to every authenticated route. */
export function ProblemResponses(...statuses: number[]): MethodDecorator {
  return applyDecorators(
    ...[401, ...statuses].map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status] ?? 'Error',
        content: { [PROBLEM_MEDIA_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
      }),
    ),
  );
}

/** Marks a controller as needing `Authorization: Bearer <token>`. */
export const BearerAuth = () => ApiBearerAuth();

/**
 * A flow's YAML source as the body. The media type goes through ApiConsumes:
 * the `content` of an ApiBody is dropped when the document is built.
 */
export function YamlBody(): MethodDecorator {
  return applyDecorators(
    ApiConsumes('application/x-yaml'),
    ApiBody({ required: true, description: 'The flow in YAML (at most 1 MiB)', schema: { type: 'string' } }),
  );
}

/**
 * An answer that is not JSON: a file's bytes (`application/octet-stream`) or
 * server-sent events (`text/event-stream`, each event's data a JSON document).
 */
export function StreamAnswer(mediaType: 'application/octet-stream' | 'text/event-stream', description: string): MethodDecorator {
  const schema = mediaType === 'application/octet-stream' ? { type: 'string', format: 'binary' } : { type: 'string' };
  return applyDecorators(ApiProduces(mediaType), ApiResponse({ status: 200, description, content: { [mediaType]: { schema } } }));
}
