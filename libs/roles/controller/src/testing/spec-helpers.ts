import { createServer } from 'node:net';

// Small helpers shared by the controller's integration specs.

/** A variable the integration specs need from the dev services (tools/jest/int-env.js sets them). */
export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: start the dev services (\`npm run services:up\`) or export ${name} before the integration specs`);
  return value;
}

/** A TCP port nothing listens on right now (on 127.0.0.1). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface EventuallyOptions {
  /** Give up (and fail, naming `what`) after this long. */
  readonly waitMs: number;
  /** How often to ask the probe again. */
  readonly pollMs: number;
}

/**
 * Returns the first value other than `undefined` the probe gives, asking again
 * every `pollMs`; fails with "timed out waiting for <what>" after `waitMs`.
 */
export async function eventually<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, options: EventuallyOptions): Promise<T> {
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(options.pollMs);
  }
}
