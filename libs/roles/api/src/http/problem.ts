import { HttpException } from '@nestjs/common';
import { z } from 'zod';
import { DependencyDownError } from '@lanner/runtime';
import {
  AlreadyExists,
  ConcurrentModification,
  DatabaseUnavailable,
  databaseIsUnavailable,
  InUse,
  InvalidRecord,
  NotFound,
  ReservedEntity,
} from '@lanner/repository';
import {
  Forbidden,
  InvalidContent,
  InvalidRequest,
  PayloadTooLarge,
  type ProblemEntry,
  ProblemEntrySchema,
  Unauthenticated,
  UnsupportedMediaType,
  WrongState,
  TooManyAttempts,
  NotConfigured,
} from './api-errors';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** RFC 9457 problem details, as every /api/v1 error is answered (components.schemas.Problem of the OpenAPI document). */
export const ProblemSchema = z
  .object({
    type: z.string().meta({ example: 'urn:lanner:problem:invalid-content' }),
    title: z.string().meta({ example: 'Unprocessable Content' }),
    status: z.number().int().meta({ example: 422 }),
    detail: z.string().meta({ example: 'The flow is not valid' }),
    errors: z.array(ProblemEntrySchema).readonly().optional(),
  })
  .readonly();
export type Problem = z.output<typeof ProblemSchema>;

/** A problem, and whether the error behind it is unexpected (then it is logged in full, and the client sees a generic text). */
export interface MappedProblem {
  readonly problem: Problem;
  readonly unexpected: boolean;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

const SLUGS: Record<number, string> = {
  400: 'bad-request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
  405: 'method-not-allowed',
  409: 'conflict',
  413: 'content-too-large',
  415: 'unsupported-media-type',
  422: 'invalid-content',
  429: 'rate-limited',
  500: 'internal-error',
  503: 'unavailable',
};

export function problemType(status: number): string {
  return `urn:lanner:problem:${SLUGS[status] ?? 'error'}`;
}

function problem(status: number, detail: string, errors?: readonly ProblemEntry[]): Problem {
  const base = { type: problemType(status), title: TITLES[status] ?? 'Error', status, detail };
  return errors === undefined || errors.length === 0 ? base : { ...base, errors };
}

const GENERIC_DETAIL = 'An unexpected error occurred; it has been logged.';

/**
 * Maps any error to the problem a client sees. Only messages written for
 * users pass through (the API's own errors and the repository's domain
 * errors, which carry no SQL, stack trace or secret); everything else becomes
 * a generic 500 whose cause is logged, never returned.
 */
export function problemFor(error: unknown): MappedProblem {
  const expected = (p: Problem): MappedProblem => ({ problem: p, unexpected: false });

  if (error instanceof InvalidRequest) return expected(problem(400, error.message, error.problems));
  if (error instanceof InvalidContent) return expected(problem(422, error.message, error.problems));
  if (error instanceof PayloadTooLarge) return expected(problem(413, error.message));
  if (error instanceof UnsupportedMediaType) return expected(problem(415, error.message));
  if (error instanceof Unauthenticated) return expected(problem(401, error.message));
  if (error instanceof Forbidden) return expected(problem(403, error.message));
  if (error instanceof WrongState) return expected(problem(409, error.message));
  if (error instanceof TooManyAttempts) return expected(problem(429, error.message));
  if (error instanceof NotConfigured) return expected(problem(503, error.message));

  if (error instanceof NotFound) return expected(problem(404, capitalise(error.message)));
  if (error instanceof AlreadyExists) return expected(problem(409, capitalise(error.message)));
  if (error instanceof ConcurrentModification)
    return expected(problem(409, `${capitalise(error.entity)} '${error.id}' was changed at the same time; try again`));
  if (error instanceof InUse) return expected(problem(409, capitalise(error.message)));
  if (error instanceof ReservedEntity) return expected(problem(403, capitalise(error.message)));
  if (error instanceof InvalidRecord) return expected(problem(422, capitalise(error.message)));
  // Their messages name the dependency, never its address or credentials.
  // A database that is down, restarting or out of connections (a pool or transaction-start timeout under load) passes.
  if (error instanceof DatabaseUnavailable || error instanceof DependencyDownError || databaseIsUnavailable(error)) {
    return expected(problem(503, 'A service the API depends on is unavailable; try again shortly'));
  }

  if (error instanceof HttpException) return expected(fromHttpException(error));
  const bodyFailure = bodyParserFailure(error);
  if (bodyFailure !== undefined) return expected(bodyFailure);

  return { problem: problem(500, GENERIC_DETAIL), unexpected: true };
}

// Nest's own exceptions: unknown routes, and the body parser's errors that Nest
// turns into BadRequestException (their text may quote the body, so it is not echoed).
function fromHttpException(error: HttpException): Problem {
  const status = error.getStatus();
  if (status === 404) return problem(404, 'No such resource');
  if (status === 400) return problem(400, 'The request body could not be read (malformed JSON or encoding)');
  if (status === 413) return problem(413, 'The request body is too large');
  if (status >= 500) return problem(status, GENERIC_DETAIL);
  return problem(status, TITLES[status] ?? 'The request was refused');
}

/**
 * The platform's body parser fails before any route runs, with plain errors
 * carrying a 4xx `status` and often a `type` (e.g. `entity.too.large`). Their
 * messages may quote the body, so each kind gets a sentence of ours.
 */
function bodyParserFailure(error: unknown): Problem | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, type, code } = error as { status?: unknown; type?: unknown; code?: unknown };
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  if (type === 'entity.too.large') return problem(413, 'The request body is too large');
  if (type === 'encoding.unsupported')
    return problem(415, 'The request body has a Content-Encoding this API does not read (use gzip, deflate, br or none)');
  if (type === 'charset.unsupported') return problem(415, 'The request body has a charset this API does not read (use utf-8)');
  // zlib's codes (Z_DATA_ERROR, Z_BUF_ERROR...): the body is not what its Content-Encoding says.
  if (typeof code === 'string' && code.startsWith('Z_'))
    return problem(400, 'The request body could not be decoded as its Content-Encoding says');
  if (typeof type === 'string' || status === 400)
    return problem(400, 'The request body could not be read (malformed JSON or encoding)');
  return undefined;
}

function capitalise(text: string): string {
  return text.length === 0 ? text : text[0].toUpperCase() + text.slice(1);
}
