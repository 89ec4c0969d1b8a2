import { createServer } from 'node:net';

/**
 * A TCP port free on `host` now. Standalone's local worker must know the
 * controller's port before the controller binds, so `LANNER_GRPC_PORT=0` is
 * resolved here, once, rather than by the gRPC server.
 */
export function freePortOn(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error(`no free port on ${host}`))));
    });
  });
}
