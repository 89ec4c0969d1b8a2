import { createServer } from 'node:net';

/**
 * A TCP port nothing listens on right now, on `host` (loopback by default): the
 * OS picks it, so parallel specs do not collide.
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
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
