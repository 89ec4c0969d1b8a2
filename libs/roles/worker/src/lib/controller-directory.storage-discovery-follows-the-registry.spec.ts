import type { Endpoint } from '@lanner/runtime';
import { ControllerDirectory, type ControllerResolver, type ResolvedControllers } from './controller-directory';

const unusedResolver: ControllerResolver = {
  resolve4: () => Promise.reject(new Error('STORAGE discovery asks no DNS question')),
  resolve6: () => Promise.reject(new Error('STORAGE discovery asks no DNS question')),
  resolveSrv: () => Promise.reject(new Error('STORAGE discovery asks no DNS question')),
  lookup: () => Promise.reject(new Error('STORAGE discovery asks no DNS question')),
};
const endpoint = (host: string, port: number): Endpoint => ({ host, port });

describe('STORAGE discovery', () => {
  it('starts with no controller, picks up one registered later, and follows the registry as controllers come and go', async () => {
    let registered: ResolvedControllers = { endpoints: [], problems: ['no live controller entry in internal storage'] };
    let now = 0;
    const directory = new ControllerDirectory({
      mode: 'STORAGE',
      entries: [],
      refreshMs: 1_000,
      resolver: unusedResolver,
      registry: () => Promise.resolve(registered),
      now: () => now,
    });

    expect(await directory.current()).toEqual({ endpoints: [], problems: ['no live controller entry in internal storage'] });
    registered = { endpoints: [endpoint('10.0.0.1', 9090)], problems: [] };
    now = 500;
    expect((await directory.current()).endpoints).toEqual([]); // read again only once the refresh period passed
    now = 1_000;
    expect((await directory.current()).endpoints).toEqual([endpoint('10.0.0.1', 9090)]);
    registered = { endpoints: [endpoint('10.0.0.1', 9090), endpoint('10.0.0.2', 9090)], problems: [] };
    now = 2_000;
    expect((await directory.current()).endpoints).toEqual([endpoint('10.0.0.1', 9090), endpoint('10.0.0.2', 9090)]);
    registered = { endpoints: [endpoint('10.0.0.2', 9090)], problems: [] };
    now = 3_000;
    expect((await directory.current()).endpoints).toEqual([endpoint('10.0.0.2', 9090)]);
  });

  it('keeps the last list when the store cannot be read, saying why', async () => {
    let failing = false;
    let now = 0;
    const directory = new ControllerDirectory({
      mode: 'STORAGE',
      entries: [],
      refreshMs: 1_000,
      resolver: unusedResolver,
      registry: () =>
        failing
          ? Promise.reject(new Error('connect ECONNREFUSED'))
          : Promise.resolve({ endpoints: [endpoint('10.0.0.1', 9090)], problems: [] }),
      now: () => now,
    });
    expect((await directory.current()).endpoints).toEqual([endpoint('10.0.0.1', 9090)]);
    failing = true;
    now = 1_000;
    expect(await directory.current()).toEqual({
      endpoints: [endpoint('10.0.0.1', 9090)],
      problems: ['cannot read the controllers registered in internal storage: connect ECONNREFUSED'],
    });
  });
});
