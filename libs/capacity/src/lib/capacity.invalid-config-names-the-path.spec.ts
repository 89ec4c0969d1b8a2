import { CapacityLedger } from './capacity-ledger';
import { CapacitySubscription } from './capacity-config';
import { InvalidCapacityConfig } from './capacity-errors';

function configError(slots: number, subscriptions: readonly CapacitySubscription[]): InvalidCapacityConfig {
  try {
    new CapacityLedger(slots, subscriptions);
  } catch (error) {
    if (error instanceof InvalidCapacityConfig) return error;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('an invalid capacity configuration is refused with the path of the offending field', () => {
  it.each([0, -1, 1.5, Number.NaN])('slots = %p', (slots) => {
    expect(configError(slots, []).path).toBe('slots');
  });

  it.each([101, -5, 12.5, Number.NaN])('reservedPercent = %p', (reservedPercent) => {
    const error = configError(10, [
      { workerQueueId: 'a', mode: 'STRICT' },
      { workerQueueId: 'b', reservedPercent, mode: 'STRICT' },
    ]);
    expect(error.path).toBe('subscriptions[1].reservedPercent');
  });

  it('reservations summing above 100%', () => {
    const error = configError(10, [
      { workerQueueId: 'a', reservedPercent: 60, mode: 'STRICT' },
      { workerQueueId: 'b', reservedPercent: 41, mode: 'ELASTIC' },
    ]);
    expect(error.path).toBe('subscriptions');
    expect(error.message).toContain('101');
  });

  it('the same worker queue twice', () => {
    const error = configError(10, [
      { workerQueueId: 'a', mode: 'STRICT' },
      { workerQueueId: 'a', mode: 'ELASTIC' },
    ]);
    expect(error.path).toBe('subscriptions[1].workerQueueId');
  });

  it('an empty worker queue id', () => {
    expect(configError(10, [{ workerQueueId: '', mode: 'STRICT' }]).path).toBe('subscriptions[0].workerQueueId');
  });

  it('an unknown mode (from untyped input)', () => {
    const subscription = JSON.parse('{"workerQueueId":"a","mode":"GREEDY"}') as CapacitySubscription;
    expect(configError(10, [subscription]).path).toBe('subscriptions[0].mode');
  });

  it('accepts 1%, 100%, a sum of exactly 100% and no subscriptions at all', () => {
    expect(() => new CapacityLedger(10, [{ workerQueueId: 'a', reservedPercent: 1, mode: 'STRICT' }])).not.toThrow();
    expect(() => new CapacityLedger(10, [{ workerQueueId: 'a', reservedPercent: 100, mode: 'STRICT' }])).not.toThrow();
    expect(
      () =>
        new CapacityLedger(10, [
          { workerQueueId: 'a', reservedPercent: 70, mode: 'STRICT' },
          { workerQueueId: 'b', reservedPercent: 30, mode: 'ELASTIC' },
        ]),
    ).not.toThrow();
    expect(new CapacityLedger(10, []).snapshot()).toMatchObject({ slots: 10, reserved: 0, shared: 10 });
  });
});
