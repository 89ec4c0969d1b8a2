import { liveRegistrations, parseRegistration, type ControllerRegistration } from './controller-registry';

const entry = (instanceId: string, port: number, refreshedAt: number, expiresAt: number): ControllerRegistration => ({
  instanceId,
  host: '10.0.0.1',
  port,
  refreshedAt,
  expiresAt,
});

describe('controller registry entries', () => {
  it('count until they expire, and no longer', () => {
    const entries = [entry('b', 9091, 1_000, 31_000), entry('a', 9090, 1_000, 31_000), entry('c', 9092, 0, 30_000)];

    expect(liveRegistrations(entries, 29_999).map((one) => one.instanceId)).toEqual(['a', 'b', 'c']);
    expect(liveRegistrations(entries, 30_000).map((one) => one.instanceId)).toEqual(['a', 'b']);
    expect(liveRegistrations(entries, 31_000)).toEqual([]);
  });

  it('keep the freshest entry of an endpoint a restarted controller registered again under a new id', () => {
    const live = liveRegistrations([entry('old', 9090, 1_000, 31_000), entry('new', 9090, 5_000, 35_000)], 10_000);

    expect(live.map((one) => one.instanceId)).toEqual(['new']);
  });

  it('refuse what is not an entry, saying why', () => {
    expect(parseRegistration('{')).toBe('not JSON');
    expect(parseRegistration(JSON.stringify({ instanceId: 'a', host: 'h', port: 70000, refreshedAt: 1, expiresAt: 2 }))).toMatch(
      /not a controller entry/,
    );
    expect(parseRegistration(JSON.stringify({ instanceId: 'a', host: 'h', port: 9090, refreshedAt: 1, expiresAt: 2 }))).toEqual({
      instanceId: 'a',
      host: 'h',
      port: 9090,
      refreshedAt: 1,
      expiresAt: 2,
    });
  });
});
