/**
 * An error the CLI reports as one line on stderr (never a stack trace), with the
 * process exit code it stands for.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    readonly details: readonly string[] = [],
  ) {
    super(message);
  }
}

/** What the API answered when it refused a request (RFC 9457 problem details). */
export interface ProblemDetail {
  readonly type?: string;
  readonly title?: string;
  readonly status?: number;
  readonly detail?: string;
  readonly errors?: readonly { path: string; message: string; line?: number }[];
}

/** The API answered with an error status; the message is the problem's title and detail. */
export class ApiProblem extends CliError {
  constructor(
    readonly status: number,
    readonly problem: ProblemDetail,
  ) {
    super(
      `${status} ${problem.title ?? 'error'}${problem.detail ? `: ${problem.detail}` : ''}`,
      1,
      (problem.errors ?? []).map(
        (entry) => `${entry.path || '(document)'}: ${entry.message}${entry.line === undefined ? '' : ` (line ${entry.line})`}`,
      ),
    );
  }
}
