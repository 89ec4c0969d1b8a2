import { AdapterPool, ManagedAdapter } from './adapter-pool';
import { openReconnecting } from './reconnecting-adapter';

class RecordingAdapter implements ManagedAdapter {
  closed = 0;
  async ping(): Promise<void> {
    return undefined;
  }
  async close(): Promise<void> {
    this.closed += 1;
  }
}

describe('adapter pool', () => {
  it('gives every holder of one key the same adapter and closes it once, after the last release', async () => {
    const pool = new AdapterPool();
    let opened = 0;
    const open = async () => {
      opened += 1;
      return new RecordingAdapter();
    };
    const first = await pool.acquire('queue:in-process', open);
    const second = await pool.acquire('queue:in-process', open);
    expect(second).toBe(first);
    expect(opened).toBe(1);

    await pool.release('queue:in-process');
    expect(first.closed).toBe(0);
    await pool.release('queue:in-process');
    expect(first.closed).toBe(1);
  });

  it('opens again after a failed open', async () => {
    const pool = new AdapterPool();
    await expect(pool.acquire('database:x', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await expect(pool.acquire('database:x', async () => new RecordingAdapter())).resolves.toBeInstanceOf(RecordingAdapter);
  });
});

describe('adapter whose dependency is down at start', () => {
  interface Repositories extends ManagedAdapter {
    flows: { count(): number };
  }

  it('reports the dependency down, then opens it at a later readiness check', async () => {
    let databaseUp = false;
    const failures: unknown[] = [];
    const repositories = await openReconnecting<Repositories>({
      dependency: 'database',
      open: async () => {
        if (!databaseUp) throw new Error('ECONNREFUSED');
        return { flows: { count: () => 3 }, ping: async () => undefined, close: async () => undefined };
      },
      onOpenFailed: (error) => failures.push(error),
    });

    expect(() => repositories.flows).toThrow('database is not connected yet');
    await expect(repositories.ping()).rejects.toThrow('ECONNREFUSED');
    expect(failures).toHaveLength(2);

    databaseUp = true;
    await expect(repositories.ping()).resolves.toBeUndefined();
    expect(repositories.flows.count()).toBe(3);
  });
});
