import type { Endpoint } from '@lanner/runtime';
import {
  ControllerDirectory,
  nextController,
  resolveControllers,
  type ControllerResolver,
  type SrvAnswer,
} from './controller-directory';

function notFound(name: string): Error {
  return Object.assign(new Error(`queryA ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
}

/** A resolver that answers from tables; a name it does not know fails as DNS would. */
function fakeResolver(tables: {
  a?: Record<string, string[]>;
  aaaa?: Record<string, string[]>;
  srv?: Record<string, SrvAnswer[]>;
  hosts?: Record<string, string[]>;
}) {
  const asked: string[] = [];
  const answer = <T>(table: Record<string, T[]> | undefined, name: string, kind: string): Promise<T[]> => {
    asked.push(`${kind} ${name}`);
    const found = table?.[name];
    return found ? Promise.resolve(found) : Promise.reject(notFound(name));
  };
  const resolver: ControllerResolver = {
    resolve4: (host) => answer(tables.a, host, 'A'),
    resolve6: (host) => answer(tables.aaaa, host, 'AAAA'),
    resolveSrv: (name) => answer(tables.srv, name, 'SRV'),
    lookup: (host) => answer(tables.hosts, host, 'lookup'),
  };
  return { resolver, asked };
}

const entry = (host: string, port: number): Endpoint => ({ host, port });

describe('controller discovery', () => {
  it('STATIC keeps the endpoints as given, in order, without asking DNS', async () => {
    const { resolver, asked } = fakeResolver({});
    const resolved = await resolveControllers('STATIC', [entry('c1.example', 9090), entry('10.0.0.2', 9091)], resolver);
    expect(resolved.endpoints).toEqual([entry('c1.example', 9090), entry('10.0.0.2', 9091)]);
    expect(asked).toEqual([]);
  });

  it('DNS turns every A and AAAA address of an entry into an endpoint with the entry port', async () => {
    const { resolver } = fakeResolver({
      a: { 'controller.lanner.svc': ['10.1.0.5', '10.1.0.6'] },
      aaaa: { 'controller.lanner.svc': ['fd00::5'] },
    });
    const resolved = await resolveControllers('DNS', [entry('controller.lanner.svc', 9443), entry('10.9.9.9', 9000)], resolver);
    expect(resolved.endpoints).toEqual([
      entry('10.1.0.5', 9443),
      entry('10.1.0.6', 9443),
      entry('fd00::5', 9443),
      entry('10.9.9.9', 9000),
    ]);
    expect(resolved.problems).toEqual([]);
  });

  it('DNS falls back to the system resolver for a name DNS does not know, and names an entry that has no address', async () => {
    const { resolver } = fakeResolver({ hosts: { localhost: ['127.0.0.1'] } });
    const resolved = await resolveControllers('DNS', [entry('localhost', 9090), entry('gone.example', 9090)], resolver);
    expect(resolved.endpoints).toEqual([entry('127.0.0.1', 9090)]);
    expect(resolved.problems).toEqual(['gone.example has no A or AAAA record (ENOTFOUND)']);
  });

  it('SRV orders records by priority, then weight, and ignores the entry port', async () => {
    const { resolver } = fakeResolver({
      srv: {
        '_grpc._tcp.controller.lanner.svc': [
          { name: 'c-backup.lanner.svc.', port: 7000, priority: 20, weight: 100 },
          { name: 'c-light.lanner.svc', port: 7001, priority: 10, weight: 5 },
          { name: 'c-heavy.lanner.svc', port: 7002, priority: 10, weight: 60 },
        ],
      },
    });
    const resolved = await resolveControllers('SRV', [entry('_grpc._tcp.controller.lanner.svc', 1)], resolver);
    expect(resolved.endpoints).toEqual([
      entry('c-heavy.lanner.svc', 7002),
      entry('c-light.lanner.svc', 7001),
      entry('c-backup.lanner.svc', 7000),
    ]);
  });

  it('SRV names an entry without records', async () => {
    const { resolver } = fakeResolver({});
    const resolved = await resolveControllers('SRV', [entry('_grpc._tcp.missing.svc', 1)], resolver);
    expect(resolved.endpoints).toEqual([]);
    expect(resolved.problems).toEqual(['_grpc._tcp.missing.svc has no SRV record (ENOTFOUND)']);
  });

  it('walks to the controller after the last one, wrapping around, and starts over when the last one left the list', () => {
    const list = [entry('10.0.0.1', 1), entry('10.0.0.2', 1), entry('10.0.0.3', 1)];
    expect(nextController(list, undefined)).toEqual(list[0]);
    expect(nextController(list, list[0])).toEqual(list[1]);
    expect(nextController(list, list[2])).toEqual(list[0]);
    expect(nextController(list, entry('10.0.0.9', 1))).toEqual(list[0]);
    expect(nextController([], list[0])).toBeUndefined();
  });

  it('resolves again once the refresh interval passed, keeps the last good list when DNS fails, and reports changes', async () => {
    const tables: { a: Record<string, string[]> } = { a: { 'c.svc': ['10.0.0.1'] } };
    const { resolver, asked } = fakeResolver(tables);
    let now = 0;
    const changes: string[][] = [];
    const directory = new ControllerDirectory({
      mode: 'DNS',
      entries: [entry('c.svc', 9090)],
      refreshMs: 30_000,
      resolver,
      now: () => now,
      onChange: (endpoints, problems) => changes.push([...endpoints.map((e) => e.host), ...problems]),
    });
    expect((await directory.current()).endpoints).toEqual([entry('10.0.0.1', 9090)]);
    tables.a['c.svc'] = ['10.0.0.1', '10.0.0.2'];
    now = 10_000;
    expect((await directory.current()).endpoints).toEqual([entry('10.0.0.1', 9090)]); // not due yet
    now = 30_000;
    expect((await directory.current()).endpoints).toEqual([entry('10.0.0.1', 9090), entry('10.0.0.2', 9090)]);
    delete tables.a['c.svc'];
    now = 60_000;
    const afterFailure = await directory.current();
    expect(afterFailure.endpoints).toEqual([entry('10.0.0.1', 9090), entry('10.0.0.2', 9090)]);
    expect(afterFailure.problems).toEqual(['c.svc has no A or AAAA record (ENOTFOUND)']);
    expect(changes).toEqual([
      ['10.0.0.1'],
      ['10.0.0.1', '10.0.0.2'],
      ['10.0.0.1', '10.0.0.2', 'c.svc has no A or AAAA record (ENOTFOUND)'],
    ]);
    expect(asked.filter((question) => question.startsWith('A '))).toHaveLength(3);
  });
});
