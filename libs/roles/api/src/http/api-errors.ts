import { z } from 'zod';

// Errors raised by the API's own edges (request parsing, auth, state checks).
// Domain errors from the libraries are mapped by problemFor() as they are.

/** One problem in a request or a flow: where (a JSON or YAML path) and what. */
export const ProblemEntrySchema = z
  .object({
    path: z.string().meta({ example: 'tasks[2].workerSelector.fallback' }),
    message: z.string(),
    line: z.number().int().describe('1-based line in the YAML source, for flow problems').optional(),
    column: z.number().int().optional(),
    severity: z
      .literal('WARNING')
      .describe('Set on what is accepted but deprecated (flow validation); a problem without it refuses the flow')
      .optional(),
  })
  .readonly();
export type ProblemEntry = z.output<typeof ProblemEntrySchema>;

export abstract class ApiError extends Error {
  protected constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The request is malformed: a body or query that does not match its schema (400). */
export class InvalidRequest extends ApiError {
  constructor(
    message: string,
    readonly problems: readonly ProblemEntry[] = [],
  ) {
    super(message);
  }
}

/** The content is well-formed but invalid: a flow that does not validate, inputs that do not fit the flow (422). */
export class InvalidContent extends ApiError {
  constructor(
    message: string,
    readonly problems: readonly ProblemEntry[],
  ) {
    super(message);
  }
}

/** The body is larger than the endpoint accepts (413). */
export class PayloadTooLarge extends ApiError {
  constructor(readonly limitBytes: number) {
    super(`the request body is larger than ${limitBytes} bytes`);
  }
}

/** The endpoint does not read bodies of this media type (415). */
export class UnsupportedMediaType extends ApiError {
  constructor(message: string) {
    super(message);
  }
}

/** No, or an unknown, revoked or expired bearer token (401). The message never repeats the token. */
export class Unauthenticated extends ApiError {
  constructor(message: string) {
    super(message);
  }
}

/** The token is valid but may not act on this tenant or route (403). */
export class Forbidden extends ApiError {
  constructor(message: string) {
    super(message);
  }
}

/** The resource is in a state that does not allow the request, e.g. resuming an execution that is not paused (409). */
export class WrongState extends ApiError {
  constructor(message: string) {
    super(message);
  }
}

/** Too many attempts (a locked login): refused until the time the message names (429). */
export class TooManyAttempts extends ApiError {
  constructor(message: string) {
    super(message);
  }
}

/** A feature the process was not configured for, e.g. user login without a signing key (503). */
export class NotConfigured extends ApiError {
  constructor(message: string) {
    super(message);
  }
}
