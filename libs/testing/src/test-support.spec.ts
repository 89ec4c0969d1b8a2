import { createServer } from 'node:net';
import { eventually, freePort, requiredEnv } from './index';

describe('freePort', () => {
  it('gives a loopback port a server can then listen on', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });
});

describe('requiredEnv', () => {
  const name = 'LANNER_TESTING_SPEC_VARIABLE';
  afterEach(() => delete process.env[name]);

  it('gives the value, trimmed', () => {
    process.env[name] = ' postgresql://somewhere \n';
    expect(requiredEnv(name)).toBe('postgresql://somewhere');
  });

  it('names the missing or blank variable, how to get it and who needs it', () => {
    expect(() => requiredEnv(name)).toThrow(
      `${name} is not set: start the dev services (\`npm run services:up\`) or export ${name} before the integration specs`,
    );
    process.env[name] = '  ';
    expect(() => requiredEnv(name, 'the e2e suite')).toThrow(
      `${name} is not set: start the dev services (\`npm run services:up\`) or export ${name} before the e2e suite`,
    );
  });
});

describe('eventually', () => {
  it('gives the first value the probe finds, asking again until then', async () => {
    let asked = 0;
    const found = await eventually('the third answer', () => (++asked === 3 ? 'found' : undefined), { waitMs: 5_000, pollMs: 1 });
    expect(found).toBe('found');
    expect(asked).toBe(3);
  });

  it('fails naming what it waited for once the wait is over', async () => {
    await expect(eventually('a worker that never comes', () => undefined, { waitMs: 20, pollMs: 5 })).rejects.toThrow(
      'timed out waiting for a worker that never comes',
    );
    await expect(eventually('a worker that never comes', () => undefined, 20)).rejects.toThrow(
      'timed out waiting for a worker that never comes',
    );
  });

  it('fails at once when the probe throws', async () => {
    await expect(
      eventually('a process that exited', () => {
        throw new Error('the process exited with code 1');
      }),
    ).rejects.toThrow('the process exited with code 1');
  });
});
