import { DependencyDownError } from './readiness-checks';

export class DependencyTimeoutError extends DependencyDownError {}

export async function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DependencyTimeoutError(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a client of `/health/ready` may see about a failed dependency. */
export function describeFailure(error: unknown): string {
  if (error instanceof DependencyDownError) return error.message;
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  // Error codes (ECONNREFUSED, 28P01, ...) identify the cause without revealing anything.
  if (typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code)) return `did not answer (${code})`;
  return 'did not answer';
}
