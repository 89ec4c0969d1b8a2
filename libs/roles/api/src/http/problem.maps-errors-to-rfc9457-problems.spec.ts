import { BadRequestException, NotFoundException } from '@nestjs/common';
import { DependencyDownError } from '@lanner/runtime';
import { AlreadyExists, ConcurrentModification, ExecutionNotFound, FlowNotFound } from '@lanner/repository';
import { InvalidContent, InvalidRequest, PayloadTooLarge, Unauthenticated, WrongState } from './api-errors';
import { problemFor } from './problem';

describe('problemFor', () => {
  it('maps domain errors to their status with a readable detail', () => {
    expect(problemFor(new FlowNotFound('company.team', 'hello')).problem).toEqual({
      type: 'urn:lanner:problem:not-found',
      title: 'Not Found',
      status: 404,
      detail: "Flow 'company.team.hello' does not exist",
    });
    expect(problemFor(new ExecutionNotFound('e-1')).problem.status).toBe(404);
    expect(problemFor(new AlreadyExists('flow', 'company.team.hello')).problem).toMatchObject({ status: 409, title: 'Conflict' });
    expect(problemFor(new ConcurrentModification('execution', 'e-1', 3)).problem.status).toBe(409);
    expect(problemFor(new WrongState('Execution e-1 is RUNNING, not PAUSED')).problem).toMatchObject({
      status: 409,
      detail: 'Execution e-1 is RUNNING, not PAUSED',
    });
  });

  it('lists each problem of invalid content and of a malformed request with its path', () => {
    const flow = problemFor(
      new InvalidContent('The flow is not valid', [
        { path: 'tasks[2].workerSelector.fallback', message: 'unknown value', line: 14 },
      ]),
    );
    expect(flow.problem).toEqual({
      type: 'urn:lanner:problem:invalid-content',
      title: 'Unprocessable Content',
      status: 422,
      detail: 'The flow is not valid',
      errors: [{ path: 'tasks[2].workerSelector.fallback', message: 'unknown value', line: 14 }],
    });
    expect(
      problemFor(new InvalidRequest('The body is not valid', [{ path: 'labels.team', message: 'Expected string' }])).problem,
    ).toMatchObject({
      status: 400,
      errors: [{ path: 'labels.team' }],
    });
  });

  it('answers 401, 400, 413, 415 and 503 for auth, encodings, size and unavailable dependencies', () => {
    expect(problemFor(new Unauthenticated('Send an API token')).problem.status).toBe(401);
    expect(problemFor(new PayloadTooLarge(1024)).problem.status).toBe(413);
    expect(
      problemFor(Object.assign(new Error('request entity too large'), { status: 413, type: 'entity.too.large' })).problem.status,
    ).toBe(413);
    // body-parser: a body labelled gzip that is not gzip (zlib's error, given status 400), and an unknown coding.
    const notGzip = problemFor(Object.assign(new Error('incorrect header check'), { status: 400, code: 'Z_DATA_ERROR' })).problem;
    expect(notGzip).toMatchObject({ status: 400, detail: 'The request body could not be decoded as its Content-Encoding says' });
    expect(
      problemFor(Object.assign(new Error('unsupported content encoding "snappy"'), { status: 415, type: 'encoding.unsupported' }))
        .problem.status,
    ).toBe(415);
    const down = problemFor(new DependencyDownError('database is not connected yet'));
    expect(down.problem.status).toBe(503);
    expect(down.unexpected).toBe(false);
    // Prisma under load: a transaction that could not start in time (P2028) or a pool timeout (P2024) is a 503, not a 500.
    for (const code of ['P2028', 'P2024']) {
      const busy = problemFor(
        Object.assign(new Error('Transaction API error: Unable to start a transaction in the given time.'), {
          name: 'PrismaClientKnownRequestError',
          code,
        }),
      );
      expect(busy).toMatchObject({ problem: { status: 503 }, unexpected: false });
    }
  });

  it("never passes on the text of an error it does not know, nor a body parser's message", () => {
    const unknown = problemFor(
      new Error('duplicate key value violates unique constraint "flows_pkey" SELECT * FROM flows password=hunter2'),
    );
    expect(unknown.unexpected).toBe(true);
    expect(unknown.problem).toEqual({
      type: 'urn:lanner:problem:internal-error',
      title: 'Internal Server Error',
      status: 500,
      detail: 'An unexpected error occurred; it has been logged.',
    });
    expect(
      JSON.stringify(problemFor(new BadRequestException('Unexpected token } in JSON at position 12: {"secret":"x"}')).problem),
    ).not.toContain('secret');
    expect(problemFor(new NotFoundException('Cannot GET /api/v1/nope')).problem).toMatchObject({
      status: 404,
      detail: 'No such resource',
    });
  });
});
