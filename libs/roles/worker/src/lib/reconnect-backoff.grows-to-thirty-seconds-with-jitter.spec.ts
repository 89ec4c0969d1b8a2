import { RECONNECT_MAX_MS, reconnectDelayMs } from './reconnect-backoff';

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
});
