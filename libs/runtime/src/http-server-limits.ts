import type { Server } from 'node:http';

/** The HTTP server's limits on slow or many clients (LANNER_HTTP_* in the variable table). */
export interface HttpServerLimits {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxConnections: number;
}

/**
 * Applies the limits to a role's HTTP server before it listens. Node checks
 * the header and request timeouts on an interval (30 s by default), which
 * would let a slow client overstay a short timeout by that much; the interval
 * is tied to the shorter timeout instead. The interval is read when the server
 * starts listening, so this must run before `listen`.
 */
export function applyHttpServerLimits(server: Server, limits: HttpServerLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  // Node requires the request timeout to be at least the headers timeout.
  server.requestTimeout = Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  const checking = server as Server & { connectionsCheckingInterval: number };
  checking.connectionsCheckingInterval = Math.max(250, Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4);
}
