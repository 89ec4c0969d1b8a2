/**
 * A failure the developer can act on; the CLI prints its message as one line
 * (no stack trace), so the message must name what is missing and what to do.
 */
export class DevServicesError extends Error {
  override readonly name = 'DevServicesError';
}
