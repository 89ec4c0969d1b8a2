import { RECONNECT_MAX_MS, reconnectDelayMs, recycleDelayMs } from './reconnect-backoff';

describe('reconnect backoff', () => {
  it('starts around one second and doubles per failure', () => {
    expect(reconnectDelayMs(1, 0)).toBe(500);
    expect(reconnectDelayMs(1, 0.999999)).toBeLessThanOrEqual(1000);
    expect(reconnectDelayMs(2, 0)).toBe(1000);
    expect(reconnectDelayMs(3, 0)).toBe(2000);
  });

  it('never waits more than thirty seconds, however many failures', () => {
    for (const failures of [5, 6, 10, 50, 1000]) {
      expect(reconnectDelayMs(failures, 0.999999)).toBeLessThanOrEqual(RECONNECT_MAX_MS);
      expect(reconnectDelayMs(failures, 0)).toBeGreaterThanOrEqual(RECONNECT_MAX_MS / 4);
    }
  });

  it('spreads workers that failed the same number of times', () => {
    expect(reconnectDelayMs(4, 0.1)).not.toBe(reconnectDelayMs(4, 0.9));
  });

  it('obeys a Reconnect delay, never sooner and at most a fifth later; zero means at once', () => {
    expect(recycleDelayMs(0, 0.7)).toBe(0);
    expect(recycleDelayMs(5_000, 0)).toBe(5_000);
    expect(recycleDelayMs(5_000, 0.999999)).toBeLessThanOrEqual(6_000);
    expect(recycleDelayMs(5_000, 0.2)).not.toBe(recycleDelayMs(5_000, 0.8));
  });
});
