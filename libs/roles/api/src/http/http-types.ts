import type { IncomingMessage, ServerResponse } from 'node:http';

// The parts of the HTTP platform's (Express's) request and response this
// role uses, typed over Node's own classes: Express is what Nest runs on, not
// a dependency of this library.

export interface HttpRequest extends IncomingMessage {
  readonly originalUrl?: string;
  readonly path?: string;
  readonly params?: Record<string, string>;
  /** Parsed by the platform for JSON requests; absent otherwise. */
  readonly body?: unknown;
}

export type HttpResponse = ServerResponse;
